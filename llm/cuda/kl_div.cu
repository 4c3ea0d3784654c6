// KL divergence, reduction='batchmean', input given as probabilities p and target q:
// sum q * (log q - log p) / batch, one block.
extern "C" __global__ void kl_div(const float* p, const float* q, float* out, int batch, int n) {
    __shared__ float s[128];
    int tid = threadIdx.x;
    float acc = 0.0f;
    for (int i = tid; i < n; i += blockDim.x) acc += q[i] * (logf(q[i]) - logf(p[i]));
    s[tid] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[0] = s[0] / batch;
}
