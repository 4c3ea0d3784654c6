// Argmax over dim 1, one thread per row, first index on ties.
#define FLT_MAX 3.402823466e+38f
extern "C" __global__ void argmax_thread(const float* x, long long* out, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float best = -FLT_MAX;
        int idx = 0;
        for (int j = 0; j < cols; j++) {
            float v = x[row * cols + j];
            if (v > best) { best = v; idx = j; }
        }
        out[row] = idx;
    }
}
