// Max over dim 1, one thread per row: `if (v > m) m = v` from -FLT_MAX.
#define FLT_MAX 3.402823466e+38f
extern "C" __global__ void rowmax_if(const float* x, float* out, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float m = -FLT_MAX;
        for (int j = 0; j < cols; j++) {
            float v = x[row * cols + j];
            if (v > m) m = v;
        }
        out[row] = m;
    }
}
