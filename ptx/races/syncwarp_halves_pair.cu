// expect: SAFE
// why: each half-warp synchronises on its own mask (0x0000ffff for lanes 0..15,
//   0xffff0000 for lanes 16..31), and lane t then reads s[t ^ 1], written by a lane of
//   its own half: the store and the load are ordered by that half's warp barrier.
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32] }
// arg: { tensor = "out", shape = [32], role = "out" }
extern "C" __global__ void syncwarp_halves_pair(const float* x, float* out) {
    __shared__ float s[32];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    __syncwarp(t < 16 ? 0x0000ffffu : 0xffff0000u);
    out[t] = s[t ^ 1];
}
