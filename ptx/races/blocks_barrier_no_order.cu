// expect: RACE
// why: block 0 writes buf[0], both blocks __syncthreads(), block 1 reads buf[0]; a
//   __syncthreads() synchronises the threads of one block only, so block 0's write and
//   block 1's read are unordered.
// launch: block = [32]
// launch: grid = [2]
// arg: { tensor = "x", shape = [2] }
// arg: { tensor = "buf", shape = [1], role = "out" }
// arg: { tensor = "out", shape = [2], role = "out" }
extern "C" __global__ void blocks_barrier_no_order(const float* x, float* buf, float* out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) buf[0] = x[0];
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = blockIdx.x == 1 ? buf[0] : x[1];
}
