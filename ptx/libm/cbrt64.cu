// libm probe: CUDA's double cbrt(), one element per thread (float in and out, the
// argument and result converted), compiled by ptx/libm/generate.py exactly as
// ptx/generate.py compiles the suite (NVRTC).
extern "C" __global__ void libm_cbrt64(const float* __restrict__ x, float* __restrict__ y, int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = (float)cbrt((double)x[i]);
    }
}
