// plain, two elements per thread through a double2 (ld.global.v2.f64, 16 bytes).
extern "C" __global__ void f64_poly_vec2(const double* __restrict__ x, double* __restrict__ y,
                                         int n) {
    int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i + 1 < n) {
        double2 v = *reinterpret_cast<const double2*>(x + i);
        double2 r;
        r.x = 0.5 * v.x * v.x + v.x;
        r.y = 0.5 * v.y * v.y + v.y;
        *reinterpret_cast<double2*>(y + i) = r;
    } else if (i < n) {
        double v = x[i];
        y[i] = 0.5 * v * v + v;
    }
}
