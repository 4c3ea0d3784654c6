// Sum over dim 1 of a (B, R, C) tensor: one thread per output element (b, c).
extern "C" __global__ void sum_dim1_thread(const float* x, float* out, int B, int R, int C) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * C) {
        int b = idx / C, c = idx % C;
        float s = 0.0f;
        for (int r = 0; r < R; r++) s += x[(b * R + r) * C + c];
        out[idx] = s;
    }
}
