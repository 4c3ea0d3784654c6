// Sum over dim 1 with a blockDim that need not be a power of two: the tree halves a
// rounded-up width and guards the partner index.
extern "C" __global__ void sum_tree_any_block(const float* x, float* out, int rows, int cols) {
    __shared__ float s[256];
    int row = blockIdx.x, tid = threadIdx.x;
    float acc = 0.0f;
    for (int j = tid; j < cols; j += blockDim.x) acc += x[row * cols + j];
    s[tid] = acc;
    __syncthreads();
    int width = blockDim.x;
    while (width > 1) {
        int half = (width + 1) / 2;
        if (tid < half && tid + half < width) s[tid] += s[tid + half];
        __syncthreads();
        width = half;
    }
    if (tid == 0) out[row] = s[0];
}
