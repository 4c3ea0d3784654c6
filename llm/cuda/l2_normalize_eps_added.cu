// L2 normalisation dividing by ||x|| + 1e-6 (an extra eps instead of the clamp).
extern "C" __global__ void l2_normalize_eps_added(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float ss = 0.0f;
        for (int j = 0; j < cols; j++) ss += x[row * cols + j] * x[row * cols + j];
        float n = sqrtf(ss) + 1e-6f;
        for (int j = 0; j < cols; j++) y[row * cols + j] = x[row * cols + j] / n;
    }
}
