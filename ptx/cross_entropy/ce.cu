// Cross-entropy forward, one CTA of 32 threads per row: the row's max and sum of
// exponentials by shared-memory trees (log-softmax), then thread 0 picks the label's
// logit: loss[r] = lse - x[r, t[r]], and 0 where t[r] == ignore_index (reference).
#define BLOCK 32
#define INFINITY __int_as_float(0x7f800000)  // +inf (NVRTC has no <math.h>)

extern "C" __global__ void cross_entropy_ce(const float* __restrict__ x,
                                        const long long* __restrict__ t,
                                        float* __restrict__ loss, int n,
                                        int ignore_index) {
    __shared__ float s[BLOCK];
    int tid = threadIdx.x;
    const float* row = x + (long long)blockIdx.x * n;
    float m = -INFINITY;
    for (int j = tid; j < n; j += BLOCK) m = fmaxf(m, row[j]);
    s[tid] = m;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] = fmaxf(s[tid], s[tid + stride]);
        __syncthreads();
    }
    m = s[0];
    __syncthreads();
    float acc = 0.0f;
    for (int j = tid; j < n; j += BLOCK) acc += __expf(row[j] - m);
    s[tid] = acc;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) {
        long long label = t[blockIdx.x];
        float lse = m + __logf(s[0]);
        loss[blockIdx.x] = (label == ignore_index) ? 0.0f : lse - row[label];
    }
}
