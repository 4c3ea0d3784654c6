// expect: RACE
// why: `in` and `out` are one tensor; block 0 thread t reads in[64 + t] while block 1
//   thread t writes out[64 + t]: an inter-block race on a[64 + t] (no barrier orders
//   blocks).
// launch: block = [64]
// launch: grid = [2]
// arg: { tensor = "a", shape = [192], role = "inout" }
// arg: { tensor = "a", shape = [192], role = "inout" }
extern "C" __global__ void alias_across_blocks(const float* in, float* out) {
    unsigned i = blockIdx.x * 64 + threadIdx.x;
    out[i] = in[i + 64];
}
