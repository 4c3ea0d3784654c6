// RMSNorm with weight: one warp per row, shuffles.
extern "C" __global__ void rmsnorm_warp(const float* x, const float* w, float* y, int rows, int cols, float eps) {
    int row = blockIdx.x, lane = threadIdx.x;
    float ss = 0.0f;
    for (int j = lane; j < cols; j += 32) {
        float v = x[row * cols + j];
        ss += v * v;
    }
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffff, ss, o);
    float r = rsqrtf(ss / cols + eps);
    for (int j = lane; j < cols; j += 32) y[row * cols + j] = x[row * cols + j] * r * w[j];
}
