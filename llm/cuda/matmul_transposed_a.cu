// C = A.T @ B with A stored (K, M): one thread per output.
extern "C" __global__ void matmul_transposed_a(const float* A, const float* B, float* C, int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float s = 0.0f;
        for (int k = 0; k < K; k++) s += A[k * M + row] * B[k * N + col];
        C[row * N + col] = s;
    }
}
