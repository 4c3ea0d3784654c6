// expect: RACE
// why: the classic "last warp unrolled" tail without __syncwarp(). Lane 16 writes s[16]
//   (s[16] += s[32]) and lane 0 later reads s[16] (s[0] += s[16]) with nothing between
//   them but program order in two different lanes: since Volta the lanes of a warp are
//   not implicitly synchronous, and volatile does not order them.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [1], role = "out" }
extern "C" __global__ void warp_tail_volatile(const float* x, float* out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    __syncthreads();
    if (t < 32) {
        volatile float* v = s;
        v[t] += v[t + 32];
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0) out[0] = s[0];
}
