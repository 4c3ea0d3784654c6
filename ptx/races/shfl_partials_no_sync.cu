// expect: RACE
// why: the shuffle reduction with __syncwarp() where __syncthreads() is needed: lane 0
//   of warp 1 (thread 32) writes w[1] and thread 0 (warp 0) reads w[1]; a warp barrier
//   orders only lanes of one warp, so the write and the read are unordered.
// launch: block = [128]
// launch: grid = ["B"]
// launch: sizes = { B = 2 }
// arg: { tensor = "x", shape = ["B", 128] }
// arg: { tensor = "out", shape = ["B"], role = "out" }
extern "C" __global__ void shfl_partials_no_sync(const float* x, float* out) {
    __shared__ float w[4];
    unsigned t = threadIdx.x;
    float v = x[blockIdx.x * 128 + t];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if ((t & 31) == 0) w[t >> 5] = v;
    __syncwarp();
    if (t == 0) out[blockIdx.x] = w[0] + w[1] + w[2] + w[3];
}
