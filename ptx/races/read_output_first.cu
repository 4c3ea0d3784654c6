// expect: UNINITIALISED READ
// why: the kernel accumulates into out[i] (out[i] += x[i]) but out is an output the
//   launch does not initialise: the first read of out[i] reads memory nobody wrote.
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32] }
// arg: { tensor = "out", shape = [32], role = "out" }
extern "C" __global__ void read_output_first(const float* x, float* out) {
    unsigned i = threadIdx.x;
    out[i] += x[i];
}
