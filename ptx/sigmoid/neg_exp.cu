// sigmoid as it is most often written: 1 / (1 + expf(-x)).
extern "C" __global__ void sigmoid_neg_exp(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 1.0f / (1.0f + expf(-x[i]));
    }
}
