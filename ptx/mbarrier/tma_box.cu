// expect: UNKNOWN
// why: lift parses the TMA operand `[tmap, {c0, c1}]`, the address of the descriptor's
//   .param and %cluster_ctarank, but models only tensor maps the kernel builds itself
//   (ptx/tensormap), not one the launch passes (issue 43, item 4): it must stop with
//   "unsupported" naming cp.async.bulk.tensor and its line.
// launch: block = [32]
// launch: grid = [2]
// arg: { fields = { 0 = { value = 0 } } }
// arg: { tensor = "y", shape = [32], role = "out" }
typedef unsigned long long uint64_t;

// A CUtensorMap's layout: 128 opaque bytes, 64-byte aligned (passed __grid_constant__).
struct alignas(64) TensorMap {
    uint64_t opaque[16];
};

extern "C" __global__ void tma_box(const __grid_constant__ TensorMap tmap, float* y) {
    __shared__ alignas(128) float tile[16][16];
    __shared__ alignas(8) uint64_t bar;
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    const unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
        asm volatile("fence.proxy.async.shared::cta;");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(1024));
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
            " [%0], [%1, {%2, %3}], [%4];"
            ::"r"((unsigned)__cvta_generic_to_shared(tile)), "l"(&tmap), "r"(16 * blockIdx.x),
            "r"(rank), "r"(b) : "memory");
    }
    y[threadIdx.x] = rank;
}
