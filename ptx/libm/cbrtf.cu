// libm probe: CUDA's cbrtf(), one element per thread, compiled by
// ptx/libm/generate.py exactly as ptx/generate.py compiles the suite (NVRTC).
extern "C" __global__ void libm_cbrtf(const float* __restrict__ x, float* __restrict__ y, int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = cbrtf(x[i]);
    }
}
