// expect: SAFE
// why: __syncthreads_count is a barrier every thread reaches (it also counts the true
//   predicates); the shared stores before it are ordered before the loads after it.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void syncthreads_count(const float* x, float* out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    int c = __syncthreads_count(t & 1);
    out[t] = s[63 - t] * (float)c;
}
