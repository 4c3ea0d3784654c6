// A wrong twin: 1 / (1 + expf(x)) is sigmoid(-x), not sigmoid(x).
extern "C" __global__ void sigmoid_wrong_sign(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 1.0f / (1.0f + expf(x[i]));
    }
}
