// expect: SAFE
// why: two views of one tensor that do not overlap: lo = a reads [0, n), hi = a + n
//   writes [n, 2n); each element is read by one thread or written by one thread.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "a", shape = [128], role = "inout" }
// arg: 64
extern "C" __global__ void alias_halves(float* a, int n) {
    unsigned t = threadIdx.x;
    const float* lo = a;
    float* hi = a + n;
    hi[t] = lo[t] + 1.0f;
}
