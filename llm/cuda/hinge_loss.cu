// Hinge loss mean(clamp(1 - pred * target, min=0)): one block, shared tree.
extern "C" __global__ void hinge_loss(const float* pred, const float* target, float* out, int n) {
    __shared__ float s[128];
    int tid = threadIdx.x;
    float acc = 0.0f;
    for (int i = tid; i < n; i += blockDim.x) acc += fmaxf(0.0f, 1.0f - pred[i] * target[i]);
    s[tid] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[0] = s[0] / n;
}
