// Row argmax with an int64 output (as torch.argmax returns): one thread per row keeps
// the best value and its index, replacing it only on a strictly larger element, so
// ties keep the first index (PyTorch's rule). The index is stored as a 64-bit integer.
extern "C" __global__ void argmax_first(const float* __restrict__ x, long long* __restrict__ out,
                                        int m, int n) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= m) return;
    const float* row = x + (long long)r * n;
    float best = row[0];
    int idx = 0;
    for (int j = 1; j < n; j++) {
        float v = row[j];
        if (v > best) {
            best = v;
            idx = j;
        }
    }
    out[r] = idx;
}
