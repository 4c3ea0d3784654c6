// expect: RACE
// why: every lane t of the one warp stores its own x[b, t] to s[0] in one
//   instruction: one lane's store wins and the PTX ISA does not say which, so
//   out[b] = s[0] is any of the 32 values (a nondeterministic value).
// launch: block = [32]
// launch: grid = ["B"]
// launch: sizes = { B = 2 }
// arg: { tensor = "x", shape = ["B", 32] }
// arg: { tensor = "out", shape = ["B"], role = "out" }
extern "C" __global__ void warp_different_values_store(const float* x, float* out) {
    __shared__ float s[1];
    s[0] = x[blockIdx.x * 32 + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
