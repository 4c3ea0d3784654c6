// Argmax over dim 1: one warp per row, each lane scans its columns, then (value, index)
// pairs are combined with __shfl_down_sync, ties to the lower index.
extern "C" __global__ void argmax_warp_shuffle(const float* x, long long* out, int rows, int cols) {
    int row = blockIdx.x, lane = threadIdx.x;
    float best = x[row * cols + lane];
    int bi = lane;
    for (int j = lane + 32; j < cols; j += 32) {
        float v = x[row * cols + j];
        if (v > best) { best = v; bi = j; }
    }
    for (int off = 16; off > 0; off >>= 1) {
        float ov = __shfl_down_sync(0xffffffff, best, off);
        int oi = __shfl_down_sync(0xffffffff, bi, off);
        if (ov > best || (ov == best && oi < bi)) { best = ov; bi = oi; }
    }
    if (lane == 0) out[row] = bi;
}
