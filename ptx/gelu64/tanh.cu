// The wrong twin of gelu64/erf: the tanh approximation of GELU, in double precision.
extern "C" __global__ void gelu64_tanh(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = (double)x[i];
        double u = 0.79788456080286535588 * (v + 0.044715 * v * v * v);
        y[i] = (float)(0.5 * v * (1.0 + tanh(u)));
    }
}
