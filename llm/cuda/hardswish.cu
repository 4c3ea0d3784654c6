// Hardswish: x * relu6(x + 3) / 6.
extern "C" __global__ void hardswish(const float* x, float* y, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        float v = x[idx];
        y[idx] = v * fminf(fmaxf(v + 3.0f, 0.0f), 6.0f) / 6.0f;
    }
}
