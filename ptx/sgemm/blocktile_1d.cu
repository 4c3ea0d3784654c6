// SGEMM step 4, 1-D block tiling: a block of 512 threads owns a 64 x 64 tile of C
// and each thread computes a column strip of TM = 8 results.  Per K slice of
// BK = 8 the block stages a 64 x 8 tile of A and an 8 x 64 tile of B (one element
// per thread each); the inner loop reads one B value into a register and reuses
// it for the TM rows.
// Block 512, grid N/64 x M/64; M, N multiples of 64, K a multiple of 8.
#define BM 64
#define BN 64
#define BK 8
#define TM 8

extern "C" __global__ void sgemm_blocktile_1d(const float* __restrict__ A,
                                              const float* __restrict__ B,
                                              float* __restrict__ C,
                                              int M, int N, int K) {
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int t = threadIdx.x;
    const int threadCol = t % BN;
    const int threadRow = t / BN;          // 0 .. BM / TM - 1
    const int aRow = t / BK, aCol = t % BK;
    const int bRow = t / BN, bCol = t % BN;
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;

    float res[TM] = {0.0f};
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[aRow * BK + aCol] = A[aRow * K + aCol];
        Bs[bRow * BN + bCol] = B[bRow * N + bCol];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int d = 0; d < BK; ++d) {
            float b = Bs[d * BN + threadCol];
            for (int i = 0; i < TM; ++i) {
                res[i] += As[(threadRow * TM + i) * BK + d] * b;
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i) {
        C[(threadRow * TM + i) * N + threadCol] = res[i];
    }
}
