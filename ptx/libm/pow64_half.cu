// libm probe: CUDA's double pow() with the exponent 0.5, one element per thread (float in and out, the
// argument and result converted), compiled by ptx/libm/generate.py exactly as
// ptx/generate.py compiles the suite (NVRTC). It calls a .func subroutine
// (inlined by lift's PTX front end, src/ptx/calls.rs).
extern "C" __global__ void libm_pow64_half(const float* __restrict__ x, float* __restrict__ y, int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = (float)pow((double)x[i], 0.5);
    }
}
