// race: SAFE
// check: VERIFIED
// spec: out = out + torch.sum(x * y)
// why: dot product: a grid-stride partial per thread, cg::reduce over each warp,
//   lane 0 of each warp atomicAdds into out[0] (inout: the sum is added to what
//   out[0] held). Atomics never race with each other.
// launch: block = [64]
// launch: grid = [1]
// launch: sizes = { N = 256 }
// arg: { tensor = "x", shape = ["N"] }
// arg: { tensor = "y", shape = ["N"] }
// arg: { tensor = "out", shape = [1], role = "inout" }
// arg: "N"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void dot_atomic(const float* x, const float* y, float* out, int n) {
    cg::thread_block b = cg::this_thread_block();
    auto tile = cg::tiled_partition<32>(b);
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += x[i] * y[i];
    v = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) atomicAdd(out, v);
}
