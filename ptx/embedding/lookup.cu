// Embedding lookup out[i, :] = w[ids[i], :] (F.embedding(ids, w)): one thread per output
// element (reference).
extern "C" __global__ void embedding_lookup(const long long* __restrict__ ids,
                                           const float* __restrict__ w,
                                           float* __restrict__ out, int l, int d) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= l * d) return;
    int row = i / d, col = i % d;
    out[i] = w[ids[row] * d + col];
}
