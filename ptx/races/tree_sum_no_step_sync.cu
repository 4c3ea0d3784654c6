// expect: RACE
// why: the tree sum without the __syncthreads() between steps. In the step of stride
//   32 thread 0 reads s[32], which thread 32 wrote in the step of stride 64 (s[32] +=
//   s[96]); no barrier lies between the two accesses of the two threads (different
//   warps, and warps are never implicitly synchronous).
// launch: block = [128]
// launch: grid = ["B"]
// launch: sizes = { B = 2 }
// arg: { tensor = "x", shape = ["B", 128] }
// arg: { tensor = "out", shape = ["B"], role = "out" }
extern "C" __global__ void tree_sum_no_step_sync(const float* x, float* out) {
    __shared__ float s[128];
    unsigned t = threadIdx.x;
    s[t] = x[blockIdx.x * 128 + t];
    __syncthreads();
    for (unsigned k = 64; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
    }
    __syncthreads();
    if (t == 0) out[blockIdx.x] = s[0];
}
