// SGEMM step 2, global-memory coalescing: a 1-D block of 256 threads computes a
// 16 x 16 tile of C, consecutive threads taking consecutive COLUMNS, so a warp's
// loads of B and its stores of C touch consecutive addresses.
// Block 256, grid cdiv(N, 16) x cdiv(M, 16).
#define BS 16

extern "C" __global__ void sgemm_coalesced(const float* __restrict__ A,
                                           const float* __restrict__ B,
                                           float* __restrict__ C,
                                           int M, int N, int K) {
    int row = blockIdx.y * BS + threadIdx.x / BS;
    int col = blockIdx.x * BS + threadIdx.x % BS;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = acc;
    }
}
