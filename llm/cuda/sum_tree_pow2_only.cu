// Sum over dim 1 with the power-of-two halving tree, launched with blockDim = 48:
// the partials left at odd widths are dropped.
extern "C" __global__ void sum_tree_pow2_only(const float* x, float* out, int rows, int cols) {
    __shared__ float s[256];
    int row = blockIdx.x, tid = threadIdx.x;
    float acc = 0.0f;
    for (int j = tid; j < cols; j += blockDim.x) acc += x[row * cols + j];
    s[tid] = acc;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[row] = s[0];
}
