// Softmax of one row of 128 floats per CTA, one element per thread
// (128 threads): the row max and the sum of exponentials are tree
// reductions in shared memory.  exp is the fast intrinsic __expf.
// The reference of the softmax family.
#define BLOCK 128

extern "C" __global__ void softmax_naive_smem(const float* __restrict__ x,
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
    __syncthreads();  // every thread has read the max before s is reused

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
