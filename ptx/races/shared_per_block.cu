// expect: UNINITIALISED READ
// why: shared memory belongs to one block: block 0's thread 0 writes s[0], but block 1
//   reads its own s[0], which no thread of block 1 wrote (the barrier changes nothing
//   across blocks).
// launch: block = [32]
// launch: grid = [2]
// arg: { tensor = "x", shape = [1] }
// arg: { tensor = "out", shape = [32], role = "out" }
extern "C" __global__ void shared_per_block(const float* x, float* out) {
    __shared__ float s[1];
    unsigned t = threadIdx.x;
    if (blockIdx.x == 0 && t == 0) s[0] = x[0];
    __syncthreads();
    if (blockIdx.x == 1) out[t] = s[0];
}
