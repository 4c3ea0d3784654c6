// argmax_first with `>=`: on ties the later element wins, so a row whose maximum occurs
// twice gets the last index, not the first one torch.argmax returns.
extern "C" __global__ void argmax_last_on_ties(const float* __restrict__ x,
                                               long long* __restrict__ out, int m, int n) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= m) return;
    const float* row = x + (long long)r * n;
    float best = row[0];
    int idx = 0;
    for (int j = 1; j < n; j++) {
        float v = row[j];
        if (v >= best) {
            best = v;
            idx = j;
        }
    }
    out[r] = idx;
}
