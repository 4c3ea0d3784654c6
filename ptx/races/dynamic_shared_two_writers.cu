// expect: RACE
// why: two `extern __shared__` arrays are one memory: thread t writes a[t] and thread
//   63 - t writes b[t] (= a[t]) with no barrier between, a write-write race on every
//   slot (for t != 63 - t, which always holds with 64 threads).
// launch: block = [64]
// launch: grid = [1]
// launch: dynamic_shared = 256
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void dynamic_shared_two_writers(const float* x, float* out) {
    extern __shared__ float a[];
    extern __shared__ float b[];
    unsigned t = threadIdx.x;
    a[t] = x[t];
    b[63 - t] = 2.0f * x[t];
    __syncthreads();
    out[t] = a[t];
}
