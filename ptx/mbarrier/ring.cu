// expect: SAFE
// why: a producer/consumer ring without bar.sync in the loop: thread 0 (warp 0) waits
//   until stage s is empty (parity ph ^ 1: the first round passes at once), arms the
//   full barrier with the tile's 256 bytes (arrive.expect_tx) and starts the bulk copy,
//   which completes those bytes on it; the 64 consumer threads (warps 1 and 2) wait
//   until stage s is full (parity ph), read their element and arrive on the empty
//   barrier (64 arrivals), so the next copy into the stage follows every read of it.
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

extern "C" __global__ void ring(const float* x, float* out, int k_tiles) {
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
    if (tid < 32) {
        if (tid == 0) {
            for (int k = 0; k < k_tiles; ++k) {
                const int s = k % STAGES;
                const unsigned ph = (k / STAGES) & 1;
                mbar_wait(&empty[s], ph ^ 1);
                mbar_arrive_expect_tx(&full[s], TILE * sizeof(float));
                bulk_copy(buf[s], xb + k * TILE, TILE * sizeof(float), &full[s]);
            }
        }
    } else {
        const int i = tid - 32;
        float acc = 0.0f;
        for (int k = 0; k < k_tiles; ++k) {
            const int s = k % STAGES;
            const unsigned ph = (k / STAGES) & 1;
            mbar_wait(&full[s], ph);
            acc += buf[s][i];
            mbar_arrive(&empty[s]);
        }
        out[blockIdx.x * TILE + i] = acc;
    }
}
