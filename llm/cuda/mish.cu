// Mish: x * tanh(softplus(x)).
extern "C" __global__ void mish(const float* x, float* y, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        float v = x[idx];
        float sp = logf(1.0f + expf(v));
        y[idx] = v * tanhf(sp);
    }
}
