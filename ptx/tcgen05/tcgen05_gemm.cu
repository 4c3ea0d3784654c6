// expect: SAFE
// equiv: equivalent
// why: one CTA (4 warps) per 128 x 16 tile of C. Warp 0 allocates 32 columns of tensor
//   memory; each K step the threads store the 128 x 16 tile of A and the 16 x 16 tile
//   of B to shared memory, fence.proxy.async and __syncthreads publish them, and thread
//   0 issues one tcgen05.mma and commits it to an mbarrier. Every thread waits for that
//   mbarrier phase before the next step overwrites the tiles, and after the loop before
//   tcgen05.ld reads the accumulator (tcgen05.wait::ld before its registers are used).
// launch: block = [128]
// launch: grid = ["cdiv(N, 16)", "cdiv(M, 128)"]
// launch: sizes = { M = 128, N = 32, K = 32 }
// arg: { tensor = "A", shape = ["M", "K"], role = "in", dtype = "float16" }
// arg: { tensor = "B", shape = ["K", "N"], role = "in", dtype = "float16" }
// arg: { tensor = "C", shape = ["M", "N"], role = "out" }
// arg: "M"
// arg: "N"
// arg: "K"
//
// C = A @ B on Blackwell's tensor cores with inline PTX: A (M x K) and B (K x N) are
// row-major float16, C is float32; M a multiple of 128, N of 16, K of 16.
// `tcgen05.mma.cta_group::1.kind::f16` with M = 128, N = 16, K = 16 takes both operands
// from shared memory, K-major (A as M rows of K, B as N rows of K), without swizzle:
// 8 x 16-byte core matrices, 128 bytes apart along M or N (the stride byte offset) and
// LBO bytes apart along K (the leading byte offset: 2048 for A, 256 for B). The
// instruction descriptor 0x08040010: D f32 (bit 4), A and B f16, both K-major,
// N >> 3 = 2 (bits 17-22), M >> 4 = 8 (bits 24-28). The accumulator is in tensor
// memory, row r in lane r (M = 128); warp w reads its lanes 32w.. with
// tcgen05.ld.32x32b.x16 (lane l: row 32w + l, register j: column j).
#include <cuda_fp16.h>

typedef __half elem;  // the input type

#define IDESC 0x08040010u

__device__ __forceinline__ unsigned smem(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// The element index of (row r, column k) of a K-major tile without swizzle whose two
// 8-column halves are `lbo` bytes apart.
__device__ __forceinline__ int kmajor(int r, int k, int lbo) {
    return (16 * (r % 8) + 2 * (k % 8) + 128 * (r / 8) + lbo * (k / 8)) / 2;
}

// The shared memory descriptor of a tile: start address, leading byte offset `lbo`,
// stride byte offset 128, bits 46-48 = 0b001, no swizzle.
__device__ __forceinline__ unsigned long long desc(const elem* p, unsigned lbo) {
    return (unsigned long long)((smem(p) & 0x3FFFF) >> 4) | ((unsigned long long)(lbo >> 4) << 16) |
           ((128ull >> 4) << 32) | (1ull << 46);
}

__device__ __forceinline__ void wait(unsigned long long* bar, unsigned parity) {
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

struct Smem {
    elem a[128 * 16];
    elem b[16 * 16];
    unsigned long long bar;
    unsigned tmem_at;
};

extern "C" __global__ void tcgen05_gemm(const elem* __restrict__ A,
                                        const elem* __restrict__ B,
                                        float* __restrict__ C,
                                        int M, int N, int K) {
    // One shared variable (so the tiles are within the descriptors' reach): A's tile,
    // B's tile, the mbarrier and the tensor-memory address.
    __shared__ alignas(1024) Smem s;
    elem* As = s.a;
    elem* Bs = s.b;
    unsigned long long* bar = &s.bar;
    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int row0 = blockIdx.y * 128;
    const int col0 = blockIdx.x * 16;
    if (warp == 0) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;\n"
                     ::"r"(smem(&s.tmem_at)) : "memory");
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n" ::: "memory");
    }
    if (tid == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem(bar)) : "memory");
    }
    __syncthreads();
    const unsigned tmem = s.tmem_at;
    unsigned phase = 0;
    for (int k0 = 0; k0 < K; k0 += 16) {
        if (k0 > 0) {
            // The previous step's mma has read its tiles.
            wait(bar, phase);
            phase ^= 1;
        }
        for (int i = tid; i < 128 * 16; i += 128) {
            As[kmajor(i / 16, i % 16, 2048)] = A[(row0 + i / 16) * K + k0 + i % 16];
        }
        for (int i = tid; i < 16 * 16; i += 128) {
            Bs[kmajor(i % 16, i / 16, 256)] = B[(k0 + i / 16) * N + col0 + i % 16];
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
        if (tid == 0) {
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
                         "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n"
                         ::"r"(tmem), "l"(desc(As, 2048)), "l"(desc(Bs, 256)), "r"(IDESC), "r"(k0)
                         : "memory");
            asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\n"
                         ::"r"(smem(bar)) : "memory");
        }
    }
    // The last mma is complete: the accumulator can be read.
    wait(bar, phase);
    asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
    unsigned r[16];
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x16.b32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, [%16];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]),
                   "=r"(r[6]), "=r"(r[7]), "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]),
                   "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15])
                 : "r"(tmem + ((unsigned)(warp * 32) << 16))
                 : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory");
    for (int j = 0; j < 16; ++j) {
        C[(row0 + tid) * N + col0 + j] = __uint_as_float(r[j]);
    }
    __syncthreads();
    if (warp == 0) {
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;\n" ::"r"(tmem) : "memory");
    }
}
