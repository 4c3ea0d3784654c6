// sigmoid with CUDA's fast intrinsics: __fdividef(1, 1 + __expf(-x)).
extern "C" __global__ void sigmoid_fast_intrinsics(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = __fdividef(1.0f, 1.0f + __expf(-x[i]));
    }
}
