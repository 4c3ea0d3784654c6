// expect: SAFE
// why: a butterfly all-reduce with __shfl_xor_sync over the full mask: registers only,
//   every lane takes part in every step, each lane writes its own out[t].
// launch: block = [32]
// launch: grid = ["B"]
// launch: sizes = { B = 2 }
// arg: { tensor = "x", shape = ["B", 32] }
// arg: { tensor = "out", shape = ["B", 32], role = "out" }
extern "C" __global__ void shfl_xor_allreduce(const float* x, float* out) {
    unsigned i = blockIdx.x * 32 + threadIdx.x;
    float v = x[i];
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
    out[i] = v;
}
