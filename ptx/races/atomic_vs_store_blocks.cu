// expect: RACE
// why: block 0's threads atomicAdd into out[0] while thread 0 of block 1 stores
//   out[0] = 0 with a plain store: an atomic and a plain access from different blocks,
//   unordered.
// launch: block = [64]
// launch: grid = [2]
// arg: { tensor = "x", shape = [128] }
// arg: { tensor = "out", shape = [1], role = "inout" }
extern "C" __global__ void atomic_vs_store_blocks(const float* x, float* out) {
    unsigned i = blockIdx.x * 64 + threadIdx.x;
    if (blockIdx.x == 0) atomicAdd(&out[0], x[i]);
    else if (threadIdx.x == 0) out[0] = 0.0f;
}
