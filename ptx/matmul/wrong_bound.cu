// The naive matmul (naive.cu) with an off-by-one loop bound: k < K - 1 drops
// the last term A[row][K-1] * B[K-1][col] of every dot product.  Wrong values,
// no race, no out-of-bounds access.

extern "C" __global__ void matmul_wrong_bound(const float* __restrict__ A,
                                              const float* __restrict__ B,
                                              float* __restrict__ C,
                                              int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K - 1; ++k) {
            acc += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = acc;
    }
}
