// Row-wise L2 normalisation, one thread per row: y = x / sqrt(sum(x^2)).
extern "C" __global__ void l2norm_plain(const float* __restrict__ x, float* __restrict__ y, int m, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m) {
        float s = 0.0f;
        for (int j = 0; j < n; j++) {
            float v = x[row * n + j];
            s += v * v;
        }
        float r = sqrtf(s);
        for (int j = 0; j < n; j++) {
            y[row * n + j] = x[row * n + j] / r;
        }
    }
}
