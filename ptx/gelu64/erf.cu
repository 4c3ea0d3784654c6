// Exact GELU computed in double precision (NVRTC's double erf expansion), on float
// tensors: y = 0.5 x (1 + erf(x / sqrt(2))).
extern "C" __global__ void gelu64_erf(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = (double)x[i];
        y[i] = (float)(0.5 * v * (1.0 + erf(v * 0.70710678118654752440)));
    }
}
