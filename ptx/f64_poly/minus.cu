// plain with the linear term's sign flipped: 0.5 x^2 - x.
extern "C" __global__ void f64_poly_minus(const double* __restrict__ x, double* __restrict__ y,
                                          int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        y[i] = 0.5 * v * v - v;
    }
}
