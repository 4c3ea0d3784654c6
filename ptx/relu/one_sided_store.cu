// relu's positive half only: y[i] is stored when x > 0 and never otherwise, so for
// x <= 0 the output element is whatever memory held (a bug unless y was zeroed).
extern "C" __global__ void relu_one_sided_store(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        if (v > 0.0f) {
            y[i] = v;
        }
    }
}
