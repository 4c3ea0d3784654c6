// diag(a) @ B: row i of B scaled by a[i].
extern "C" __global__ void diag_matmul(const float* a, const float* B, float* C, int N, int M) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < N * M) {
        int i = idx / M;
        C[idx] = a[i] * B[idx];
    }
}
