// fa1_minimal with the running max started in the wrong place: row_m_prev is set to
// -INFINITY at every key tile instead of read from global memory, so e^(m - m') = 0
// drops the earlier tiles' sum and output and each tile's softmax replaces the last.
// Right with one key tile (N = 32), wrong from two on.
#define D 64
#define BR 32
#define BC 32
#define INFINITY __int_as_float(0x7f800000)   // +inf (NVRTC has no <math.h>)

extern "C" __global__ void flash_attn_fa1_max_init_per_tile(const float* __restrict__ Q,
                                                            const float* __restrict__ K,
                                                            const float* __restrict__ V,
                                                            float* __restrict__ O, int N,
                                                            float* __restrict__ l,
                                                            float* __restrict__ m) {
    __shared__ float Qi[BR * D];
    __shared__ float Kj[BC * D];
    __shared__ float Vj[BC * D];
    __shared__ float S[BR * BC];
    const int tx = threadIdx.x;
    const int Tc = N / BC, Tr = N / BR;
    for (int i = 0; i < Tr; ++i) {
        for (int x = 0; x < D; ++x) O[(i * BR + tx) * D + x] = 0.0f;
        l[i * BR + tx] = 0.0f;
        m[i * BR + tx] = -INFINITY;
    }
    for (int j = 0; j < Tc; ++j) {
        for (int x = 0; x < D; ++x) {
            Kj[tx * D + x] = K[(j * BC + tx) * D + x];
            Vj[tx * D + x] = V[(j * BC + tx) * D + x];
        }
        __syncthreads();
        for (int i = 0; i < Tr; ++i) {
            for (int x = 0; x < D; ++x) Qi[tx * D + x] = Q[(i * BR + tx) * D + x];
            float row_m_prev = -INFINITY;  // BUG: should be m[i * BR + tx]
            float row_l_prev = l[i * BR + tx];
            float row_m = -INFINITY;
            for (int y = 0; y < BC; ++y) {
                float sum = 0.0f;
                for (int x = 0; x < D; ++x) sum += Qi[tx * D + x] * Kj[y * D + x];
                sum *= 0.125f;
                S[BC * tx + y] = sum;
                if (sum > row_m) row_m = sum;
            }
            float row_l = 0.0f;
            for (int y = 0; y < BC; ++y) {
                S[BC * tx + y] = __expf(S[BC * tx + y] - row_m);
                row_l += S[BC * tx + y];
            }
            float row_m_new = fmaxf(row_m_prev, row_m);
            float row_l_new = __expf(row_m_prev - row_m_new) * row_l_prev
                            + __expf(row_m - row_m_new) * row_l;
            for (int x = 0; x < D; ++x) {
                float pv = 0.0f;
                for (int y = 0; y < BC; ++y) pv += S[BC * tx + y] * Vj[y * D + x];
                O[(i * BR + tx) * D + x] =
                    (1.0f / row_l_new) *
                    ((row_l_prev * __expf(row_m_prev - row_m_new) * O[(i * BR + tx) * D + x]) +
                     (__expf(row_m - row_m_new) * pv));
            }
            m[i * BR + tx] = row_m_new;
            l[i * BR + tx] = row_l_new;
        }
        __syncthreads();
    }
}
