// Attention O = softmax(Q K^T / sqrt(D)) V in the style of FlashAttention-2's
// inner loop: flash1's tiling (32 query rows per block, K/V tiles of 32 rows in
// shared memory, running max from -INFINITY), but the output accumulator stays
// unnormalised -- per tile m' = max(m, mt), a = e^(m - m'), p_j = e^(s_j - m'),
// l = a l + sum p_j, o = a o + P V -- and is divided by l once, at the end.
// D = 64, block 32, grid cdiv(N, 32); N a multiple of 32.
#define D 64
#define INFINITY __int_as_float(0x7f800000)   // +inf (NVRTC has no <math.h>)
#define BC 32

extern "C" __global__ void flash_attn_flash2(const float* __restrict__ Q,
                                             const float* __restrict__ K,
                                             const float* __restrict__ V,
                                             float* __restrict__ O, int N) {
    __shared__ float Ks[BC * D];
    __shared__ float Vs[BC * D];
    const int t = threadIdx.x;
    const int i = blockIdx.x * 32 + t;
    float q[D], o[D];
    for (int d = 0; d < D; ++d) {
        q[d] = Q[i * D + d];
        o[d] = 0.0f;
    }
    float m = -INFINITY;
    float l = 0.0f;
    for (int j0 = 0; j0 < N; j0 += BC) {
        for (int d = 0; d < D; ++d) {
            Ks[t * D + d] = K[(j0 + t) * D + d];
            Vs[t * D + d] = V[(j0 + t) * D + d];
        }
        __syncthreads();
        float s[BC];
        float mt = -INFINITY;
        for (int j = 0; j < BC; ++j) {
            float acc = 0.0f;
            for (int d = 0; d < D; ++d) acc += q[d] * Ks[j * D + d];
            s[j] = acc * 0.125f;
            mt = fmaxf(mt, s[j]);
        }
        float mnew = fmaxf(m, mt);
        float a = __expf(m - mnew);
        l *= a;
        for (int j = 0; j < BC; ++j) {
            s[j] = __expf(s[j] - mnew);
            l += s[j];
        }
        for (int d = 0; d < D; ++d) {
            float pv = 0.0f;
            for (int j = 0; j < BC; ++j) pv += s[j] * Vs[j * D + d];
            o[d] = a * o[d] + pv;
        }
        m = mnew;
        __syncthreads();
    }
    for (int d = 0; d < D; ++d) O[i * D + d] = o[d] / l;
}
