// Wrong twin of smem_async_pipelined with one buffer: the copies of tile t + 1 are
// issued into the buffer while the CTA is still multiplying tile t from it (the
// prefetch comes before the products instead of after the second __syncthreads).
// A copy may land before or after the reads of tile t, so the products may mix the
// two tiles: a race between the in-flight cp.async writes and the reads.
// M, N and K must be multiples of 16.
#include <cuda_pipeline.h>

#define TILE 16

extern "C" __global__ void matmul_smem_async_early_prefetch(const float* __restrict__ A,
                                                            const float* __restrict__ B,
                                                            float* __restrict__ C,
                                                            int M, int N, int K) {
    __shared__ __align__(16) float As[TILE][TILE];
    __shared__ __align__(16) float Bs[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tid = ty * TILE + tx;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    int steps = K / TILE;

    auto load = [&](int t) {
        int k0 = t * TILE;
        if (tid < 64) {
            int r = tid / 4, c = (tid % 4) * 4;
            __pipeline_memcpy_async(&As[r][c], &A[(blockIdx.y * TILE + r) * K + k0 + c], 16);
        } else if (tid < 128) {
            int r = (tid - 64) / 4, c = ((tid - 64) % 4) * 4;
            __pipeline_memcpy_async(&Bs[r][c], &B[(k0 + r) * N + blockIdx.x * TILE + c], 16);
        }
    };

    float acc = 0.0f;
    load(0);
    __pipeline_commit();
    for (int t = 0; t < steps; ++t) {
        __pipeline_wait_prior(0);
        __syncthreads();
        // Next tile, wrapping to tile 0 after the last (so every step prefetches).
        load((t + 1) % steps);  // BUG: the buffer still holds tile t, read just below
        __pipeline_commit();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    C[row * N + col] = acc;
}
