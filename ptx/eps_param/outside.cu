// The wrong twin of eps_param/inside: eps added outside the square root.
extern "C" __global__ void eps_param_outside(const float* __restrict__ x, float* __restrict__ y, int n, float eps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v / (sqrtf(v * v) + eps);
    }
}
