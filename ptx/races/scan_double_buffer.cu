// expect: SAFE
// why: a double-buffered scan: each step reads buffer `cur` and writes buffer `1 - cur`
//   (disjoint arrays), then __syncthreads(). The next step writes the buffer this one
//   read, after that barrier, and reads the one this one wrote, after it too.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void scan_double_buffer(const float* x, float* out) {
    __shared__ float buf[2][64];
    unsigned t = threadIdx.x;
    int cur = 0;
    buf[0][t] = x[t];
    __syncthreads();
    for (unsigned off = 1; off < 64; off <<= 1) {
        float v = buf[cur][t];
        if (t >= off) v += buf[cur][t - off];
        buf[1 - cur][t] = v;
        __syncthreads();
        cur = 1 - cur;
    }
    out[t] = buf[cur][t];
}
