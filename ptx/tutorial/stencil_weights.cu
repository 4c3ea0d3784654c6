// race: SAFE
// check: VERIFIED
// spec: y = -0.25 * x[:-2] + 0.5 * x[1:-1] - 0.25 * x[2:]
// why: the 1-D stencil with its weights in __constant__ memory, a module-scope
//   list initialiser with negative entries {-0.25f, 0.5f, -0.25f} (a discrete
//   second difference), and its offsets {-1, 0, 1} likewise (NVRTC emits both as
//   .const byte lists, the offsets' trailing zero bytes left out); the tile and
//   halo through shared memory, block.sync().
// launch: block = [64]
// launch: grid = ["N // 64"]
// launch: sizes = { N = 128 }
// arg: { tensor = "x", shape = ["N + 2"] }
// arg: { tensor = "y", shape = ["N"], role = "out" }
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__constant__ float weights[3] = {-0.25f, 0.5f, -0.25f};
__constant__ int offsets[3] = {-1, 0, 1};

extern "C" __global__ void stencil_weights(const float* x, float* y) {
    __shared__ float s[64 + 2];
    cg::thread_block b = cg::this_thread_block();
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    s[t] = x[g];
    if (t < 2) s[64 + t] = x[g + 64];
    b.sync();
    float acc = 0.0f;
    for (int k = 0; k < 3; ++k) acc += weights[k] * s[t + 1 + offsets[k]];
    y[g] = acc;
}
