// expect: SAFE
// why: the barrier is inside `if (blockIdx.x == 1)`, which is uniform within a block:
//   in block 1 every thread reaches it, in block 0 none does. Shared memory is per
//   block; each block writes its own part of out.
// launch: block = [64]
// launch: grid = [2]
// arg: { tensor = "x", shape = [2, 64] }
// arg: { tensor = "out", shape = [2, 64], role = "out" }
extern "C" __global__ void barrier_block_branch(const float* x, float* out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x, i = blockIdx.x * 64 + t;
    if (blockIdx.x == 1) {
        s[t] = x[i];
        __syncthreads();
        out[i] = s[63 - t];
    } else {
        out[i] = x[i];
    }
}
