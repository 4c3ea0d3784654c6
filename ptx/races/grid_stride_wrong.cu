// expect: RACE
// why: a grid-stride loop that strides by blockDim.x instead of blockDim.x * gridDim.x:
//   block 0 covers i = t, t + 32, t + 64, ... and block 1 covers i = 32 + t, 64 + t, ...,
//   so e.g. out[32] is written by thread 0 of block 0 and thread 0 of block 1.
// launch: block = [32]
// launch: grid = [2]
// arg: { tensor = "x", shape = [128] }
// arg: { tensor = "out", shape = [128], role = "out" }
// arg: 128
extern "C" __global__ void grid_stride_wrong(const float* x, float* out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x)
        out[i] = 2.0f * x[i];
}
