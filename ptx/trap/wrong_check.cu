// The twin of trap/checked whose launch check is wrong: it demands 64 threads per CTA,
// so on the family's launch (block = 32) every thread reaches the trap.
extern "C" __global__ void trap_wrong_check(const float* __restrict__ x, float* __restrict__ y, int n) {
    if (blockDim.x != 2 * warpSize) __trap();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
