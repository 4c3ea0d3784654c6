// expect: SAFE
// why: warp_exchange with __syncwarp() (all 32 lanes) between the stores and the loads:
//   every store is ordered before every load of the warp.
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32] }
// arg: { tensor = "out", shape = [32], role = "out" }
extern "C" __global__ void warp_exchange_syncwarp(const float* x, float* out) {
    __shared__ float s[32];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    __syncwarp();
    out[t] = s[(t + 1) % 32];
}
