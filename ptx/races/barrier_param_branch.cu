// expect: SAFE
// why: the __syncthreads() is inside `if (n > 0)`, but n is a kernel parameter: the
//   condition is the same for every thread, so the barrier is reached by all or none.
//   Inside, each thread writes s[t], and reads s[63 - t] after the barrier.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
// arg: 4
extern "C" __global__ void barrier_param_branch(const float* x, float* out, int n) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    if (n > 0) {
        s[t] = x[t];
        __syncthreads();
        out[t] = s[63 - t];
    } else {
        out[t] = 0.0f;
    }
}
