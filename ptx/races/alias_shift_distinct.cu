// expect: SAFE
// why: the same code as alias_shift, launched on two distinct tensors: x is only read,
//   and thread i alone writes y[i].
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [65] }
// arg: { tensor = "y", shape = [64], role = "out" }
extern "C" __global__ void alias_shift_distinct(const float* in, float* out) {
    unsigned i = threadIdx.x;
    out[i] = in[i + 1];
}
