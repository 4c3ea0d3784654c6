// expect: DEADLOCK
// why: threads t >= n (48..63) return before the __syncthreads() that threads 0..47
//   wait at: the barrier is in code that not every thread of the block reaches
//   (barrier divergence, undefined in CUDA).
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
// arg: 48
extern "C" __global__ void barrier_after_return(const float* x, float* out, int n) {
    __shared__ float s[64];
    int t = threadIdx.x;
    out[t] = 0.0f;
    if (t >= n) return;
    s[t] = x[t];
    __syncthreads();
    out[t] = s[(t + 1) % n];
}
