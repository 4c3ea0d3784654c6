// blocktile_2d without the second __syncthreads of each K step: the stores of
// slice k0 + 8 into As / Bs race with the reads of slice k0 by other threads
// (a race from K = 16 on; with a single slice there is no next store).
// Block 256, grid N/128 x M/128.
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NT 256

extern "C" __global__ void sgemm_blocktile_2d_no_sync(const float* __restrict__ A,
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
        // BUG: no __syncthreads() here: a fast thread's stores of the next slice
        // overwrite As / Bs while slower threads still read this slice.
    }
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j)
            C[(threadRow * TM + i) * N + threadCol * TN + j] = res[i * TN + j];
}
