// naive_smem.cu with the accurate expf() instead of __expf(): what a kernel
// compiled without --use_fast_math gets.  The PTX is CUDA's expf expansion:
// t = x * log2(e) split into a rounded integer part j (fma.rm with a 1.5*2^23
// shifter, cvt.sat clamp) and a remainder r (two fma.rn with the hi/lo parts
// of log2 e), exp(x) = ex2.approx.ftz(r) * 2^j with 2^j built from bits
// (shl.b32 by 23, mov.b32).  Over the reals this is exp(x).
#define BLOCK 128

extern "C" __global__ void softmax_naive_smem_expf(const float* __restrict__ x,
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

    float e = expf(v - m);
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
