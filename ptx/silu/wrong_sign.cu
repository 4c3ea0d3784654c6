// A wrong twin: x / (1 + expf(x)) is x * sigmoid(-x), not SiLU.
extern "C" __global__ void silu_wrong_sign(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v / (1.0f + expf(v));
    }
}
