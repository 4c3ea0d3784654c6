// Hardtanh(-1, 1) with fminf/fmaxf.
extern "C" __global__ void hardtanh(const float* x, float* y, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        y[idx] = fminf(fmaxf(x[idx], -1.0f), 1.0f);
    }
}
