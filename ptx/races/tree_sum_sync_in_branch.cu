// expect: DEADLOCK
// why: barrier divergence. The __syncthreads() sits inside `if (t < k)`: in the first
//   step threads 0..63 wait at it while threads 64..127 skip it (and every later one),
//   so the barrier is not reached by every thread of the block (undefined behaviour in
//   CUDA; the block hangs).
// launch: block = [128]
// launch: grid = ["B"]
// launch: sizes = { B = 2 }
// arg: { tensor = "x", shape = ["B", 128] }
// arg: { tensor = "out", shape = ["B"], role = "out" }
extern "C" __global__ void tree_sum_sync_in_branch(const float* x, float* out) {
    __shared__ float s[128];
    unsigned t = threadIdx.x;
    s[t] = x[blockIdx.x * 128 + t];
    __syncthreads();
    for (unsigned k = 64; k > 0; k >>= 1) {
        if (t < k) {
            s[t] += s[t + k];
            __syncthreads();
        }
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
