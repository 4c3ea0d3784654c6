// The wrong twin of cond_max/sign_split: thread 1 stores v, not -v, so the result is
// x[b, 0] itself, not its absolute value.
extern "C" __global__ void cond_max_sign_split_no_neg(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float s[1];
    unsigned int tid = threadIdx.x;
    float v = x[blockIdx.x * 128];
    if (tid == 0) s[0] = 0.0f;
    __syncthreads();
    if (v > 0.0f) {
        if (tid == 0) s[0] = v;
    } else {
        if (tid == 1) s[0] = v;
    }
    __syncthreads();
    if (tid == 0) out[blockIdx.x] = s[0];
}
