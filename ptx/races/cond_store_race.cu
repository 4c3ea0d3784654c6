// expect: RACE
// why: every thread whose x[t] is positive stores best[0] = x[t], with no barrier
//   between the stores: for any input with two positive elements (e.g. x[0] = x[1] =
//   1) two threads write best[0] unordered.
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32] }
// arg: { tensor = "out", shape = [1], role = "out" }
extern "C" __global__ void cond_store_race(const float* x, float* out) {
    __shared__ float best[1];
    unsigned t = threadIdx.x;
    if (t == 0) best[0] = 0.0f;
    __syncthreads();
    float v = x[t];
    if (v > 0.0f) best[0] = v;
    __syncthreads();
    if (t == 0) out[0] = best[0];
}
