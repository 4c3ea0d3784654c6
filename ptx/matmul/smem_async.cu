// C = A * B with 16 x 16 shared-memory tiles loaded asynchronously: smem_tiled with
// each thread's two tile elements copied by __pipeline_memcpy_async (cp.async on
// sm_80), then __pipeline_commit and __pipeline_wait_prior(0) (cp.async.commit_group,
// cp.async.wait_group 0) before the __syncthreads that publishes the tiles.
// M, N and K must be multiples of 16.
#include <cuda_pipeline.h>

#define TILE 16

extern "C" __global__ void matmul_smem_async(const float* __restrict__ A,
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
        __pipeline_wait_prior(0);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    C[row * N + col] = acc;
}
