// Block sum reduction with the last warp unrolled (Harris reduction #5),
// written for independent thread scheduling (Volta and later): within warp 0
// every step reads its partner, __syncwarp(), writes its own slot,
// __syncwarp(), so no read of a slot is unordered with the write of it.
#define BLOCK 128

__device__ __forceinline__ void warp_reduce(float* s, unsigned int tid) {
    float v = s[tid];
    v += s[tid + 32]; __syncwarp(); s[tid] = v; __syncwarp();
    v += s[tid + 16]; __syncwarp(); s[tid] = v; __syncwarp();
    v += s[tid + 8];  __syncwarp(); s[tid] = v; __syncwarp();
    v += s[tid + 4];  __syncwarp(); s[tid] = v; __syncwarp();
    v += s[tid + 2];  __syncwarp(); s[tid] = v; __syncwarp();
    v += s[tid + 1];  __syncwarp(); s[tid] = v;
}

extern "C" __global__ void reduce_warp_unrolled_syncwarp(const float* __restrict__ x,
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
