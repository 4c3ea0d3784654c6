// expect: SAFE
// why: an 8x8 tile transpose with a 2-D block: thread (tx, ty) writes tile[ty][tx],
//   __syncthreads(), then reads tile[tx][ty], written by thread (ty, tx) before the
//   barrier.
// launch: block = [8, 8]
// launch: grid = [1]
// arg: { tensor = "x", shape = [8, 8] }
// arg: { tensor = "out", shape = [8, 8], role = "out" }
extern "C" __global__ void transpose_tile(const float* x, float* out) {
    __shared__ float tile[8][9];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    tile[ty][tx] = x[ty * 8 + tx];
    __syncthreads();
    out[ty * 8 + tx] = tile[tx][ty];
}
