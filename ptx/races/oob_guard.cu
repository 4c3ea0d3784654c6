// expect: SAFE
// why: the same kernel with the right guard `i < n`: threads 100..127 do nothing.
// launch: block = [64]
// launch: grid = [2]
// arg: { tensor = "x", shape = [100] }
// arg: { tensor = "out", shape = [100], role = "out" }
// arg: 100
extern "C" __global__ void oob_guard(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * x[i];
}
