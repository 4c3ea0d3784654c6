// Row sum: each thread sums a strided slice of its row in a register, then adds it
// into out[row] with atomicAdd (thread 0 zeroes out[row] first, one CTA per row).
extern "C" __global__ void atomic_rowsum_partial(const float* x, float* out, int n) {
    int row = blockIdx.x;
    if (threadIdx.x == 0) out[row] = 0.0f;
    __syncthreads();
    float acc = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) acc += x[row * n + j];
    atomicAdd(&out[row], acc);
}
