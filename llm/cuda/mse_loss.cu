// MSE loss (mean): one block, grid-stride accumulation, shared tree.
extern "C" __global__ void mse_loss(const float* pred, const float* target, float* out, int n) {
    __shared__ float s[256];
    int tid = threadIdx.x;
    float acc = 0.0f;
    for (int i = tid; i < n; i += blockDim.x) {
        float d = pred[i] - target[i];
        acc += d * d;
    }
    s[tid] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[0] = s[0] / n;
}
