// race: SAFE
// check: none
// spec: none
// why: a 16-bin histogram: bins cleared in shared memory, block.sync(), atomicAdd
//   on shared bins, block.sync(), atomicAdd of each bin into the global one. All
//   updates are atomics or separated by barriers.
// launch: block = [64]
// launch: grid = [1]
// launch: sizes = { N = 64 }
// arg: { tensor = "keys", shape = ["N"], dtype = "i32" }
// arg: { tensor = "hist", shape = [16], dtype = "i32", role = "inout" }
// arg: "N"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void histogram_smem(const int* keys, int* hist, int n) {
    __shared__ int bins[16];
    cg::thread_block b = cg::this_thread_block();
    int t = threadIdx.x;
    if (t < 16) bins[t] = 0;
    b.sync();
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) atomicAdd(&bins[keys[i] & 15], 1);
    b.sync();
    if (t < 16) atomicAdd(&hist[t], bins[t]);
}
