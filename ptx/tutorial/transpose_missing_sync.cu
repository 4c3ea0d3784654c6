// race: RACE
// check: none
// spec: y = x.T
// why: wrong twin of transpose: no block.sync() between the tile's writes and the
//   reads of other threads' elements.
// launch: block = [32, 8]
// launch: grid = ["N // 32", "M // 32"]
// launch: sizes = { M = 64, N = 32 }
// arg: { tensor = "x", shape = ["M", "N"] }
// arg: { tensor = "y", shape = ["N", "M"], role = "out" }
// arg: "M"
// arg: "N"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose_missing_sync(const float* x, float* y, int m, int n) {
    __shared__ float tile[TILE][TILE + 1];
    cg::thread_block b = cg::this_thread_block();
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = x[(row + j) * n + col];
    
    col = blockIdx.y * TILE + threadIdx.x;
    row = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        y[(row + j) * m + col] = tile[threadIdx.x][threadIdx.y + j];
}
