// expect: SAFE
// why: `in` and `out` are bound to the same tensor (the launch says so), but thread i
//   reads and writes only element i: no two threads touch one element.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "a", shape = [64], role = "inout" }
// arg: { tensor = "a", shape = [64], role = "inout" }
extern "C" __global__ void alias_same_index(const float* in, float* out) {
    unsigned i = threadIdx.x;
    out[i] = 2.0f * in[i];
}
