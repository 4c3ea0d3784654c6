// ReLU, one thread per element, a ternary.
extern "C" __global__ void relu_ternary(const float* x, float* y, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        float v = x[idx];
        y[idx] = v > 0.0f ? v : 0.0f;
    }
}
