// expect: SAFE
// equiv: equivalent
// why: one warpgroup (128 threads) per 64 x 16 tile of C. Each K step, the threads
//   store the 64 x 16 tile of A and the 16 x 16 tile of B (transposed: N rows of K) to
//   shared memory, __syncthreads publishes them, and after fence.proxy.async and
//   wgmma.fence one wgmma.mma_async reads them through two descriptors; its group is
//   waited for (wgmma.wait_group 0) before the __syncthreads that lets the next step
//   overwrite the tiles, and before the accumulators are stored.
// launch: block = [128]
// launch: grid = ["cdiv(N, 16)", "cdiv(M, 64)"]
// launch: sizes = { M = 64, N = 32, K = 32 }
// arg: { tensor = "A", shape = ["M", "K"], role = "in", dtype = "float16" }
// arg: { tensor = "B", shape = ["K", "N"], role = "in", dtype = "float16" }
// arg: { tensor = "C", shape = ["M", "N"], role = "out" }
// arg: "M"
// arg: "N"
// arg: "K"
//
// C = A @ B on Hopper's warpgroup tensor cores with inline PTX: A (M x K) and B (K x N)
// are row-major float16, C is float32; M a multiple of 64, N of 16, K of 16.
// `wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16` takes both operands from shared
// memory, K-major (A as M rows of K, B as N rows of K: imm-trans-a = imm-trans-b = 0),
// in the 32-byte swizzle: rows of 32 bytes (the 16 halves of a K step), 8-row groups
// 256 bytes apart (the descriptor's stride byte offset), and bit 4 of each byte offset
// XORed with bit 7 (the tiles start at a 1024-byte boundary). The accumulator fragment:
// thread t of the warpgroup holds, in d[i], row 16 (t / 32) + (t % 32) / 4 + 8 ((i % 4) / 2)
// and column 8 (i / 4) + 2 (t % 4) + i % 2.
#include <cuda_fp16.h>

typedef __half elem;  // the input type

__device__ __forceinline__ unsigned smem(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// The element index of (row r, column k) of a K-major tile of 16 columns in the
// 32-byte swizzle.
__device__ __forceinline__ int sw32(int r, int k) {
    int b = r * 32 + 2 * k;
    return (b ^ ((b >> 3) & 16)) / 2;
}

// The matrix descriptor of a tile: start address, leading byte offset 16 (unused when
// swizzled), stride byte offset 256, swizzle mode 3 (32 bytes).
__device__ __forceinline__ unsigned long long desc(const elem* p) {
    return (unsigned long long)((smem(p) & 0x3FFFF) >> 4) | (1ull << 16) |
           ((256ull >> 4) << 32) | (3ull << 62);
}

extern "C" __global__ void wgmma_gemm(const elem* __restrict__ A,
                                      const elem* __restrict__ B,
                                      float* __restrict__ C,
                                      int M, int N, int K) {
    // One buffer (so both tiles are within the descriptors' reach): A's tile, then B's.
    __shared__ alignas(1024) elem tiles[64 * 16 + 16 * 16];
    elem* As = tiles;
    elem* Bs = tiles + 64 * 16;
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * 64;
    const int col0 = blockIdx.x * 16;
    float d[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = tid; i < 64 * 16; i += 128) {
            As[sw32(i / 16, i % 16)] = A[(row0 + i / 16) * K + k0 + i % 16];
        }
        for (int i = tid; i < 16 * 16; i += 128) {
            Bs[sw32(i % 16, i / 16)] = B[(k0 + i / 16) * N + col0 + i % 16];
        }
        __syncthreads();
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 "
                     "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, p, 1, 1, 0, 0;\n}\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                       "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                     : "l"(desc(As)), "l"(desc(Bs)), "r"(1)
                     : "memory");
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
        __syncthreads();
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    for (int i = 0; i < 8; ++i) {
        asm volatile("" : "+f"(d[i])::"memory");
    }
    const int w = tid / 32, g = (tid % 32) / 4, t = tid % 4;
    for (int i = 0; i < 8; ++i) {
        const int r = row0 + 16 * w + g + 8 * ((i % 4) / 2);
        const int c = col0 + 8 * (i / 4) + 2 * t + i % 2;
        C[r * N + c] = d[i];
    }
}
