// widen with a subtraction: y[i] = a[i] - b[i].
extern "C" __global__ void int_add_difference(const short* __restrict__ a,
                                              const short* __restrict__ b,
                                              int* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = (int)a[i] - (int)b[i];
    }
}
