// expect: SAFE
// why: thread t of block b writes out[b * 32 + t] only: one writer per element.
// launch: block = [32]
// launch: grid = [2]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void blocks_disjoint(const float* x, float* out) {
    unsigned i = blockIdx.x * 32 + threadIdx.x;
    out[i] = x[i] * x[i];
}
