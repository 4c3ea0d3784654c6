// One byte per thread: y[i] = x[i] > 0 into a bool tensor. Threads 4k..4k+3 write the
// four bytes of one 32-bit word; distinct bytes, so no race.
extern "C" __global__ void byte_flags_adjacent(const float* __restrict__ x, bool* __restrict__ y,
                                               int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] > 0.0f;
    }
}
