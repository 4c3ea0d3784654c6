// ReLU with float4 loads and stores, a scalar tail.
extern "C" __global__ void relu_float4(const float* x, float* y, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;
    if (idx < n4) {
        float4 v = reinterpret_cast<const float4*>(x)[idx];
        v.x = fmaxf(v.x, 0.0f);
        v.y = fmaxf(v.y, 0.0f);
        v.z = fmaxf(v.z, 0.0f);
        v.w = fmaxf(v.w, 0.0f);
        reinterpret_cast<float4*>(y)[idx] = v;
    }
    if (idx == 0) {
        for (int i = n4 * 4; i < n; ++i) y[i] = fmaxf(x[i], 0.0f);
    }
}
