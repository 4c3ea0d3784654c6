// Bucket sums (a histogram weighted by x): element j of a row goes to bin j % 8, added
// with atomicAdd into a shared array of 8 bins; threads 0..7 write the bins out.
extern "C" __global__ void atomic_hist_bins(const float* x, float* out, int n) {
    __shared__ float hist[8];
    int row = blockIdx.x;
    if (threadIdx.x < 8) hist[threadIdx.x] = 0.0f;
    __syncthreads();
    for (int j = threadIdx.x; j < n; j += blockDim.x) atomicAdd(&hist[j % 8], x[row * n + j]);
    __syncthreads();
    if (threadIdx.x < 8) out[row * 8 + threadIdx.x] = hist[threadIdx.x];
}
