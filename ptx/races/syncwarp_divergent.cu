// expect: DEADLOCK
// why: __syncwarp() (full mask) is called only by lanes 0..15; lanes 16..31 are named in
//   the mask but wait at the block barrier below instead, so neither barrier can
//   complete.
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32] }
// arg: { tensor = "out", shape = [32], role = "out" }
extern "C" __global__ void syncwarp_divergent(const float* x, float* out) {
    __shared__ float s[32];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    if (t < 16) __syncwarp();
    __syncthreads();
    out[t] = s[31 - t];
}
