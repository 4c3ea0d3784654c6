// race: RACE
// check: none
// spec: y = x[:-2] + x[1:-1] + x[2:]
// why: wrong twin of stencil_1d: no block.sync() between the shared loads and
//   the reads of the neighbours' elements.
// launch: block = [64]
// launch: grid = ["N // 64"]
// launch: sizes = { N = 128 }
// arg: { tensor = "x", shape = ["N + 2"] }
// arg: { tensor = "y", shape = ["N"], role = "out" }
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define R 1

extern "C" __global__ void stencil_1d_no_halo_sync(const float* x, float* y) {
    __shared__ float s[64 + 2 * R];
    cg::thread_block b = cg::this_thread_block();
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    s[t] = x[g];
    if (t < 2 * R) s[64 + t] = x[g + 64];

    y[g] = s[t] + s[t + 1] + s[t + 2];
}
