// F.normalize(x, dim=1): x / max(||x||, 1e-12), one thread per row.
extern "C" __global__ void l2_normalize(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float ss = 0.0f;
        for (int j = 0; j < cols; j++) ss += x[row * cols + j] * x[row * cols + j];
        float n = fmaxf(sqrtf(ss), 1e-12f);
        for (int j = 0; j < cols; j++) y[row * cols + j] = x[row * cols + j] / n;
    }
}
