// Cumulative sum over dim 1, one thread per row, sequential.
extern "C" __global__ void cumsum_thread(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float s = 0.0f;
        for (int j = 0; j < cols; j++) {
            s += x[row * cols + j];
            y[row * cols + j] = s;
        }
    }
}
