// Conv1d, no bias, stride 1, no padding: x (N, Cin, L), w (Cout, Cin, K), one thread per output.
extern "C" __global__ void conv1d(const float* x, const float* w, float* y, int N, int Cin, int L,
                                  int Cout, int K) {
    int Lout = L - K + 1;
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= N * Cout * Lout) return;
    int n = idx / (Cout * Lout), co = (idx / Lout) % Cout, o = idx % Lout;
    float acc = 0.0f;
    for (int ci = 0; ci < Cin; ci++)
        for (int k = 0; k < K; k++)
            acc += x[(n * Cin + ci) * L + o + k] * w[(co * Cin + ci) * K + k];
    y[idx] = acc;
}
