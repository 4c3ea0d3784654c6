// race: SAFE
// check: VERIFIED
// spec: y = torch.softmax(x, dim=-1)
// why: one warp per row of 64: each lane holds two elements, the row max by
//   cg::reduce(tile, v, cg::greater<float>()), the sum of exp by cg::plus.
// launch: block = [32]
// launch: grid = ["B"]
// launch: sizes = { B = 2, N = 64 }
// arg: { tensor = "x", shape = ["B", "N"] }
// arg: { tensor = "y", shape = ["B", "N"], role = "out" }
// arg: "N"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void softmax_warp(const float* x, float* y, int n) {
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    const float* row = x + blockIdx.x * n;
    int l = tile.thread_rank();
    float a = row[l], b = row[l + 32];
    float m = cg::reduce(tile, fmaxf(a, b), cg::greater<float>());
    float ea = expf(a - m), eb = expf(b - m);
    float s = cg::reduce(tile, ea + eb, cg::plus<float>());
    y[blockIdx.x * n + l] = ea / s;
    y[blockIdx.x * n + l + 32] = eb / s;
}
