// flash1 without the __syncthreads at the end of each key tile: a thread that
// finishes tile j0 early stages tile j0 + 32 into Ks / Vs while other threads are
// still reading tile j0 (a race from N = 64 on).
#define D 64
#define INFINITY __int_as_float(0x7f800000)   // +inf (NVRTC has no <math.h>)
#define BC 32

extern "C" __global__ void flash_attn_missing_sync(const float* __restrict__ Q,
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
        for (int d = 0; d < D; ++d) {          // thread t stages key row j0 + t
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
        float lt = 0.0f;
        for (int j = 0; j < BC; ++j) {
            s[j] = __expf(s[j] - mt);
            lt += s[j];
        }
        float mnew = fmaxf(m, mt);
        float a = __expf(m - mnew), b = __expf(mt - mnew);
        float lnew = a * l + b * lt;
        for (int d = 0; d < D; ++d) {
            float pv = 0.0f;
            for (int j = 0; j < BC; ++j) pv += s[j] * Vs[j * D + d];
            o[d] = (l * a * o[d] + b * pv) / lnew;
        }
        m = mnew;
        l = lnew;
        // BUG: no __syncthreads() before the next tile overwrites Ks / Vs
    }
    for (int d = 0; d < D; ++d) O[i * D + d] = o[d];
}
