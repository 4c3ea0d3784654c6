// clamp(x, -1, 1) with nested if/else stores: three stores to y[i], one per path.
extern "C" __global__ void relu_clamp_ifelse(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        if (v > 1.0f) {
            y[i] = 1.0f;
        } else if (v < -1.0f) {
            y[i] = -1.0f;
        } else {
            y[i] = v;
        }
    }
}
