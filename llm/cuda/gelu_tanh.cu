// GELU with the tanh approximation (what many answers write for "GELU").
extern "C" __global__ void gelu_tanh(const float* x, float* y, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        float v = x[idx];
        const float k = 0.7978845608028654f;  // sqrt(2 / pi)
        float inner = k * (v + 0.044715f * v * v * v);
        y[idx] = 0.5f * v * (1.0f + tanhf(inner));
    }
}
