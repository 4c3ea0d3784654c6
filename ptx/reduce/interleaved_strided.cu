// Block sum reduction, interleaved addressing with a strided index and no
// divergent modulo test (Harris reduction #2).  Bank conflicts, but race-free:
// in the step of a given stride, thread t writes s[2*stride*t] and reads
// s[2*stride*t + stride], and a barrier closes every step.
#define BLOCK 128

extern "C" __global__ void reduce_interleaved_strided(const float* __restrict__ x,
                                                      float* __restrict__ out,
                                                      unsigned int n) {
    __shared__ float s[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = (i < n) ? x[i] : 0.0f;
    __syncthreads();

    for (unsigned int stride = 1; stride < blockDim.x; stride *= 2) {
        unsigned int index = 2 * stride * tid;
        if (index < blockDim.x) {
            s[index] += s[index + stride];
        }
        __syncthreads();
    }

    if (tid == 0) {
        out[blockIdx.x] = s[0];
    }
}
