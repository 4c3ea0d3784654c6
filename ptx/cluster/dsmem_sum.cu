// expect: SAFE
// why: a cluster of two CTAs (__cluster_dims__(2, 1, 1)): each CTA writes its row of x
//   into its shared tile, cluster.sync() (barrier.cluster.arrive + wait) makes both
//   tiles visible cluster-wide, each thread reads the same element of its peer's tile
//   through cluster.map_shared_rank (mapa, then a generic load from distributed shared
//   memory) and writes y[b, i] = x[b, i] + x[b ^ 1, i]; the second cluster.sync()
//   keeps every tile alive until the peer has read it.
// launch: block = [128]
// launch: grid = ["B"]
// launch: cluster = [2, 1, 1]
// launch: sizes = { B = 2 }
// arg: { tensor = "x", shape = ["B", 128], role = "in" }
// arg: { tensor = "y", shape = ["B", 128], role = "out" }
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void __cluster_dims__(2, 1, 1) dsmem_sum(const float* x, float* y) {
    __shared__ float tile[128];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned peer = cluster.block_rank() ^ 1;
    const int i = blockIdx.x * 128 + threadIdx.x;
    tile[threadIdx.x] = x[i];
    cluster.sync();
    const float* other = cluster.map_shared_rank(tile, peer);
    y[i] = tile[threadIdx.x] + other[threadIdx.x];
    cluster.sync();
}
