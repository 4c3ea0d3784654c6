// Batched matmul: blockIdx.z is the batch.
extern "C" __global__ void bmm(const float* A, const float* B, float* C, int M, int N, int K) {
    int b = blockIdx.z;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        const float* a = A + b * M * K;
        const float* bb = B + b * K * N;
        float s = 0.0f;
        for (int k = 0; k < K; k++) s += a[row * K + k] * bb[k * N + col];
        C[b * M * N + row * N + col] = s;
    }
}
