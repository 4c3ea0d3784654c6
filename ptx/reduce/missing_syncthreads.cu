// Sequential-addressing block sum reduction (see sequential.cu) with the
// __syncthreads() after the shared-memory load forgotten.  A data race:
// thread 0 reads s[64] in the first step (s[0] += s[64]) while thread 64
// (another warp) may not have stored s[64] yet; no barrier orders them.
#define BLOCK 128

extern "C" __global__ void reduce_missing_syncthreads(const float* __restrict__ x,
                                                      float* __restrict__ out,
                                                      unsigned int n) {
    __shared__ float s[BLOCK];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[tid] = (i < n) ? x[i] : 0.0f;

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
