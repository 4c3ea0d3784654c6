// Sigmoid as 1 / (1 + exp(-x)).
extern "C" __global__ void sigmoid_expf(const float* x, float* y, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        y[idx] = 1.0f / (1.0f + expf(-x[idx]));
    }
}
