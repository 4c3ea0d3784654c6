// expect: SAFE
// equiv: equivalent
// why: one warp per 16 x 8 tile of C. Each K step, the warp's lanes copy a 16 x 16 tile
//   of A and a 16 x 8 tile of B to shared memory with cp.async (16 bytes a lane),
//   commit and wait for their group, and __syncwarp publishes the tiles to the other
//   lanes before ldmatrix (.x4 for A, .x2.trans for B) reads them; the __syncwarp at the
//   end of the step orders those reads before the next step's copies.
// launch: block = [32]
// launch: grid = ["cdiv(N, 8)", "cdiv(M, 16)"]
// launch: sizes = { M = 32, N = 16, K = 32 }
// arg: { tensor = "A", shape = ["M", "K"], role = "in", dtype = "float16" }
// arg: { tensor = "B", shape = ["K", "N"], role = "in", dtype = "float16" }
// arg: { tensor = "C", shape = ["M", "N"], role = "out" }
// arg: "M"
// arg: "N"
// arg: "K"
//
// C = A @ B on the tensor cores as Ampere code does it: A (M x K) and B (K x N) are
// row-major float16, C is float32; M a multiple of 16, N of 8, K of 16. The fragment
// of mma.sync.m16n8k16.row.col comes from ldmatrix: .x4 over the A tile gives a0..a3
// (rows 0-7/8-15 x columns 0-7/8-15), .x2.trans over the row-major B tile gives b0, b1
// in the "col" layout the instruction wants.
#include <cuda_fp16.h>

typedef __half elem;  // the input type

__device__ __forceinline__ unsigned smem(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void mma_gemm(const elem* __restrict__ A,
                                    const elem* __restrict__ B,
                                    float* __restrict__ C,
                                    int M, int N, int K) {
    __shared__ alignas(16) elem As[16][16];
    __shared__ alignas(16) elem Bs[16][8];
    const int lane = threadIdx.x;
    const int row0 = blockIdx.y * 16;
    const int col0 = blockIdx.x * 8;
    float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        // A tile: 16 rows of 32 bytes, two 16-byte chunks a row, one chunk a lane.
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::
                     "r"(smem(&As[lane / 2][8 * (lane % 2)])),
                     "l"(&A[(row0 + lane / 2) * K + k0 + 8 * (lane % 2)]));
        // B tile: 16 rows of 16 bytes, lanes 0-15.
        if (lane < 16) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::
                         "r"(smem(&Bs[lane][0])), "l"(&B[(k0 + lane) * N + col0]));
        }
        asm volatile("cp.async.commit_group;\n" ::);
        asm volatile("cp.async.wait_group 0;\n" ::);
        __syncwarp();
        unsigned a0, a1, a2, a3, b0, b1;
        // Lane l gives row l % 16 of the A tile at column 8 * (l / 16): matrices 0-3 are
        // (rows 0-7, cols 0-7), (rows 8-15, cols 0-7), (rows 0-7, cols 8-15), (rows 8-15, cols 8-15).
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                     : "r"(smem(&As[lane % 16][8 * (lane / 16)])));
        // Lanes 0-15 give rows 0-15 of the B tile (k); .trans gives lane l the pair
        // (k = 2 (l % 4), 2 (l % 4) + 1; n = l / 4) of each 8 x 8 matrix.
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                     : "=r"(b0), "=r"(b1)
                     : "r"(smem(&Bs[lane % 16][0])));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                     : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
        __syncwarp();
    }
    // Accumulator fragment: d0, d1 at (row g, cols 2t, 2t + 1), d2, d3 at row g + 8.
    const int g = lane / 4, t = lane % 4;
    C[(row0 + g) * N + col0 + 2 * t] = d0;
    C[(row0 + g) * N + col0 + 2 * t + 1] = d1;
    C[(row0 + g + 8) * N + col0 + 2 * t] = d2;
    C[(row0 + g + 8) * N + col0 + 2 * t + 1] = d3;
}
