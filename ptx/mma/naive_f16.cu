// expect: SAFE
// equiv: equivalent
// why: one thread per element of C, reading A and B from global memory only.
// launch: block = [8, 16]
// launch: grid = ["cdiv(N, 8)", "cdiv(M, 16)"]
// launch: sizes = { M = 32, N = 16, K = 32 }
// arg: { tensor = "A", shape = ["M", "K"], role = "in", dtype = "float16" }
// arg: { tensor = "B", shape = ["K", "N"], role = "in", dtype = "float16" }
// arg: { tensor = "C", shape = ["M", "N"], role = "out" }
// arg: "M"
// arg: "N"
// arg: "K"
//
// The reference of mma_gemm: C = A @ B with float16 inputs and a float32 accumulator,
// one product at a time (each product of two halves is exact in float32).
#include <cuda_fp16.h>

typedef __half elem;  // the input type

extern "C" __global__ void naive_f16(const elem* __restrict__ A,
                                     const elem* __restrict__ B,
                                     float* __restrict__ C,
                                     int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += float(A[row * K + k]) * float(B[k * N + col]);
        }
        C[row * N + col] = acc;
    }
}
