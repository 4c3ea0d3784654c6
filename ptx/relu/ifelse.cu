// relu written with an if/else of two stores (as hand- and LLM-written kernels often
// have it): each branch stores its own value to y[i].
extern "C" __global__ void relu_ifelse(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        if (v > 0.0f) {
            y[i] = v;
        } else {
            y[i] = 0.0f;
        }
    }
}
