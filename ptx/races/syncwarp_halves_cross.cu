// expect: RACE
// why: the half-warp masks of syncwarp_halves_pair, but lane t reads s[t ^ 16], written
//   by a lane of the other half: lane 16's store of s[16] and lane 0's load of it are
//   not ordered by either half's warp barrier.
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32] }
// arg: { tensor = "out", shape = [32], role = "out" }
extern "C" __global__ void syncwarp_halves_cross(const float* x, float* out) {
    __shared__ float s[32];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    __syncwarp(t < 16 ? 0x0000ffffu : 0xffff0000u);
    out[t] = s[t ^ 16];
}
