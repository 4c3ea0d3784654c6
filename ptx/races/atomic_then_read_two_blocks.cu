// expect: RACE
// why: the same kernel on two blocks: block 0's thread 0 reads out[0] after its own
//   block's barrier, but block 1's atomicAdds into out[0] are not ordered with that
//   plain read (no barrier spans blocks).
// launch: block = [64]
// launch: grid = [2]
// arg: { tensor = "x", shape = [128] }
// arg: { tensor = "out", shape = [1], role = "inout" }
// arg: { tensor = "total", shape = [2], role = "out" }
extern "C" __global__ void atomic_then_read_two_blocks(const float* x, float* out, float* total) {
    unsigned t = threadIdx.x;
    atomicAdd(&out[0], x[blockIdx.x * 64 + t]);
    __syncthreads();
    if (t == 0) total[blockIdx.x] = out[0];
}
