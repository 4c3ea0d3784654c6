// expect: SAFE
// why: a correct grid-stride loop (stride blockDim.x * gridDim.x): every index is
//   visited by exactly one thread of one block.
// launch: block = [32]
// launch: grid = [2]
// arg: { tensor = "x", shape = [128] }
// arg: { tensor = "out", shape = [128], role = "out" }
// arg: 128
extern "C" __global__ void grid_stride(const float* x, float* out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        out[i] = 2.0f * x[i];
}
