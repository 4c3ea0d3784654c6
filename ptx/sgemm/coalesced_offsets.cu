// SGEMM step 2 again, written so that NVRTC emits no `bfi`: coalesced's 1-D block
// of 256 threads per 16 x 16 tile of C, with the block's offsets folded into the
// base pointers (as the later kernels of the series do) instead of into the
// row and column indices.  Block 256, grid cdiv(N, 16) x cdiv(M, 16); M, N
// multiples of 16.
#define BS 16

extern "C" __global__ void sgemm_coalesced_offsets(const float* __restrict__ A,
                                                   const float* __restrict__ B,
                                                   float* __restrict__ C,
                                                   int M, int N, int K) {
    const int tr = threadIdx.x / BS;
    const int tc = threadIdx.x % BS;
    A += blockIdx.y * BS * K;
    B += blockIdx.x * BS;
    C += blockIdx.y * BS * N + blockIdx.x * BS;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        acc += A[tr * K + k] * B[k * N + tc];
    }
    C[tr * N + tc] = acc;
}
