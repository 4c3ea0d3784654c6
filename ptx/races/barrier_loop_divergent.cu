// expect: DEADLOCK
// why: the loop around the barrier runs 1 + (t & 1) times: even threads pass one
//   __syncthreads() and return, odd threads wait at a second one that the even
//   threads never reach (barrier divergence).
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void barrier_loop_divergent(const float* x, float* out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    for (unsigned i = 0; i < 1 + (t & 1); i++) {
        __syncthreads();
        s[t] += 1.0f;
    }
    out[t] = s[t];
}
