// bool_mask written with an if/else of stores on the mask byte.
extern "C" __global__ void masked_fill_branch_store(const float* __restrict__ x,
                                                    const bool* __restrict__ m,
                                                    float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (m[i]) {
            y[i] = 0.0f;
        } else {
            y[i] = x[i];
        }
    }
}
