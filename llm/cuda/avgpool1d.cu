// AvgPool1d(kernel_size=3, stride=2, padding=1), count_include_pad: one thread per output.
extern "C" __global__ void avgpool1d(const float* x, float* y, int NC, int L, int L_out) {
    const int K = 3, S = 2, P = 1;
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < NC * L_out) {
        int nc = idx / L_out, o = idx % L_out;
        float s = 0.0f;
        for (int k = 0; k < K; k++) {
            int pos = o * S - P + k;
            if (pos >= 0 && pos < L) s += x[nc * L + pos];
        }
        y[idx] = s / K;
    }
}
