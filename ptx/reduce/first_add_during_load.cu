// Block sum reduction with the first add during the global load (Harris
// reduction #4): a CTA of 64 threads still sums 128 consecutive floats, each
// thread loading x[i] and x[i + blockDim.x] and storing their sum; then the
// sequential-addressing tree over 64 partial sums.
#define BLOCK 64

extern "C" __global__ void reduce_first_add_during_load(const float* __restrict__ x,
                                                        float* __restrict__ out,
                                                        unsigned int n) {
    __shared__ float s[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float v = (i < n) ? x[i] : 0.0f;
    if (i + blockDim.x < n) {
        v += x[i + blockDim.x];
    }
    s[tid] = v;
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
