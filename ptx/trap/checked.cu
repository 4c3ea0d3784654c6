// relu that checks its launch first: a CTA whose size is not a multiple of the warp
// size traps (never on this family's launch, block = 32).
extern "C" __global__ void trap_checked(const float* __restrict__ x, float* __restrict__ y, int n) {
    if (blockDim.x % warpSize != 0) __trap();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}
