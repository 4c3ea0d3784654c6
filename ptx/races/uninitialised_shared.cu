// expect: UNINITIALISED READ
// why: only threads t < 32 fill s, but all 64 threads read s[t] after the barrier:
//   thread 32 reads s[32], which nobody wrote (an indeterminate value).
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void uninitialised_shared(const float* x, float* out) {
    __shared__ float s[64];
    unsigned t = threadIdx.x;
    if (t < 32) s[t] = x[t];
    __syncthreads();
    out[t] = s[t];
}
