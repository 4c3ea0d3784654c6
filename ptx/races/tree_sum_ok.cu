// expect: SAFE
// why: a shared-memory tree sum. In the step of stride k, threads t < k write s[t]
//   and read s[t + k]: the slots written ([0, k)) and read ([k, 2k)) are disjoint, and
//   the __syncthreads() that ends each step orders it before the next one. Thread 0
//   reads s[0] after the last barrier.
// launch: block = [128]
// launch: grid = ["B"]
// launch: sizes = { B = 2 }
// arg: { tensor = "x", shape = ["B", 128] }
// arg: { tensor = "out", shape = ["B"], role = "out" }
extern "C" __global__ void tree_sum_ok(const float* x, float* out) {
    __shared__ float s[128];
    unsigned t = threadIdx.x;
    s[t] = x[blockIdx.x * 128 + t];
    __syncthreads();
    for (unsigned k = 64; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
