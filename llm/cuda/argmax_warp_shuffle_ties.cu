// argmax_warp_shuffle combining with `ov >= best`: a tie takes the other lane's index,
// which is not always the first.
extern "C" __global__ void argmax_warp_shuffle_ties(const float* x, long long* out, int rows, int cols) {
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
        if (ov >= best) { best = ov; bi = oi; }
    }
    if (lane == 0) out[row] = bi;
}
