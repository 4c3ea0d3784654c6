// SiLU through a __noinline__ device function: NVRTC keeps the call (a .func with a
// .param argument and return value), which lift inlines (src/ptx/calls.rs).
__device__ __noinline__ float sigm(float v) {
    return 1.0f / (1.0f + expf(-v));
}

extern "C" __global__ void calls_noinline_silu(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v * sigm(v);
    }
}
