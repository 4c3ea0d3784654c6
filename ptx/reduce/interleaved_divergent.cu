// Block sum reduction, interleaved addressing with a divergent branch
// (Harris, "Optimizing Parallel Reduction in CUDA", reduction #1).
// One CTA of 128 threads sums 128 consecutive floats into out[blockIdx.x].
// The reference of the reduce family.
#define BLOCK 128

extern "C" __global__ void reduce_interleaved_divergent(const float* __restrict__ x,
                                                        float* __restrict__ out,
                                                        unsigned int n) {
    __shared__ float s[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = (i < n) ? x[i] : 0.0f;
    __syncthreads();

    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0) {
            s[tid] += s[tid + stride];
        }
        __syncthreads();
    }

    if (tid == 0) {
        out[blockIdx.x] = s[0];
    }
}
