// fa1_minimal with CUDA's accurate expf (libdevice's, not the __expf intrinsic) and
// the output divided by l' with `/` instead of multiplied by 1 / l':
//   O = (l e^(m - m') O + e^(mt - m') P V) / l'.
// Otherwise as fa1_minimal: one CTA of 32 threads, one per query row, K/V tiles of
// 32 rows in shared memory, m and l of every row in global memory across key tiles.
// D = 64 (1 / sqrt(D) = 0.125), grid 1, block 32; N a multiple of 32.
#define D 64
#define BR 32
#define BC 32
#define INFINITY __int_as_float(0x7f800000)   // +inf (NVRTC has no <math.h>)

extern "C" __global__ void flash_attn_fa1_expf(const float* __restrict__ Q,
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
            float row_m_prev = m[i * BR + tx];
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
                S[BC * tx + y] = expf(S[BC * tx + y] - row_m);
                row_l += S[BC * tx + y];
            }
            float row_m_new = fmaxf(row_m_prev, row_m);
            float a = expf(row_m_prev - row_m_new), b = expf(row_m - row_m_new);
            float row_l_new = a * row_l_prev + b * row_l;
            for (int x = 0; x < D; ++x) {
                float pv = 0.0f;
                for (int y = 0; y < BC; ++y) pv += S[BC * tx + y] * Vj[y * D + x];
                O[(i * BR + tx) * D + x] =
                    (row_l_prev * a * O[(i * BR + tx) * D + x] + b * pv) / row_l_new;
            }
            m[i * BR + tx] = row_m_new;
            l[i * BR + tx] = row_l_new;
        }
        __syncthreads();
    }
}
