// expect: OUT OF BOUNDS
// why: a stencil that reads x[i - 1] without a guard: thread 0 reads x[-1].
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void oob_left_neighbour(const float* x, float* out) {
    int i = threadIdx.x;
    out[i] = x[i] - x[i - 1];
}
