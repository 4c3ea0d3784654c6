// SGEMM step 3, shared-memory tiling: a 1-D block of 256 threads owns a 16 x 16
// tile of C.  For each 16-wide slice of K the block stages a 16 x 16 tile of A
// and one of B in shared memory (one element per thread), synchronises, and each
// thread accumulates its dot product from shared memory; a second barrier keeps
// the next slice's stores away from this slice's reads.
// Block 256, grid N/16 x M/16; M, N, K multiples of 16.
#define BS 16

extern "C" __global__ void sgemm_smem_tiled(const float* __restrict__ A,
                                            const float* __restrict__ B,
                                            float* __restrict__ C,
                                            int M, int N, int K) {
    __shared__ float As[BS * BS];
    __shared__ float Bs[BS * BS];
    int tr = threadIdx.x / BS;
    int tc = threadIdx.x % BS;
    A += blockIdx.y * BS * K;              // first row of this tile's A panel
    B += blockIdx.x * BS;                  // first column of the B panel
    C += blockIdx.y * BS * N + blockIdx.x * BS;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BS) {
        As[tr * BS + tc] = A[tr * K + tc];
        Bs[tr * BS + tc] = B[tr * N + tc];
        __syncthreads();
        A += BS;
        B += BS * N;
        for (int k = 0; k < BS; ++k) {
            acc += As[tr * BS + k] * Bs[k * BS + tc];
        }
        __syncthreads();
    }
    C[tr * N + tc] = acc;
}
