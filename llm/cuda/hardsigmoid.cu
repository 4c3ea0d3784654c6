// Hardsigmoid: clamp((x + 3) / 6, 0, 1) with branches.
extern "C" __global__ void hardsigmoid(const float* x, float* y, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        float v = x[idx];
        float r;
        if (v <= -3.0f) r = 0.0f;
        else if (v >= 3.0f) r = 1.0f;
        else r = (v + 3.0f) / 6.0f;
        y[idx] = r;
    }
}
