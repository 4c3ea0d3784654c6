// Online softmax (Milakov & Gimelshein; the FlashAttention formulation): a CTA
// of 32 threads per row of n = 128 floats.  Each thread makes one pass over its
// columns tid, tid + 32, ... keeping a running max m and a running sum
// d = sum exp(x_j - m), rescaled whenever the max grows.  The per-thread
// (m, d) pairs are then combined by a tree in shared memory with
// (m1, d1) + (m2, d2) = (M, d1 exp(m1 - M) + d2 exp(m2 - M)), M = max(m1, m2),
// and a second pass writes exp(x_j - m) / d.  Needs n >= blockDim.x.
#define THREADS 32

extern "C" __global__ void softmax_online(const float* __restrict__ x,
                                          float* __restrict__ y,
                                          int n) {
    __shared__ float sm[THREADS];
    __shared__ float sd[THREADS];
    unsigned int tid = threadIdx.x;
    const float* xr = x + blockIdx.x * n;
    float* yr = y + blockIdx.x * n;

    float m = xr[tid];
    float d = 1.0f;
    for (unsigned int j = tid + blockDim.x; j < n; j += blockDim.x) {
        float v = xr[j];
        float m_new = fmaxf(m, v);
        d = d * __expf(m - m_new) + __expf(v - m_new);
        m = m_new;
    }

    sm[tid] = m;
    sd[tid] = d;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            float m2 = sm[tid + stride];
            float d2 = sd[tid + stride];
            float m_new = fmaxf(m, m2);
            d = d * __expf(m - m_new) + d2 * __expf(m2 - m_new);
            m = m_new;
            sm[tid] = m;
            sd[tid] = d;
        }
        __syncthreads();
    }
    m = sm[0];
    d = sd[0];

    for (unsigned int j = tid; j < n; j += blockDim.x) {
        yr[j] = __expf(xr[j] - m) / d;
    }
}
