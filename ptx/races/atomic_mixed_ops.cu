// expect: SAFE
// why: even threads atomicAdd(&c, 1), odd threads atomicMax(&c, t), on one shared word
//   between two barriers: all accesses to c in that interval are atomics, so there is
//   no data race (the final value depends on the order, but no access is unordered
//   with a plain one).
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "out", shape = [1], role = "out" }
extern "C" __global__ void atomic_mixed_ops(float* out) {
    __shared__ int c;
    unsigned t = threadIdx.x;
    if (t == 0) c = 0;
    __syncthreads();
    if (t & 1) atomicMax(&c, (int)t); else atomicAdd(&c, 1);
    __syncthreads();
    if (t == 0) out[0] = (float)c;
}
