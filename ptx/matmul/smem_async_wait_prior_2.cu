// smem_async_pipelined waiting with __pipeline_wait_prior(2) instead of 1: two groups
// may still be in flight, so tile t has not necessarily landed when the CTA reads it
// (in step 0 none of the copies has been waited for).
#include <cuda_pipeline.h>

#define TILE 16

extern "C" __global__ void matmul_smem_async_wait_prior_2(const float* __restrict__ A,
                                                          const float* __restrict__ B,
                                                          float* __restrict__ C,
                                                          int M, int N, int K) {
    __shared__ __align__(16) float As[2][TILE][TILE];
    __shared__ __align__(16) float Bs[2][TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tid = ty * TILE + tx;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    int steps = K / TILE;

    auto load = [&](int t, int buf) {
        int k0 = t * TILE;
        if (tid < 64) {
            int r = tid / 4, c = (tid % 4) * 4;
            __pipeline_memcpy_async(&As[buf][r][c], &A[(blockIdx.y * TILE + r) * K + k0 + c], 16);
        } else if (tid < 128) {
            int r = (tid - 64) / 4, c = ((tid - 64) % 4) * 4;
            __pipeline_memcpy_async(&Bs[buf][r][c], &B[(k0 + r) * N + blockIdx.x * TILE + c], 16);
        }
    };

    float acc = 0.0f;
    load(0, 0);
    __pipeline_commit();
    for (int t = 0; t < steps; ++t) {
        if (t + 1 < steps) {
            load(t + 1, (t + 1) & 1);
        }
        __pipeline_commit();
        __pipeline_wait_prior(2);
        __syncthreads();
        int buf = t & 1;
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            acc += As[buf][ty][k] * Bs[buf][k][tx];
        }
        __syncthreads();
    }
    C[row * N + col] = acc;
}
