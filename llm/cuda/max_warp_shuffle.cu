// Max over dim 1, one warp per row, __shfl_down_sync, -FLT_MAX seed.
#define FLT_MAX 3.402823466e+38f
extern "C" __global__ void max_warp_shuffle(const float* x, float* out, int rows, int cols) {
    int row = blockIdx.x;
    int lane = threadIdx.x;
    float m = -FLT_MAX;
    for (int j = lane; j < cols; j += warpSize) m = fmaxf(m, x[row * cols + j]);
    for (int offset = warpSize / 2; offset > 0; offset >>= 1)
        m = fmaxf(m, __shfl_down_sync(0xffffffff, m, offset));
    if (lane == 0) out[row] = m;
}
