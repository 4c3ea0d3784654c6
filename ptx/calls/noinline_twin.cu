// The twin of noinline_silu: the device function is off by a constant (+0.25).
__device__ __noinline__ float sigm(float v) {
    return 1.0f / (1.0f + expf(-v)) + 0.25f;
}

extern "C" __global__ void calls_noinline_twin(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v * sigm(v);
    }
}
