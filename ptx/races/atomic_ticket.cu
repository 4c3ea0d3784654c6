// expect: SAFE
// why: each thread takes a distinct ticket k = atomicAdd(&c, 1) (atomicAdd returns
//   distinct old values 0..63 in some order) and writes slot[k]: no two threads write
//   one slot, and the counter is only touched by atomics between the barriers.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void atomic_ticket(const float* x, float* out) {
    __shared__ int c;
    __shared__ float slot[64];
    unsigned t = threadIdx.x;
    if (t == 0) c = 0;
    __syncthreads();
    int k = atomicAdd(&c, 1);
    slot[k] = x[t];
    __syncthreads();
    out[t] = slot[t];
}
