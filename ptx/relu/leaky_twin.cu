// The wrong twin of relu/ifelse: the else branch stores 0.1f * x (a leaky relu), not 0.
extern "C" __global__ void relu_leaky_twin(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        if (v > 0.0f) {
            y[i] = v;
        } else {
            y[i] = 0.1f * v;
        }
    }
}
