// LeakyReLU(negative_slope = 0.01).
extern "C" __global__ void leaky_relu(const float* x, float* out, int n, float negative_slope) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        float v = x[idx];
        out[idx] = v > 0 ? v : v * negative_slope;
    }
}
