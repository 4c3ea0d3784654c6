// expect: SAFE
// why: thread 0 writes s[0], __syncthreads(), then every thread reads s[0]: the write is
//   ordered before the reads, and reads never race with reads.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void read_after_barrier(const float* x, float* out) {
    __shared__ float s[1];
    unsigned t = threadIdx.x;
    if (t == 0) s[0] = x[0];
    __syncthreads();
    out[t] = x[t] * s[0];
}
