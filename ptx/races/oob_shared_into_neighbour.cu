// expect: OUT OF BOUNDS
// why: a[] has 32 floats and the block 64 threads: threads 32..63 store a[32..63],
//   past the end of a (wherever the compiler puts b, indexing a beyond its 32 elements
//   is out of bounds).
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void oob_shared_into_neighbour(const float* x, float* out) {
    __shared__ float a[32];
    __shared__ float b[32];
    unsigned t = threadIdx.x;
    a[t] = x[t];
    __syncthreads();
    if (t < 32) b[t] = 2.0f * a[t];
    __syncthreads();
    out[t] = b[t % 32];
}
