// race: RACE
// check: none
// spec: none
// why: wrong twin of histogram_smem: the shared bins are updated with a plain
//   += (no atomic), so two threads with keys in one bin race.
// launch: block = [64]
// launch: grid = [1]
// launch: sizes = { N = 64 }
// arg: { tensor = "keys", shape = ["N"], dtype = "i32" }
// arg: { tensor = "hist", shape = [16], dtype = "i32", role = "inout" }
// arg: "N"
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void histogram_smem_plain_add(const int* keys, int* hist, int n) {
    __shared__ int bins[16];
    cg::thread_block b = cg::this_thread_block();
    int t = threadIdx.x;
    if (t < 16) bins[t] = 0;
    b.sync();
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) bins[keys[i] & 15] += 1;
    b.sync();
    if (t < 16) atomicAdd(&hist[t], bins[t]);
}
