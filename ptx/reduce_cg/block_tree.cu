// Row sum with cooperative groups, step 1: a shared-memory tree with sequential
// addressing, synchronised by the thread_block group (block.sync() is
// __syncthreads).  One block of 128 threads per row of N = 128.  The reference.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void reduce_cg_block_tree(const float* __restrict__ x,
                                                float* __restrict__ out, int n) {
    __shared__ float s[128];
    cg::thread_block block = cg::this_thread_block();
    unsigned tid = block.thread_rank();
    s[tid] = x[blockIdx.x * n + tid];
    block.sync();
    for (unsigned stride = block.size() / 2; stride > 0; stride /= 2) {
        if (tid < stride) s[tid] += s[tid + stride];
        block.sync();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
