// expect: DEADLOCK
// why: barrier divergence: threads t < 32 wait at the __syncthreads() of the `then`
//   branch, threads t >= 32 at the one of the `else` branch. CUDA requires every thread
//   of the block to reach the same __syncthreads() (two textually different calls are
//   two barriers); the condition depends on threadIdx.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void barrier_if_else(const float* x, float* out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    if (t < 32) {
        s[t] = x[t];
        __syncthreads();
        out[t] = s[t + 32];
    } else {
        s[t] = 2.0f * x[t];
        __syncthreads();
        out[t] = s[t - 32] * s[t];
    }
}
