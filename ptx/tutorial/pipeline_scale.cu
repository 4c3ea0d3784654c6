// race: SAFE
// check: VERIFIED
// spec: y = 2 * x
// why: each thread stages its element through shared memory with
//   __pipeline_memcpy_async, commits, waits (__pipeline_wait_prior(0)), reads the
//   neighbour's staged element after block.sync() and writes it doubled, reversed
//   back in place (y[i] from s[i]).
// launch: block = [64]
// launch: grid = ["N // 64"]
// launch: sizes = { N = 128 }
// arg: { tensor = "x", shape = ["N"] }
// arg: { tensor = "y", shape = ["N"], role = "out" }
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void pipeline_scale(const float* x, float* y) {
    __shared__ float s[64];
    cg::thread_block b = cg::this_thread_block();
    int t = threadIdx.x;
    int base = blockIdx.x * 64;
    __pipeline_memcpy_async(&s[t], &x[base + t], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    b.sync();
    int u = 63 - t;
    y[base + u] = 2.0f * s[u];
}
