// expect: SAFE
// why: the ring of ring.cu, warp-specialised as CUTLASS does it: the producer warp
//   gives registers back (setmaxnreg.dec, warp-uniform), one elected lane
//   (elect.sync) loads the tiles; the consumer warps take registers
//   (setmaxnreg.inc), and after the loop each consumer publishes its sum in shared
//   memory and synchronises with the other consumers only (bar.sync 1, 64: the
//   producer warp does not take part) before reading its neighbour's sum.
// launch: block = [96]
// launch: grid = ["B"]
// launch: sizes = { B = 2, K = 5 }
// arg: { tensor = "x", shape = ["B", "K", 64], role = "in" }
// arg: { tensor = "out", shape = ["B", 64], role = "out" }
// arg: "K"
typedef unsigned long long uint64_t;

#define STAGES 2
#define TILE 64
#define CONSUMERS 64

__device__ __forceinline__ unsigned smem(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mbar_init(uint64_t* bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
}

// Spin until the phase of parity `parity` has completed.
__device__ __forceinline__ void mbar_wait(uint64_t* bar, unsigned parity) {
    asm volatile(
        "{\n"
        ".reg .pred P1;\n"
        "LAB_WAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
        "@P1 bra DONE;\n"
        "bra LAB_WAIT;\n"
        "DONE:\n"
        "}\n" ::"r"(smem(bar)), "r"(parity) : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(bar)) : "memory");
}

__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 ::"r"(smem(bar)), "r"(bytes) : "memory");
}

__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, uint64_t* bar) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
        ::"r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(bar)) : "memory");
}

// One lane of the (converged) warp: elect.sync's predicate.
__device__ __forceinline__ bool elect_one() {
    unsigned leader = 0;
    asm volatile(
        "{\n"
        ".reg .b32 rx;\n"
        ".reg .pred px;\n"
        "elect.sync rx|px, %1;\n"
        "selp.u32 %0, 1, 0, px;\n"
        "}\n" : "+r"(leader) : "r"(0xffffffffu));
    return leader != 0;
}

// A barrier for the `count` threads of the consumer warps only.
__device__ __forceinline__ void consumers_sync(unsigned id, unsigned count) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

extern "C" __global__ void ring_ws(const float* x, float* out, int k_tiles) {
    __shared__ alignas(128) float buf[STAGES][TILE];
    __shared__ alignas(8) uint64_t full[STAGES];
    __shared__ alignas(8) uint64_t empty[STAGES];
    const int tid = threadIdx.x;
    if (tid == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], CONSUMERS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    const float* xb = x + (size_t)blockIdx.x * k_tiles * TILE;
    __shared__ float part[CONSUMERS];
    if (tid < 32) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (elect_one()) {
            for (int k = 0; k < k_tiles; ++k) {
                const int s = k % STAGES;
                const unsigned ph = (k / STAGES) & 1;
                mbar_wait(&empty[s], ph ^ 1);
                mbar_arrive_expect_tx(&full[s], TILE * sizeof(float));
                bulk_copy(buf[s], xb + k * TILE, TILE * sizeof(float), &full[s]);
            }
        }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
        const int i = tid - 32;
        float acc = 0.0f;
        for (int k = 0; k < k_tiles; ++k) {
            const int s = k % STAGES;
            const unsigned ph = (k / STAGES) & 1;
            mbar_wait(&full[s], ph);
            acc += buf[s][i];
            mbar_arrive(&empty[s]);
        }
        part[i] = acc;
        consumers_sync(1, CONSUMERS);
        out[blockIdx.x * TILE + i] = acc + part[(i + 1) % CONSUMERS];
    }
}
