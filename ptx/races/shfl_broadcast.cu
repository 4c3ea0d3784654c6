// expect: SAFE
// why: lane 0 loads a value and __shfl_sync(full mask, v, 0) broadcasts it to every
//   lane: a warp collective every lane executes; each lane writes its own out[t].
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32] }
// arg: { tensor = "out", shape = [32], role = "out" }
extern "C" __global__ void shfl_broadcast(const float* x, float* out) {
    unsigned t = threadIdx.x;
    float v = t == 0 ? x[0] : 0.0f;
    v = __shfl_sync(0xffffffffu, v, 0);
    out[t] = x[t] - v;
}
