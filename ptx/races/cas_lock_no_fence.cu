// expect: RACE
// why: the spin lock without __threadfence(): atomicCAS and atomicExch are relaxed
//   atomics, which order no other memory access, so the plain load and store of out[0]
//   in two threads' critical sections are not ordered by the PTX memory model.
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32] }
// arg: { tensor = "out", shape = [1], role = "inout" }
extern "C" __global__ void cas_lock_no_fence(const float* x, float* out) {
    __shared__ int lock;
    unsigned t = threadIdx.x;
    if (t == 0) lock = 0;
    __syncthreads();
    float v = x[t];
    while (atomicCAS(&lock, 0, 1) != 0) {}
    out[0] = out[0] + v;
    atomicExch(&lock, 0);
}
