// naive_smem.cu with the barrier between reading the max and reusing the
// shared buffer for the exponentials forgotten.  A data race: thread 0 stores
// s[0] = e (first store of the sum phase) while any other thread t may still
// be reading s[0] as the row max (m = s[0]); the last barrier before both
// accesses is the one closing the max loop.
#define BLOCK 128

extern "C" __global__ void softmax_missing_barrier(const float* __restrict__ x,
                                                   float* __restrict__ y,
                                                   int n) {
    __shared__ float s[BLOCK];
    unsigned int tid = threadIdx.x;
    const float* xr = x + blockIdx.x * n;
    float* yr = y + blockIdx.x * n;

    float v = xr[tid];
    s[tid] = v;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s[tid] = fmaxf(s[tid], s[tid + stride]);
        }
        __syncthreads();
    }
    float m = s[0];

    float e = __expf(v - m);
    s[tid] = e;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }
    float sum = s[0];

    yr[tid] = e / sum;
}
