// Softmax of one row per CTA by a single warp (32 threads) with register
// shuffles and no shared memory: each lane reduces its columns lane,
// lane + 32, ... then a butterfly (__shfl_xor_sync with offsets 16, 8, 4, 2, 1)
// gives every lane the row max, and again the row sum of exponentials.
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, offset));
    }
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    }
    return v;
}

extern "C" __global__ void softmax_warp_shuffle(const float* __restrict__ x,
                                                float* __restrict__ y,
                                                int n) {
    unsigned int lane = threadIdx.x;
    const float* xr = x + blockIdx.x * n;
    float* yr = y + blockIdx.x * n;

    float m = xr[lane];
    for (unsigned int j = lane + 32; j < n; j += 32) {
        m = fmaxf(m, xr[j]);
    }
    m = warp_max(m);

    float sum = 0.0f;
    for (unsigned int j = lane; j < n; j += 32) {
        sum += __expf(xr[j] - m);
    }
    sum = warp_sum(sum);

    for (unsigned int j = lane; j < n; j += 32) {
        yr[j] = __expf(xr[j] - m) / sum;
    }
}
