// expect: SAFE
// why: a loop with a uniform trip count n (a parameter) rotates s by one slot per
//   iteration: read s[(t + 1) % 64] into a register, barrier, write s[t], barrier. The
//   read of a neighbour's slot and the neighbour's write are in different barrier
//   intervals, and every thread runs the same number of barriers.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
// arg: 3
extern "C" __global__ void barrier_loop_uniform(const float* x, float* out, int n) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    __syncthreads();
    for (int i = 0; i < n; i++) {
        float v = s[(t + 1) % 64];
        __syncthreads();
        s[t] = v;
        __syncthreads();
    }
    out[t] = s[t];
}
