// libm probe: CUDA's powf() with the exponent 2.5, one element per thread, compiled by
// ptx/libm/generate.py exactly as ptx/generate.py compiles the suite (NVRTC).
extern "C" __global__ void libm_powf_2_5(const float* __restrict__ x, float* __restrict__ y, int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = powf(x[i], 2.5f);
    }
}
