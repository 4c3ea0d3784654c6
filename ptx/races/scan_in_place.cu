// expect: RACE
// why: a Hillis-Steele scan done in place with one barrier per step. In the step of
//   offset 1, thread 2 reads s[1] (s[2] += s[1]) while thread 1 writes s[1] (s[1] +=
//   s[0]) in the same barrier interval: the read and the write are unordered.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void scan_in_place(const float* x, float* out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    __syncthreads();
    for (unsigned off = 1; off < 64; off <<= 1) {
        if (t >= off) s[t] += s[t - off];
        __syncthreads();
    }
    out[t] = s[t];
}
