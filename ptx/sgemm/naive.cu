// SGEMM step 1, naive: C = A @ B (A is M x K, B is K x N, row-major), one thread
// per element of C, the dot product read straight from global memory.  As in the
// first kernel of the SGEMM tutorial series, threadIdx.x walks the ROWS of C, so
// the 16 threads of a half-warp read 16 different rows of A (uncoalesced).
// Block 16 x 16, grid cdiv(M, 16) x cdiv(N, 16).  The family's reference.
extern "C" __global__ void sgemm_naive(const float* __restrict__ A,
                                       const float* __restrict__ B,
                                       float* __restrict__ C,
                                       int M, int N, int K) {
    int row = blockIdx.x * 16 + threadIdx.x;
    int col = blockIdx.y * 16 + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = acc;
    }
}
