// Sigmoid computed in double "for accuracy".
extern "C" __global__ void sigmoid_double(const float* x, float* y, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        double v = (double)x[idx];
        y[idx] = (float)(1.0 / (1.0 + exp(-v)));
    }
}
