// expect: SAFE
// why: a spin lock built from atomicCAS/atomicExch guards the read-modify-write of
//   out[0]; __threadfence() after taking and before releasing the lock orders the
//   critical sections of the threads (PTX memory model: fence + atomic), so the plain
//   accesses of any two threads to out[0] are ordered.
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32] }
// arg: { tensor = "out", shape = [1], role = "inout" }
extern "C" __global__ void cas_lock(const float* x, float* out) {
    __shared__ int lock;
    unsigned t = threadIdx.x;
    if (t == 0) lock = 0;
    __syncthreads();
    float v = x[t];
    while (atomicCAS(&lock, 0, 1) != 0) {}
    __threadfence();
    out[0] = out[0] + v;
    __threadfence();
    atomicExch(&lock, 0);
}
