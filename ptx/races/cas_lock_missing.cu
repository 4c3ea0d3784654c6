// expect: RACE
// why: the critical section with its lock taken out: every thread reads and writes
//   out[0] with plain accesses and nothing orders them.
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32] }
// arg: { tensor = "out", shape = [1], role = "inout" }
extern "C" __global__ void cas_lock_missing(const float* x, float* out) {
    unsigned t = threadIdx.x;
    float v = x[t];
    __threadfence();
    out[0] = out[0] + v;
    __threadfence();
}
