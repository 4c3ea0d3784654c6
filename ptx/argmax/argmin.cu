// argmax_first with the comparison flipped: the index of the row's minimum.
extern "C" __global__ void argmax_argmin(const float* __restrict__ x, long long* __restrict__ out,
                                         int m, int n) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= m) return;
    const float* row = x + (long long)r * n;
    float best = row[0];
    int idx = 0;
    for (int j = 1; j < n; j++) {
        float v = row[j];
        if (v < best) {
            best = v;
            idx = j;
        }
    }
    out[r] = idx;
}
