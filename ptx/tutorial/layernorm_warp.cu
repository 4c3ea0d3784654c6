// race: SAFE
// check: VERIFIED
// spec: y = F.layer_norm(x, (N,), eps=1e-5)
// why: one warp per row of 64: the mean and the variance by cg::reduce with
//   cg::plus, then (x - mean) * rsqrtf(var + 1e-5).
// launch: block = [32]
// launch: grid = ["B"]
// launch: sizes = { B = 2, N = 64 }
// arg: { tensor = "x", shape = ["B", "N"] }
// arg: { tensor = "y", shape = ["B", "N"], role = "out" }
// arg: "N"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void layernorm_warp(const float* x, float* y, int n) {
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    const float* row = x + blockIdx.x * n;
    int l = tile.thread_rank();
    float a = row[l], b = row[l + 32];
    float mean = cg::reduce(tile, a + b, cg::plus<float>()) / n;
    float da = a - mean, db = b - mean;
    float var = cg::reduce(tile, da * da + db * db, cg::plus<float>()) / n;
    float r = rsqrtf(var + 1e-5f);
    y[blockIdx.x * n + l] = da * r;
    y[blockIdx.x * n + l + 32] = db * r;
}
