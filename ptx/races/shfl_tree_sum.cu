// expect: SAFE
// why: a warp-shuffle reduction: __shfl_down_sync with the full mask exchanges registers
//   among all 32 lanes (no shared memory), lane 0 of each warp writes its own slot w[warp],
//   and thread 0 reads the four slots only after __syncthreads().
// launch: block = [128]
// launch: grid = ["B"]
// launch: sizes = { B = 2 }
// arg: { tensor = "x", shape = ["B", 128] }
// arg: { tensor = "out", shape = ["B"], role = "out" }
extern "C" __global__ void shfl_tree_sum(const float* x, float* out) {
    __shared__ float w[4];
    unsigned t = threadIdx.x;
    float v = x[blockIdx.x * 128 + t];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((t & 31) == 0) w[t >> 5] = v;
    __syncthreads();
    if (t == 0) out[blockIdx.x] = w[0] + w[1] + w[2] + w[3];
}
