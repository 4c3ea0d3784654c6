// A function pointer chosen by the data: leaky relu (slope 0.5) as a call through a
// pointer to one of two __noinline__ functions, picked by the sign of x[i].
__device__ __noinline__ float keep(float v) { return v; }
__device__ __noinline__ float halve(float v) { return 0.5f * v; }

extern "C" __global__ void calls_fn_by_data(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        float (*volatile f)(float) = v > 0.0f ? keep : halve;
        y[i] = f(v);
    }
}
