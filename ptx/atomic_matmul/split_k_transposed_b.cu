// Wrong twin of `split_k`: B indexed as if it were stored transposed (B[j * K + k]).
extern "C" __global__ void atomic_matmul_split_k_transposed_b(const float* A, const float* B,
                                                              float* C, int M, int N, int K) {
    int j = blockIdx.x, i = blockIdx.y;
    if (threadIdx.x == 0) C[i * N + j] = 0.0f;
    __syncthreads();
    float acc = 0.0f;
    for (int k = threadIdx.x; k < K; k += blockDim.x) acc += A[i * K + k] * B[j * K + k];
    atomicAdd(&C[i * N + j], acc);
}
