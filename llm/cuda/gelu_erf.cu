// Exact GELU with erff.
extern "C" __global__ void gelu_erf(const float* x, float* y, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        float v = x[idx];
        y[idx] = 0.5f * v * (1.0f + erff(v * 0.7071067811865475f));
    }
}
