// LayerNorm without affine, one thread per row, statistics in double.
extern "C" __global__ void layernorm_double(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    double mean = 0.0;
    for (int j = 0; j < cols; j++) mean += x[row * cols + j];
    mean /= cols;
    double var = 0.0;
    for (int j = 0; j < cols; j++) {
        double d = x[row * cols + j] - mean;
        var += d * d;
    }
    var /= cols;
    double inv = 1.0 / sqrt(var + 1e-5);
    for (int j = 0; j < cols; j++) y[row * cols + j] = (float)((x[row * cols + j] - mean) * inv);
}
