// LayerNorm over the last dim with weight and bias: one block per row, shared trees.
extern "C" __global__ void layernorm_smem(const float* x, const float* gamma, const float* beta,
                                          float* y, int rows, int cols) {
    __shared__ float s_sum[256];
    __shared__ float s_sq[256];
    int row = blockIdx.x, tid = threadIdx.x;
    const float eps = 1e-5f;
    float a = 0.0f, b = 0.0f;
    for (int j = tid; j < cols; j += blockDim.x) {
        float v = x[row * cols + j];
        a += v;
        b += v * v;
    }
    s_sum[tid] = a;
    s_sq[tid] = b;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            s_sum[tid] += s_sum[tid + s];
            s_sq[tid] += s_sq[tid + s];
        }
        __syncthreads();
    }
    float mean = s_sum[0] / cols;
    float var = s_sq[0] / cols - mean * mean;
    float inv = rsqrtf(var + eps);
    for (int j = tid; j < cols; j += blockDim.x)
        y[row * cols + j] = (x[row * cols + j] - mean) * inv * gamma[j] + beta[j];
}
