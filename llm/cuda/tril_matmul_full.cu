// tril(A @ B) for any A and B: the full k loop, masked to the lower triangle.
extern "C" __global__ void tril_matmul_full(const float* A, const float* B, float* C, int N) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < N && col < N) {
        float s = 0.0f;
        if (row >= col) {
            for (int k = 0; k < N; ++k) s += A[row * N + k] * B[k * N + col];
        }
        C[row * N + col] = s;
    }
}
