// expect: RACE
// why: `in` and `out` are bound to the same tensor a; thread i reads in[i + 1] = a[i + 1]
//   and thread i + 1 writes out[i + 1] = a[i + 1], with nothing ordering them.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "a", shape = [65], role = "inout" }
// arg: { tensor = "a", shape = [65], role = "inout" }
extern "C" __global__ void alias_shift(const float* in, float* out) {
    unsigned i = threadIdx.x;
    out[i] = in[i + 1];
}
