// race: SAFE
// check: VERIFIED
// spec: y = x + 1
// why: the block copies its 64 elements into shared memory with
//   cg::memcpy_async(block, ...), cg::wait(block), then each thread adds one.
// launch: block = [64]
// launch: grid = ["N // 64"]
// launch: sizes = { N = 128 }
// arg: { tensor = "x", shape = ["N"] }
// arg: { tensor = "y", shape = ["N"], role = "out" }
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_memcpy_async(const float* x, float* y) {
    __shared__ float s[64];
    cg::thread_block b = cg::this_thread_block();
    cg::memcpy_async(b, s, x + blockIdx.x * 64, sizeof(float) * 64);
    cg::wait(b);
    int t = b.thread_rank();
    y[blockIdx.x * 64 + t] = s[t] + 1.0f;
}
