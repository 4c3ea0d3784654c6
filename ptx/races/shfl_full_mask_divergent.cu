// expect: DEADLOCK
// why: __shfl_down_sync names all 32 lanes in its mask but only lanes 0..15 execute it;
//   lanes 16..31 wait at the __syncthreads() after the branch, which lanes 0..15 never
//   reach while they wait for the shuffle: neither can complete.
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32] }
// arg: { tensor = "out", shape = [32], role = "out" }
extern "C" __global__ void shfl_full_mask_divergent(const float* x, float* out) {
    unsigned t = threadIdx.x;
    float v = x[t];
    if (t < 16) v += __shfl_down_sync(0xffffffffu, v, 8);
    __syncthreads();
    out[t] = v;
}
