// KL divergence, reduction='batchmean', given log-probabilities lp (as F.kl_div takes
// them) and the target q; the q = 0 terms are skipped as PyTorch's xlogy does.
extern "C" __global__ void kl_div_guarded(const float* lp, const float* q, float* out, int batch, int n) {
    __shared__ float s[128];
    int tid = threadIdx.x;
    float acc = 0.0f;
    for (int i = tid; i < n; i += blockDim.x) {
        float t = q[i];
        acc += t > 0.0f ? t * (logf(t) - lp[i]) : 0.0f;
    }
    s[tid] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[0] = s[0] / batch;
}
