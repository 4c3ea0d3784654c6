// swish / SiLU as it is most often written: x / (1 + expf(-x)).
extern "C" __global__ void silu_neg_exp(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v / (1.0f + expf(-v));
    }
}
