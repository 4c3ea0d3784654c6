// race: SAFE
// check: VERIFIED
// spec: y = torch.cumsum(x, dim=-1)
// why: Hillis-Steele inclusive scan of a row of 64 in shared memory, double
//   buffered, block.sync() after every step.
// launch: block = [64]
// launch: grid = ["B"]
// launch: sizes = { B = 2, N = 64 }
// arg: { tensor = "x", shape = ["B", "N"] }
// arg: { tensor = "y", shape = ["B", "N"], role = "out" }
// arg: "N"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void scan_inclusive(const float* x, float* y, int n) {
    __shared__ float buf[2][64];
    cg::thread_block b = cg::this_thread_block();
    int t = b.thread_rank();
    int cur = 0;
    buf[0][t] = x[blockIdx.x * n + t];
    b.sync();
    for (int off = 1; off < n; off *= 2) {
        buf[1 - cur][t] = t >= off ? buf[cur][t] + buf[cur][t - off] : buf[cur][t];
        cur = 1 - cur;
        b.sync();
    }
    y[blockIdx.x * n + t] = buf[cur][t];
}
