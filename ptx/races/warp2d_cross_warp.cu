// expect: RACE
// why: the 16 x 4 block of warp2d_same_warp, but thread (tx, ty) reads s[ty ^ 2][tx]:
//   row 0 (warp 0) reads row 2, written by warp 1; __syncwarp() does not order lanes of
//   different warps.
// launch: block = [16, 4]
// launch: grid = [1]
// arg: { tensor = "x", shape = [4, 16] }
// arg: { tensor = "out", shape = [4, 16], role = "out" }
extern "C" __global__ void warp2d_cross_warp(const float* x, float* out) {
    __shared__ float s[4][16];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    s[ty][tx] = x[ty * 16 + tx];
    __syncwarp();
    out[ty * 16 + tx] = s[ty ^ 2][tx];
}
