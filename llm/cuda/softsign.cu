// Softsign: x / (1 + |x|).
extern "C" __global__ void softsign(const float* x, float* y, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        float v = x[idx];
        y[idx] = v / (1.0f + fabsf(v));
    }
}
