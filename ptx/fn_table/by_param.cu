// A call through a __device__ function-pointer table indexed by a kernel argument:
// the launch passes op = 1, so every thread calls neg.
__device__ __noinline__ float sq(float v) { return v * v; }
__device__ __noinline__ float neg(float v) { return -v; }
__device__ float (*ops[2])(float) = {sq, neg};

extern "C" __global__ void fn_table_by_param(const float* __restrict__ x, float* __restrict__ y, int op, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = ops[op](x[i]);
    }
}
