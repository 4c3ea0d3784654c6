// expect: OUT OF BOUNDS
// why: thread t stores b[t - 1]: thread 0 stores b[-1], before the start of b (wherever
//   the compiler puts the other array a, indexing b at -1 is out of bounds).
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32] }
// arg: { tensor = "out", shape = [32], role = "out" }
extern "C" __global__ void oob_shared_underrun(const float* x, float* out) {
    __shared__ float a[32];
    __shared__ float b[32];
    int t = threadIdx.x;
    a[t] = x[t];
    b[t - 1] = x[t];
    __syncthreads();
    out[t] = a[t] + b[t];
}
