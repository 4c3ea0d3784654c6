// blocktile_1d with a wrong tile bound: the inner loop runs d < BK - 1, so the
// products of every 8th k (k = 7, 15, ...) are missing from each result.
// Block 512, grid N/64 x M/64.
#define BM 64
#define BN 64
#define BK 8
#define TM 8

extern "C" __global__ void sgemm_blocktile_1d_wrong_bound(const float* __restrict__ A,
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
        // BUG: d < BK - 1 drops the last column of each slice
        for (int d = 0; d < BK - 1; ++d) {
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
