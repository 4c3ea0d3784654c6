// expect: SAFE
// why: the early return depends only on the parameter n (n = 48 here, not 0), so
//   either every thread returns or none does; the barrier is reached by all threads.
//   After it, thread t reads s[(t + 1) % 64], written before the barrier.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
// arg: 48
extern "C" __global__ void barrier_return_uniform(const float* x, float* out, int n) {
    __shared__ float s[64];
    int t = threadIdx.x;
    if (n == 0) return;
    s[t] = x[t];
    __syncthreads();
    out[t] = s[(t + 1) % 64];
}
