// C = A * B with 16 x 16 shared-memory tiles and 2 x 2 register blocking
// (in the spirit of Boehm's SGEMM kernels 4-5): a CTA of 8 x 8 = 64 threads
// computes a 16 x 16 tile of C, each thread the 2 x 2 block at rows
// 2*ty, 2*ty+1 and columns 2*tx, 2*tx+1, with four accumulators in registers.
// The 64 threads load each 16 x 16 tile cooperatively (4 elements each).
// M, N and K must be multiples of 16.
#define TILE 16
#define THREADS 64

extern "C" __global__ void matmul_register_blocked_2x2(const float* __restrict__ A,
                                                       const float* __restrict__ B,
                                                       float* __restrict__ C,
                                                       int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tid = ty * blockDim.x + tx;
    int tile_row = blockIdx.y * TILE;
    int tile_col = blockIdx.x * TILE;

    float c00 = 0.0f, c01 = 0.0f, c10 = 0.0f, c11 = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        for (int e = tid; e < TILE * TILE; e += THREADS) {
            int r = e / TILE;
            int c = e % TILE;
            As[r][c] = A[(tile_row + r) * K + k0 + c];
            Bs[r][c] = B[(k0 + r) * N + tile_col + c];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) {
            float a0 = As[2 * ty][k];
            float a1 = As[2 * ty + 1][k];
            float b0 = Bs[k][2 * tx];
            float b1 = Bs[k][2 * tx + 1];
            c00 += a0 * b0;
            c01 += a0 * b1;
            c10 += a1 * b0;
            c11 += a1 * b1;
        }
        __syncthreads();
    }

    int row = tile_row + 2 * ty;
    int col = tile_col + 2 * tx;
    C[row * N + col] = c00;
    C[row * N + col + 1] = c01;
    C[(row + 1) * N + col] = c10;
    C[(row + 1) * N + col + 1] = c11;
}
