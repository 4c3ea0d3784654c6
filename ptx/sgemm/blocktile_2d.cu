// SGEMM step 5, 2-D block tiling: ONE block of 256 threads owns a 128 x 128 tile
// of C and each thread an 8 x 8 sub-tile (TM x TN results in registers).  Per K
// slice of BK = 8 the block stages a 128 x 8 tile of A and an 8 x 128 tile of B
// (four elements per thread each, in strided passes); the inner loop loads TM
// values of A and TN values of B into registers and forms their outer product.
// Block 256, grid N/128 x M/128; M, N multiples of 128, K a multiple of 8.
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NT 256

extern "C" __global__ void sgemm_blocktile_2d(const float* __restrict__ A,
                                              const float* __restrict__ B,
                                              float* __restrict__ C,
                                              int M, int N, int K) {
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int t = threadIdx.x;
    const int threadRow = t / (BN / TN);   // 0 .. 15
    const int threadCol = t % (BN / TN);   // 0 .. 15
    const int aRow = t / BK, aCol = t % BK;   // 32 rows per pass
    const int bRow = t / BN, bCol = t % BN;   // 2 rows per pass
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;

    float res[TM * TN] = {0.0f};
    float regM[TM];
    float regN[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int off = 0; off < BM; off += NT / BK) {
            As[(aRow + off) * BK + aCol] = A[(aRow + off) * K + aCol];
        }
        for (int off = 0; off < BK; off += NT / BN) {
            Bs[(bRow + off) * BN + bCol] = B[(bRow + off) * N + bCol];
        }
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int d = 0; d < BK; ++d) {
            for (int i = 0; i < TM; ++i) regM[i] = As[(threadRow * TM + i) * BK + d];
            for (int j = 0; j < TN; ++j) regN[j] = Bs[d * BN + threadCol * TN + j];
            for (int i = 0; i < TM; ++i)
                for (int j = 0; j < TN; ++j) res[i * TN + j] += regM[i] * regN[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j)
            C[(threadRow * TM + i) * N + threadCol * TN + j] = res[i * TN + j];
}
