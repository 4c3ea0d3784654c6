// SGEMM step 7, warp tiling: ONE block of 128 threads (4 warps) owns a 128 x 128
// tile of C; each warp a 64 x 64 warp tile (2 x 2 warps), which it covers in
// WNITER = 4 column sub-tiles of 64 x 16; each lane computes TM x TN = 8 x 4
// results per sub-tile (128 in all).  Per K slice of BK = 16 the block stages A
// transposed (As[BK][BM], float4 loads) and B (Bs[BK][BN], float4 loads and
// stores); the inner loop fills per-warp register fragments from shared memory.
// Block 128, grid N/128 x M/128; M, N multiples of 128, K a multiple of 16.
#define BM 128
#define BN 128
#define BK 16
#define WM 64
#define WN 64
#define WNITER 4
#define TM 8
#define TN 4
#define NT 128
#define WMITER ((WM * WN) / (32 * TM * TN * WNITER))   // 1
#define WSUBM (WM / WMITER)                              // 64
#define WSUBN (WN / WNITER)                              // 16

extern "C" __global__ void sgemm_warptile(const float* __restrict__ A,
                                          const float* __restrict__ B,
                                          float* __restrict__ C,
                                          int M, int N, int K) {
    __shared__ float As[BK * BM];
    __shared__ float Bs[BK * BN];
    const int t = threadIdx.x;
    const int warp = t / 32;
    const int warpRow = warp / (BN / WN);
    const int warpCol = warp % (BN / WN);
    const int lane = t % 32;
    const int laneRow = lane / (WSUBN / TN);   // 0 .. 7
    const int laneCol = lane % (WSUBN / TN);   // 0 .. 3
    const int aRow = t / (BK / 4), aCol = t % (BK / 4);   // 32 rows per pass
    const int bRow = t / (BN / 4), bCol = t % (BN / 4);   // 4 rows per pass
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;

    float res[WMITER * TM * WNITER * TN] = {0.0f};
    float regM[WMITER * TM];
    float regN[WNITER * TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int off = 0; off < BM; off += NT * 4 / BK) {
            float4 a = reinterpret_cast<const float4*>(&A[(aRow + off) * K + aCol * 4])[0];
            As[(aCol * 4 + 0) * BM + aRow + off] = a.x;
            As[(aCol * 4 + 1) * BM + aRow + off] = a.y;
            As[(aCol * 4 + 2) * BM + aRow + off] = a.z;
            As[(aCol * 4 + 3) * BM + aRow + off] = a.w;
        }
        for (int off = 0; off < BK; off += NT * 4 / BN) {
            reinterpret_cast<float4*>(&Bs[(bRow + off) * BN + bCol * 4])[0] =
                reinterpret_cast<const float4*>(&B[(bRow + off) * N + bCol * 4])[0];
        }
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int d = 0; d < BK; ++d) {
            for (int wm = 0; wm < WMITER; ++wm)
                for (int i = 0; i < TM; ++i)
                    regM[wm * TM + i] =
                        As[d * BM + warpRow * WM + wm * WSUBM + laneRow * TM + i];
            for (int wn = 0; wn < WNITER; ++wn)
                for (int j = 0; j < TN; ++j)
                    regN[wn * TN + j] =
                        Bs[d * BN + warpCol * WN + wn * WSUBN + laneCol * TN + j];
            for (int wm = 0; wm < WMITER; ++wm)
                for (int wn = 0; wn < WNITER; ++wn)
                    for (int i = 0; i < TM; ++i)
                        for (int j = 0; j < TN; ++j)
                            res[(wm * TM + i) * (WNITER * TN) + wn * TN + j] +=
                                regM[wm * TM + i] * regN[wn * TN + j];
        }
        __syncthreads();
    }
    for (int wm = 0; wm < WMITER; ++wm)
        for (int wn = 0; wn < WNITER; ++wn)
            for (int i = 0; i < TM; ++i) {
                const float* r = &res[(wm * TM + i) * (WNITER * TN) + wn * TN];
                float* c = &C[(warpRow * WM + wm * WSUBM + laneRow * TM + i) * N +
                              warpCol * WN + wn * WSUBN + laneCol * TN];
                reinterpret_cast<float4*>(c)[0] = make_float4(r[0], r[1], r[2], r[3]);
            }
}
