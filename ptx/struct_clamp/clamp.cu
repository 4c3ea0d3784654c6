// y = clamp(x, p.lo, p.hi) with the bounds in a struct passed by value (issue 19,
// item 6): NVRTC declares it `.param .align 4 .b8 ..._param_2[8]` and reads the fields
// with `ld.param.f32 [p+0]`, `[p+4]`; the launch binds them by byte offset.
struct Bounds {
    float lo;
    float hi;
};

extern "C" __global__ void struct_clamp_clamp(const float* __restrict__ x, float* __restrict__ y,
                                              Bounds p, int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = fminf(fmaxf(x[i], p.lo), p.hi);
    }
}
