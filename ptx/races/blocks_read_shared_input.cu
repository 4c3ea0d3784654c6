// expect: SAFE
// why: every thread of both blocks reads x[0] (read-read is never a race) and writes
//   its own out[i].
// launch: block = [32]
// launch: grid = [2]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void blocks_read_shared_input(const float* x, float* out) {
    unsigned i = blockIdx.x * 32 + threadIdx.x;
    out[i] = x[i] - x[0];
}
