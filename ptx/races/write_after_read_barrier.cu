// expect: SAFE
// why: thread t reads s[t + 1] (into a register), __syncthreads(), then writes s[t]:
//   the neighbour's read of s[t] happened before the barrier, so the write-after-read
//   is ordered.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void write_after_read_barrier(const float* x, float* out) {
    __shared__ float s[65];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    if (t == 0) s[64] = 0.0f;
    __syncthreads();
    float v = s[t + 1];
    __syncthreads();
    s[t] = v + 1.0f;
    __syncthreads();
    out[t] = s[t];
}
