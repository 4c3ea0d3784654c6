// bool_mask with the mask's sense inverted: keeps x where m is true.
extern "C" __global__ void masked_fill_inverted(const float* __restrict__ x,
                                                const bool* __restrict__ m,
                                                float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = m[i] ? x[i] : 0.0f;
    }
}
