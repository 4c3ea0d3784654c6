// expect: SAFE
// why: the in-place scan with the read and the write of a step in separate barrier
//   intervals: every thread reads s[t - off] into a register, __syncthreads(), then
//   writes its own s[t], __syncthreads(). A slot is written only by its owner, after
//   every read of it in the step.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void scan_two_barriers(const float* x, float* out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    __syncthreads();
    for (unsigned off = 1; off < 64; off <<= 1) {
        float v = t >= off ? s[t - off] : 0.0f;
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    out[t] = s[t];
}
