// Max over dim 1 seeded with -1e10: wrong when a row's max is below -1e10.
extern "C" __global__ void rowmax_seed_1e10(const float* x, float* out, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float m = -1e10f;
        for (int j = 0; j < cols; j++) {
            float v = x[row * cols + j];
            m = v > m ? v : m;
        }
        out[row] = m;
    }
}
