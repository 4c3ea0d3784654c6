// expect: SAFE
// strict: RACE
// why: every thread stores flag[0] = 1 with no barrier between the stores: a
//   write-write data race, even though all writers store the same value (a "benign"
//   race is still a race in the CUDA/PTX memory model, so --strict-races says RACE).
//   The 64 threads are two warps running one store instruction with one value, which
//   no output can tell apart: lift race lists it as a benign race and says SAFE. The
//   stores go through a volatile pointer: with a plain one NVRTC forwards the
//   constant to the loads and deletes the shared store, and the PTX has no race left.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void same_value_writes(const float* x, float* out) {
    __shared__ float flag[1];
    unsigned t = threadIdx.x;
    volatile float* f = flag;
    f[0] = 1.0f;
    __syncthreads();
    out[t] = x[t] * f[0];
}
