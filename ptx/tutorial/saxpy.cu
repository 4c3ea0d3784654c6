// race: SAFE
// check: VERIFIED
// spec: y = 2 * x + z
// why: "An Even Easier Introduction to CUDA": a grid-stride loop, every element
//   written once by one thread; y = a*x + z with a = 2.
// launch: block = [64]
// launch: grid = [2]
// launch: sizes = { N = 300 }
// arg: { value = 2.0 }
// arg: { tensor = "x", shape = ["N"] }
// arg: { tensor = "z", shape = ["N"] }
// arg: { tensor = "y", shape = ["N"], role = "out" }
// arg: "N"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void saxpy(float a, const float* x, const float* z, float* y, int n) {
    cg::thread_block b = cg::this_thread_block();
    int stride = b.group_dim().x * gridDim.x;
    for (int i = b.group_index().x * b.group_dim().x + b.thread_rank(); i < n; i += stride)
        y[i] = a * x[i] + z[i];
}
