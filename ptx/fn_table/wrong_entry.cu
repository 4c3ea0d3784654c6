// The twin of by_param: the table lists the functions the other way round, so op = 1
// calls sq where neg was meant.
__device__ __noinline__ float sq(float v) { return v * v; }
__device__ __noinline__ float neg(float v) { return -v; }
__device__ float (*ops[2])(float) = {neg, sq};

extern "C" __global__ void fn_table_wrong_entry(const float* __restrict__ x, float* __restrict__ y, int op, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = ops[op](x[i]);
    }
}
