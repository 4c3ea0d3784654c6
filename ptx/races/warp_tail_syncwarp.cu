// expect: SAFE
// why: the warp tail done right: every lane of warp 0 (t < 32 is exactly warp 0) reads
//   its partner slot s[t + off], then __syncwarp(), then writes s[t], then __syncwarp().
//   A partner's write of s[t + off] in step off comes after the first __syncwarp() of
//   that step, the reads of the next step after the second, so every read/write pair of
//   two lanes is ordered by a warp barrier all 32 lanes execute.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [1], role = "out" }
extern "C" __global__ void warp_tail_syncwarp(const float* x, float* out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    __syncthreads();
    if (t < 32) {
        float v = s[t] + s[t + 32];
        __syncwarp();
        s[t] = v;
        __syncwarp();
        for (unsigned off = 16; off > 0; off >>= 1) {
            v += s[t + off];
            __syncwarp();
            s[t] = v;
            __syncwarp();
        }
        if (t == 0) out[0] = v;
    }
}
