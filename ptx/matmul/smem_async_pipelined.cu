// C = A * B, double-buffered: while the CTA multiplies tile t from one buffer, the
// copies of tile t + 1 into the other buffer are in flight.  Each tile row of 16
// floats is copied as four 16-byte __pipeline_memcpy_async chunks (cp.async, cp-size
// 16) by threads 0..63 (A) and 64..127 (B).  Every step commits one group (empty in
// the last step) and __pipeline_wait_prior(1) waits for all but the newest group, so
// tile t has landed; the __syncthreads after it publishes the tile to the CTA, the
// one after the products frees the buffer for the copies of tile t + 2.
// M, N and K must be multiples of 16.
#include <cuda_pipeline.h>

#define TILE 16

extern "C" __global__ void matmul_smem_async_pipelined(const float* __restrict__ A,
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
        __pipeline_wait_prior(1);
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
