// Mutual recursion NVRTC cannot turn into a loop: lift refuses it with an error naming
// the cycle (it inlines calls, and a recursive call has no bound).
__device__ __noinline__ float odd_sum(const float* x, int k);

__device__ __noinline__ float even_sum(const float* x, int k) {
    return k < 0 ? 0.0f : x[k] * 2.0f + odd_sum(x, k - 1) * 0.5f;
}

__device__ __noinline__ float odd_sum(const float* x, int k) {
    return k < 0 ? 1.0f : x[k] - even_sum(x, k - 1) * 0.25f;
}

extern "C" __global__ void calls_recursive(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = even_sum(x, i);
    }
}
