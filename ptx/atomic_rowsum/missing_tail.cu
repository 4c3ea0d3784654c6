// Wrong twin of `partial`: the loop stops one element early (j < n - 1), so the last
// element of each row is never added.
extern "C" __global__ void atomic_rowsum_missing_tail(const float* x, float* out, int n) {
    int row = blockIdx.x;
    if (threadIdx.x == 0) out[row] = 0.0f;
    __syncthreads();
    float acc = 0.0f;
    for (int j = threadIdx.x; j < n - 1; j += blockDim.x) acc += x[row * n + j];
    atomicAdd(&out[row], acc);
}
