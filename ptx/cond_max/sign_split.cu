// |x[b, 0]| computed by two threads under complementary data-dependent conditions:
// thread 0 stores v when v > 0, thread 1 stores -v otherwise. Both store s[0] with no
// barrier between them, yet never for the same input: no race.
extern "C" __global__ void cond_max_sign_split(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float s[1];
    unsigned int tid = threadIdx.x;
    float v = x[blockIdx.x * 128];
    if (tid == 0) s[0] = 0.0f;
    __syncthreads();
    if (v > 0.0f) {
        if (tid == 0) s[0] = v;
    } else {
        if (tid == 1) s[0] = -v;
    }
    __syncthreads();
    if (tid == 0) out[blockIdx.x] = s[0];
}
