// Matrix-vector product, one warp per row, shuffle reduction.
extern "C" __global__ void matvec_warp(const float* A, const float* x, float* y, int M, int K) {
    int row = blockIdx.x;
    int lane = threadIdx.x;
    float s = 0.0f;
    for (int k = lane; k < K; k += 32) s += A[row * K + k] * x[k];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
    if (lane == 0) y[row] = s;
}
