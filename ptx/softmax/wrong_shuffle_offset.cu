// warp_shuffle.cu with an off-by-one in the butterfly loops: `offset > 1`
// stops after offsets 16, 8, 4, 2 and never exchanges with the neighbour at
// offset 1, so each lane ends up with the max and the sum over only the 16
// lanes of its own parity.  Wrong values; every shuffle is still a full-warp
// __shfl_xor_sync, so there is no race.
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
    for (int offset = 16; offset > 1; offset >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, offset));
    }
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int offset = 16; offset > 1; offset >>= 1) {
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    }
    return v;
}

extern "C" __global__ void softmax_wrong_shuffle_offset(const float* __restrict__ x,
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
