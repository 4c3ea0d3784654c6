// expect: RACE
// why: every `extern __shared__` array starts at the same address (the block's dynamic
//   shared memory), so b[k] is a[k]: thread t stores a[t] and loads b[(t + 1) % 64],
//   i.e. a[t + 1], which thread t + 1 stores; no barrier between.
// launch: block = [64]
// launch: grid = [1]
// launch: dynamic_shared = 256
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void dynamic_shared_views(const float* x, float* out) {
    extern __shared__ float a[];
    extern __shared__ float b[];
    unsigned t = threadIdx.x;
    a[t] = x[t];
    out[t] = b[(t + 1) % 64];
}
