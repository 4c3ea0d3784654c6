// relu that traps on an input below -1 (an assertion on the data): reachable for some
// inputs, so a finding with an input that reaches it.
extern "C" __global__ void trap_data_trap(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        if (v < -1.0f) __trap();
        y[i] = fmaxf(v, 0.0f);
    }
}
