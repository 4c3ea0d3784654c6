// A cubic whose coefficients live in a __constant__ table with an initialiser:
// y = 1 + x/2 + x^2/4 + x^3/8 (Horner's scheme).
__constant__ float coef[4] = {1.0f, 0.5f, 0.25f, 0.125f};

extern "C" __global__ void const_table_poly(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = coef[0] + v * (coef[1] + v * (coef[2] + v * coef[3]));
    }
}
