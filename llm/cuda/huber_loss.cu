// Smooth L1 (Huber, beta = 1) loss, mean: one block, warp shuffles then shared partials.
extern "C" __global__ void huber_loss(const float* pred, const float* target, float* out, int n) {
    __shared__ float warp_sums[32];
    int tid = threadIdx.x;
    float acc = 0.0f;
    for (int i = tid; i < n; i += blockDim.x) {
        float d = pred[i] - target[i];
        float ad = fabsf(d);
        acc += ad < 1.0f ? 0.5f * d * d : ad - 0.5f;
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffff, acc, o);
    if ((tid & 31) == 0) warp_sums[tid >> 5] = acc;
    __syncthreads();
    if (tid < 32) {
        float v = tid < (blockDim.x + 31) / 32 ? warp_sums[tid] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
        if (tid == 0) out[0] = v / n;
    }
}
