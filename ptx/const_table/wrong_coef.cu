// The wrong twin of const_table/poly: one coefficient of the table is off
// (x^2/3 instead of x^2/4).
__constant__ float coef[4] = {1.0f, 0.5f, 0.33333334f, 0.125f};

extern "C" __global__ void const_table_wrong_coef(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = coef[0] + v * (coef[1] + v * (coef[2] + v * coef[3]));
    }
}
