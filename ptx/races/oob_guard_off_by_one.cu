// expect: OUT OF BOUNDS
// why: the guard is `i <= n` instead of `i < n`: with n = 100 and 128 threads, thread
//   i = 100 reads x[100] and writes out[100], one past the end of both tensors.
// launch: block = [64]
// launch: grid = [2]
// arg: { tensor = "x", shape = [100] }
// arg: { tensor = "out", shape = [100], role = "out" }
// arg: 100
extern "C" __global__ void oob_guard_off_by_one(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = 2.0f * x[i];
}
