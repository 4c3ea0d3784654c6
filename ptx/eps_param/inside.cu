// x / sqrt(x^2 + eps) with eps a float kernel argument: the launch gives eps = 1e-5,
// which the host passes rounded to float.
extern "C" __global__ void eps_param_inside(const float* __restrict__ x, float* __restrict__ y, int n, float eps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v / sqrtf(v * v + eps);
    }
}
