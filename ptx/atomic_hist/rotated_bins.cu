// Wrong twin of `bins`: element j goes to bin (j + 1) % 8.
extern "C" __global__ void atomic_hist_rotated_bins(const float* x, float* out, int n) {
    __shared__ float hist[8];
    int row = blockIdx.x;
    if (threadIdx.x < 8) hist[threadIdx.x] = 0.0f;
    __syncthreads();
    for (int j = threadIdx.x; j < n; j += blockDim.x)
        atomicAdd(&hist[(j + 1) % 8], x[row * n + j]);
    __syncthreads();
    if (threadIdx.x < 8) out[row * 8 + threadIdx.x] = hist[threadIdx.x];
}
