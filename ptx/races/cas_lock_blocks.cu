// expect: SAFE
// why: one thread per block takes a global spin lock (a __device__ word, zero at load)
//   with atomicCAS, fences, adds its block's value to out[0], fences and releases with
//   atomicExch: the two blocks' critical sections are ordered by the lock.
// launch: block = [32]
// launch: grid = [2]
// arg: { tensor = "x", shape = [2] }
// arg: { tensor = "out", shape = [1], role = "inout" }
__device__ int lk[1] = {0};
extern "C" __global__ void cas_lock_blocks(const float* x, float* out) {
    if (threadIdx.x == 0) {
        while (atomicCAS(lk, 0, 1) != 0) {}
        __threadfence();
        out[0] = out[0] + x[blockIdx.x];
        __threadfence();
        atomicExch(lk, 0);
    }
}
