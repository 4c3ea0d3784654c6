// race: SAFE
// check: REFUTED
// spec: y = -0.25 * x[:-2] + 0.5 * x[1:-1] - 0.25 * x[2:]
// why: wrong twin of stencil_weights: the last weight is +0.25f, not -0.25f
//   (a wrong constant in the module-scope initialiser).
// launch: block = [64]
// launch: grid = ["N // 64"]
// launch: sizes = { N = 128 }
// arg: { tensor = "x", shape = ["N + 2"] }
// arg: { tensor = "y", shape = ["N"], role = "out" }
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__constant__ float weights[3] = {-0.25f, 0.5f, 0.25f};
__constant__ int offsets[3] = {-1, 0, 1};

extern "C" __global__ void stencil_weights_wrong_sign(const float* x, float* y) {
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
