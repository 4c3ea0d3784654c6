// SGEMM step 6, vectorised: blocktile_2d (one block of 256 threads per 128 x 128
// tile of C, 8 x 8 results per thread, BK = 8) with 128-bit accesses.  Each
// thread loads one float4 of the A tile and stores it TRANSPOSED into As[BK][BM]
// (so the inner loop reads A down a column of As), loads one float4 of the B
// tile straight into Bs with a float4 store, and writes C as float4s.
// Block 256, grid N/128 x M/128; M, N multiples of 128, K a multiple of 8.
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8

extern "C" __global__ void sgemm_vectorized(const float* __restrict__ A,
                                            const float* __restrict__ B,
                                            float* __restrict__ C,
                                            int M, int N, int K) {
    __shared__ float As[BK * BM];
    __shared__ float Bs[BK * BN];
    const int t = threadIdx.x;
    const int threadRow = t / (BN / TN);
    const int threadCol = t % (BN / TN);
    const int aRow = t / (BK / 4), aCol = t % (BK / 4);   // 128 rows x 2 float4
    const int bRow = t / (BN / 4), bCol = t % (BN / 4);   // 8 rows x 32 float4
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;

    float res[TM * TN] = {0.0f};
    float regM[TM];
    float regN[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        float4 a = reinterpret_cast<const float4*>(&A[aRow * K + aCol * 4])[0];
        As[(aCol * 4 + 0) * BM + aRow] = a.x;
        As[(aCol * 4 + 1) * BM + aRow] = a.y;
        As[(aCol * 4 + 2) * BM + aRow] = a.z;
        As[(aCol * 4 + 3) * BM + aRow] = a.w;
        reinterpret_cast<float4*>(&Bs[bRow * BN + bCol * 4])[0] =
            reinterpret_cast<const float4*>(&B[bRow * N + bCol * 4])[0];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int d = 0; d < BK; ++d) {
            for (int i = 0; i < TM; ++i) regM[i] = As[d * BM + threadRow * TM + i];
            for (int j = 0; j < TN; ++j) regN[j] = Bs[d * BN + threadCol * TN + j];
            for (int i = 0; i < TM; ++i)
                for (int j = 0; j < TN; ++j) res[i * TN + j] += regM[i] * regN[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i) {
        for (int j = 0; j < TN; j += 4) {
            float4 c = make_float4(res[i * TN + j], res[i * TN + j + 1],
                                   res[i * TN + j + 2], res[i * TN + j + 3]);
            reinterpret_cast<float4*>(&C[(threadRow * TM + i) * N + threadCol * TN + j])[0] = c;
        }
    }
}
