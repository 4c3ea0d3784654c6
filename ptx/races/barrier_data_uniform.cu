// expect: SAFE
// why: the barrier sits under `if (x[0] > 0)`: the condition depends on the data but
//   every thread reads the same x[0], so it is uniform across the block, for every
//   input; either all threads reach the barrier or none does, and in the branch each
//   thread reads s[63 - t] only after the barrier.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void barrier_data_uniform(const float* x, float* out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    if (x[0] > 0.0f) {
        s[t] = x[t];
        __syncthreads();
        out[t] = s[63 - t];
    } else {
        out[t] = x[t];
    }
}
