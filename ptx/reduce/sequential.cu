// Block sum reduction, sequential addressing (Harris reduction #3): the stride
// halves from blockDim.x / 2 and the first `stride` threads stay active.
#define BLOCK 128

extern "C" __global__ void reduce_sequential(const float* __restrict__ x,
                                             float* __restrict__ out,
                                             unsigned int n) {
    __shared__ float s[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = (i < n) ? x[i] : 0.0f;
    __syncthreads();

    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }

    if (tid == 0) {
        out[blockIdx.x] = s[0];
    }
}
