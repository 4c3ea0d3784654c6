// expect: DEADLOCK
// why: the barrier sits under `if (x[t] > 0)`, a condition each thread evaluates on its
//   own element: for an input with both signs (e.g. x[0] = 1, x[1] = -1) thread 0
//   waits at the barrier and thread 1 never reaches it (barrier divergence).
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void barrier_data_divergent(const float* x, float* out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    if (x[t] > 0.0f) {
        __syncthreads();
        out[t] = s[63 - t];
    } else {
        out[t] = x[t];
    }
}
