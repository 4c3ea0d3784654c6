// Tanh activation.
extern "C" __global__ void tanh_act(const float* x, float* y, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) y[idx] = tanhf(x[idx]);
}
