// expect: RACE
// why: the tile transpose without its barrier: thread (tx, ty) reads tile[tx][ty] while
//   thread (ty, tx) (a different thread off the diagonal, often in another warp) writes
//   it, unordered.
// launch: block = [8, 8]
// launch: grid = [1]
// arg: { tensor = "x", shape = [8, 8] }
// arg: { tensor = "out", shape = [8, 8], role = "out" }
extern "C" __global__ void transpose_tile_no_sync(const float* x, float* out) {
    __shared__ float tile[8][9];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    tile[ty][tx] = x[ty * 8 + tx];
    out[ty * 8 + tx] = tile[tx][ty];
}
