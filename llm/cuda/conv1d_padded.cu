// Conv1d with bias, stride 2, padding 1, one thread per output.
extern "C" __global__ void conv1d_padded(const float* x, const float* w, const float* bias, float* y,
                                         int N, int Cin, int L, int Cout, int K, int Lout) {
    const int S = 2, P = 1;
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= N * Cout * Lout) return;
    int n = idx / (Cout * Lout), co = (idx / Lout) % Cout, o = idx % Lout;
    float acc = bias[co];
    for (int ci = 0; ci < Cin; ci++)
        for (int k = 0; k < K; k++) {
            int pos = o * S - P + k;
            if (pos >= 0 && pos < L) acc += x[(n * Cin + ci) * L + pos] * w[(co * Cin + ci) * K + k];
        }
    y[idx] = acc;
}
