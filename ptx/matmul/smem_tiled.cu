// C = A * B with 16 x 16 shared-memory tiles (Boehm's SGEMM kernel 3): a CTA of
// 16 x 16 threads walks K in steps of 16; each thread loads one element of the
// A tile and one of the B tile, the CTA synchronises, every thread accumulates
// its dot product from shared memory, and the CTA synchronises again before
// the tiles are overwritten.  M, N and K must be multiples of 16.
#define TILE 16

extern "C" __global__ void matmul_smem_tiled(const float* __restrict__ A,
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
        As[ty][tx] = A[row * K + k0 + tx];
        Bs[ty][tx] = B[(k0 + ty) * N + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    C[row * N + col] = acc;
}
