// Row max by a shared-memory tree whose steps keep the larger value with a
// conditional store, `if (v > s[tid]) s[tid] = v;`, one CTA per row of 128 floats.
extern "C" __global__ void cond_max_tree(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float s[128];
    unsigned int tid = threadIdx.x;
    s[tid] = x[blockIdx.x * 128 + tid];
    __syncthreads();
    for (unsigned int stride = 64; stride > 0; stride >>= 1) {
        if (tid < stride) {
            float v = s[tid + stride];
            if (v > s[tid]) {
                s[tid] = v;
            }
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = s[0];
    }
}
