// race: SAFE
// check: VERIFIED
// spec: y = x.T
// why: Harris's transpose: 32x8 threads copy a 32x32 tile into padded shared memory
//   (33 columns, no bank conflicts), block.sync(), then write it transposed.
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

extern "C" __global__ void transpose(const float* x, float* y, int m, int n) {
    __shared__ float tile[TILE][TILE + 1];
    cg::thread_block b = cg::this_thread_block();
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = x[(row + j) * n + col];
    b.sync();
    col = blockIdx.y * TILE + threadIdx.x;
    row = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        y[(row + j) * m + col] = tile[threadIdx.x][threadIdx.y + j];
}
