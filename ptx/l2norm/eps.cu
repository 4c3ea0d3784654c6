// Row-wise L2 normalisation with an extra 1e-8 under the square root:
// y = x / sqrt(sum(x^2) + 1e-8). A different function from the plain one.
extern "C" __global__ void l2norm_eps(const float* __restrict__ x, float* __restrict__ y, int m, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m) {
        float s = 0.0f;
        for (int j = 0; j < n; j++) {
            float v = x[row * n + j];
            s += v * v;
        }
        float r = sqrtf(s + 1e-8f);
        for (int j = 0; j < n; j++) {
            y[row * n + j] = x[row * n + j] / r;
        }
    }
}
