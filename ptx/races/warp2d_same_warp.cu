// expect: SAFE
// why: a 16 x 4 block: warps are formed from the linear thread index tx + 16 * ty, so
//   rows ty = 0, 1 are warp 0 and rows 2, 3 warp 1. Thread (tx, ty) reads s[ty ^ 1][tx],
//   written by (tx, ty ^ 1) of the same warp, after __syncwarp() (all 32 lanes).
// launch: block = [16, 4]
// launch: grid = [1]
// arg: { tensor = "x", shape = [4, 16] }
// arg: { tensor = "out", shape = [4, 16], role = "out" }
extern "C" __global__ void warp2d_same_warp(const float* x, float* out) {
    __shared__ float s[4][16];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    s[ty][tx] = x[ty * 16 + tx];
    __syncwarp();
    out[ty * 16 + tx] = s[ty ^ 1][tx];
}
