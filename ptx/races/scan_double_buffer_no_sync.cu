// expect: RACE
// why: the double-buffered scan without the barrier in the loop. Thread 1 reads
//   buf[0][0] in the step of offset 1, and thread 0 writes buf[0][0] in the step of
//   offset 2; nothing orders the two threads' steps.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void scan_double_buffer_no_sync(const float* x, float* out) {
    __shared__ float buf[2][64];
    unsigned t = threadIdx.x;
    int cur = 0;
    buf[0][t] = x[t];
    __syncthreads();
    for (unsigned off = 1; off < 64; off <<= 1) {
        float v = buf[cur][t];
        if (t >= off) v += buf[cur][t - off];
        buf[1 - cur][t] = v;
        cur = 1 - cur;
    }
    out[t] = buf[cur][t];
}
