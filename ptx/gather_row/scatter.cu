// The inverse of row.cu, a scatter: y[t[r]] = x[r, 0]. A store at an address computed
// from a loaded label is not split over the labels (only loads are): lift says so.
extern "C" __global__ void gather_row_scatter(const float* __restrict__ x,
                                             const long long* __restrict__ t,
                                             float* __restrict__ y, int m, int n) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= m) return;
    y[t[r]] = x[(long long)r * n];
}
