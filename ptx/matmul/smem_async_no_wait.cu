// smem_async without __pipeline_wait_prior(0): the copies are committed but never
// waited for, so __syncthreads does not make them visible (cp.async is not ordered
// by bar.sync) and the dot products read tiles whose copies may not have landed.
#include <cuda_pipeline.h>

#define TILE 16

extern "C" __global__ void matmul_smem_async_no_wait(const float* __restrict__ A,
                                                     const float* __restrict__ B,
                                                     float* __restrict__ C,
                                                     int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        __pipeline_memcpy_async(&As[ty][tx], &A[row * K + k0 + tx], sizeof(float));
        __pipeline_memcpy_async(&Bs[ty][tx], &B[(k0 + ty) * N + col], sizeof(float));
        __pipeline_commit();
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    C[row * N + col] = acc;
}
