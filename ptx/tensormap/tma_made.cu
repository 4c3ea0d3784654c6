// expect: SAFE
// why: the kernel builds its own TMA tensor map, as Triton's tl.make_tensor_descriptor
//   does: warp 0 zeroes a 128-byte shared template, thread 0 writes its fields with
//   tensormap.replace (x's address, rank 2, box 32 x 16 floats, global dims n x n, row
//   stride 4n bytes, f32, no swizzle), warp 0 copies it to the global map with
//   tensormap.cp_fenceproxy and acquires it with fence.proxy.tensormap, and after
//   __syncthreads thread 0 loads rows 16b..16b+15 of x with cp.async.bulk.tensor.2d,
//   completing its 2048 bytes on an mbarrier that every thread waits on before reading
//   the tile: every read follows the copy, and y = 2 x.
// launch: block = [128]
// launch: grid = ["cdiv(N, 16)"]
// launch: sizes = { N = 32 }
// arg: { tensor = "x", shape = ["N", "N"], role = "in" }
// arg: { tensor = "y", shape = ["N", "N"], role = "out" }
// arg: "N"
typedef unsigned long long uint64_t;

// The global tensor map (CUtensorMap: 128 bytes, 64-byte aligned).
__device__ __align__(128) unsigned char gmap[128];

__device__ unsigned smem(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

extern "C" __global__ void tma_made(const float* x, float* y, int n) {
    __shared__ __align__(128) float tile[16][32];
    __shared__ __align__(128) unsigned smap[32];
    __shared__ __align__(8) uint64_t bar;
    const unsigned map = smem(smap);
    if (threadIdx.x < 32) smap[threadIdx.x] = 0;
    __syncwarp();
    if (threadIdx.x == 0) {
        asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" ::"r"(map), "l"(x));
        asm volatile("tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], 1;" ::"r"(map));
        asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(map), "r"(32));
        asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(map), "r"(16));
        asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(map), "r"(n));
        asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(map), "r"(n));
        asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0, %1;" ::"r"(map), "l"((uint64_t)n * 4));
        asm volatile("tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(map), "r"(1));
        asm volatile("tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(map), "r"(1));
        asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 7;" ::"r"(map));
        asm volatile("tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%0], 0;" ::"r"(map));
    }
    __syncwarp();
    if (threadIdx.x < 32) {
        asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;" ::"l"(gmap), "r"(map) : "memory");
        asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(gmap) : "memory");
    }
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)));
        asm volatile("fence.mbarrier_init.release.cluster;");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&bar)), "r"(16 * 32 * 4));
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
            " [%0], [%1, {%2, %3}], [%4];"
            ::"r"(smem(tile)), "l"(gmap), "r"(0), "r"(16 * (int)blockIdx.x), "r"(smem(&bar)) : "memory");
    }
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "wait:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
        "@!p bra wait;\n"
        "}\n" ::"r"(smem(&bar)) : "memory");
    for (int k = 0; k < 4; ++k) {
        const int e = threadIdx.x + 128 * k;
        const int r = e / 32, c = e % 32;
        y[(16 * blockIdx.x + r) * n + c] = 2.0f * tile[r][c];
    }
}
