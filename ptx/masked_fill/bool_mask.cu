// x.masked_fill(m, 0) with a bool mask tensor (one byte per element, loaded with
// ld.global.u8): y[i] = 0 where m[i] is true, x[i] elsewhere.
extern "C" __global__ void masked_fill_bool_mask(const float* __restrict__ x,
                                                 const bool* __restrict__ m,
                                                 float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = m[i] ? 0.0f : x[i];
    }
}
