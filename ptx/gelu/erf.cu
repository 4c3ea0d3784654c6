// Exact GELU: 0.5 x (1 + erf(x / sqrt(2))).
extern "C" __global__ void gelu_erf(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + erff(v * 0.7071067811865476f));
    }
}
