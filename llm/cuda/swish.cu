// Swish / SiLU: x * sigmoid(x).
extern "C" __global__ void swish(const float* x, float* y, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        float v = x[idx];
        float s = 1.0f / (1.0f + expf(-v));
        y[idx] = v * s;
    }
}
