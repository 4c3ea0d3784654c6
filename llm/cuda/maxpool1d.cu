// MaxPool1d(kernel_size=4, stride=2) over (N, C, L): one thread per output element.
#define FLT_MAX 3.402823466e+38f
extern "C" __global__ void maxpool1d(const float* x, float* y, int NC, int L, int L_out) {
    const int K = 4, S = 2;
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < NC * L_out) {
        int nc = idx / L_out, o = idx % L_out;
        float m = -FLT_MAX;
        for (int k = 0; k < K; k++) {
            float v = x[nc * L + o * S + k];
            if (v > m) m = v;
        }
        y[idx] = m;
    }
}
