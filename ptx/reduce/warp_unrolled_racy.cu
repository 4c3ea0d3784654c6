// Block sum reduction with the last warp unrolled the pre-Volta way (Harris
// reduction #5 as published): `volatile` shared memory and no __syncwarp(),
// relying on lock-step warp execution that CUDA no longer guarantees.
// A data race: e.g. lane 16 writes s[16] (s[16] += s[48], and again
// s[16] += s[32]) while lane 0 reads s[16] in s[0] += s[16], with no
// __syncwarp() in between.
#define BLOCK 128

__device__ void warp_reduce(volatile float* s, unsigned int tid) {
    s[tid] += s[tid + 32];
    s[tid] += s[tid + 16];
    s[tid] += s[tid + 8];
    s[tid] += s[tid + 4];
    s[tid] += s[tid + 2];
    s[tid] += s[tid + 1];
}

extern "C" __global__ void reduce_warp_unrolled_racy(const float* __restrict__ x,
                                                     float* __restrict__ out,
                                                     unsigned int n) {
    __shared__ float s[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = (i < n) ? x[i] : 0.0f;
    __syncthreads();

    for (unsigned int stride = blockDim.x / 2; stride > 32; stride >>= 1) {
        if (tid < stride) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }

    if (tid < 32) {
        warp_reduce(s, tid);
    }

    if (tid == 0) {
        out[blockIdx.x] = s[0];
    }
}
