// C = A @ B with K split across the threads of a CTA: one CTA per C element, thread k
// sums A[i, k::32] * B[k::32, j] and adds its partial dot into C[i, j] with atomicAdd.
extern "C" __global__ void atomic_matmul_split_k(const float* A, const float* B, float* C,
                                                 int M, int N, int K) {
    int j = blockIdx.x, i = blockIdx.y;
    if (threadIdx.x == 0) C[i * N + j] = 0.0f;
    __syncthreads();
    float acc = 0.0f;
    for (int k = threadIdx.x; k < K; k += blockDim.x) acc += A[i * K + k] * B[k * N + j];
    atomicAdd(&C[i * N + j], acc);
}
