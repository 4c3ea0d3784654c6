// C = A * B (row-major, A: M x K, B: K x N, C: M x N), one thread per output
// element reading A and B from global memory (Boehm's SGEMM kernel 1).
// A CTA of 16 x 16 threads computes one 16 x 16 tile of C.
// The reference of the matmul family.

extern "C" __global__ void matmul_naive(const float* __restrict__ A,
                                        const float* __restrict__ B,
                                        float* __restrict__ C,
                                        int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = acc;
    }
}
