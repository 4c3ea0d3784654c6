// expect: OUT OF BOUNDS
// why: the shared array has 32 floats but the block has 64 threads: thread 32 stores
//   s[32], past its end.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void oob_shared_overrun(const float* x, float* out) {
    __shared__ float s[32];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    __syncthreads();
    out[t] = s[t % 32];
}
