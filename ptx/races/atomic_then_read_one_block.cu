// expect: SAFE
// why: one block: every thread atomicAdds into out[0], __syncthreads(), then thread 0
//   reads out[0] and stores it to total[0]. The barrier orders all of the block's
//   atomics before the plain read, and there is no other block.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [1], role = "inout" }
// arg: { tensor = "total", shape = [1], role = "out" }
extern "C" __global__ void atomic_then_read_one_block(const float* x, float* out, float* total) {
    unsigned t = threadIdx.x;
    atomicAdd(&out[0], x[t]);
    __syncthreads();
    if (t == 0) total[blockIdx.x] = out[0];
}
