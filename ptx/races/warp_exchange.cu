// expect: RACE
// why: one warp exchanges values through shared memory without __syncwarp(): lane t + 1
//   stores s[t + 1] and lane t loads it, unordered (since Volta a warp's lanes are not
//   implicitly synchronous).
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32] }
// arg: { tensor = "out", shape = [32], role = "out" }
extern "C" __global__ void warp_exchange(const float* x, float* out) {
    __shared__ float s[32];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    out[t] = s[(t + 1) % 32];
}
