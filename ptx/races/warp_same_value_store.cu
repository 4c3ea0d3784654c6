// expect: SAFE
// why: every lane of the one warp stores the same value x[b] to s[0] in one
//   instruction: the PTX ISA lets one lane's store win, and all of them store x[b];
//   after __syncthreads() thread 0 copies s[0] to out[b]. (Triton's reductions store
//   a warp's partial from every lane in this way.)
// launch: block = [32]
// launch: grid = ["B"]
// launch: sizes = { B = 2 }
// arg: { tensor = "x", shape = ["B"] }
// arg: { tensor = "out", shape = ["B"], role = "out" }
extern "C" __global__ void warp_same_value_store(const float* x, float* out) {
    __shared__ float s[1];
    s[0] = x[blockIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
