// expect: RACE
// why: __syncwarp() orders only the lanes of one warp: thread 32 (warp 1) stores s[32]
//   and thread 31 (warp 0) loads s[32] after its own __syncwarp(), unordered.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void syncwarp_across_warps(const float* x, float* out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    __syncwarp();
    out[t] = s[(t + 1) % 64];
}
