// Bug twin of clamp.cu: the two fields are used the wrong way round, so every element
// becomes p.lo (fmaxf with hi, then fminf with lo).
struct Bounds {
    float lo;
    float hi;
};

extern "C" __global__ void struct_clamp_swapped(const float* __restrict__ x, float* __restrict__ y,
                                                Bounds p, int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = fminf(fmaxf(x[i], p.hi), p.lo);
    }
}
