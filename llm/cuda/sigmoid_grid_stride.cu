// Sigmoid, grid-stride loop, fast intrinsics.
extern "C" __global__ void sigmoid_grid_stride(const float* x, float* y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = __fdividef(1.0f, 1.0f + __expf(-x[i]));
    }
}
