// A double-precision elementwise polynomial: y = 0.5 x^2 + x over float64 tensors
// (ld.global.f64 / st.global.f64, 8-byte elements).
extern "C" __global__ void f64_poly_plain(const double* __restrict__ x, double* __restrict__ y,
                                          int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        y[i] = 0.5 * v * v + v;
    }
}
