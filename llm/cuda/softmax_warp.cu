// Softmax, one warp per row, shuffles, -INFINITY seed.
#define INFINITY __int_as_float(0x7f800000)
extern "C" __global__ void softmax_warp(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x;
    int lane = threadIdx.x;
    if (row >= rows) return;
    float m = -INFINITY;
    for (int j = lane; j < cols; j += 32) m = fmaxf(m, x[row * cols + j]);
    for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, off));
    float s = 0.0f;
    for (int j = lane; j < cols; j += 32) s += __expf(x[row * cols + j] - m);
    for (int off = 16; off > 0; off /= 2) s += __shfl_xor_sync(0xffffffff, s, off);
    for (int j = lane; j < cols; j += 32) y[row * cols + j] = __expf(x[row * cols + j] - m) / s;
}
