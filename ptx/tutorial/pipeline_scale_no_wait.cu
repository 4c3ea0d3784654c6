// race: RACE
// check: none
// spec: y = 2 * x
// why: wrong twin of pipeline_scale: no __pipeline_wait_prior, so another thread
//   reads s[u] while its async copy may still be in flight (the barrier does
//   not wait for cp.async groups).
// launch: block = [64]
// launch: grid = ["N // 64"]
// launch: sizes = { N = 128 }
// arg: { tensor = "x", shape = ["N"] }
// arg: { tensor = "y", shape = ["N"], role = "out" }
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void pipeline_scale_no_wait(const float* x, float* y) {
    __shared__ float s[64];
    cg::thread_block b = cg::this_thread_block();
    int t = threadIdx.x;
    int base = blockIdx.x * 64;
    __pipeline_memcpy_async(&s[t], &x[base + t], sizeof(float));
    __pipeline_commit();

    b.sync();
    int u = 63 - t;
    y[base + u] = 2.0f * s[u];
}
