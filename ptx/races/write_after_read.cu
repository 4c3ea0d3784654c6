// expect: RACE
// why: write_after_read_barrier without the middle barrier: thread t writes s[t] while
//   thread t - 1 reads s[t] in the same barrier interval (write-after-read race).
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void write_after_read(const float* x, float* out) {
    __shared__ float s[65];
    unsigned t = threadIdx.x;
    s[t] = x[t];
    if (t == 0) s[64] = 0.0f;
    __syncthreads();
    float v = s[t + 1];
    s[t] = v + 1.0f;
    __syncthreads();
    out[t] = s[t];
}
