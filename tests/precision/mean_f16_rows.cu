// A row mean with its running sum in half precision (one thread per row): on the GPU
// the sum stops growing at 2048, so a row of 4096 ones averages 0.5.
#include <cuda_fp16.h>
extern "C" __global__ void mean_f16_rows(const __half* __restrict__ x, __half* __restrict__ y,
                                         int m, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m) {
        __half acc = __float2half(0.0f);
        for (int j = 0; j < n; ++j) {
            acc = __hadd(acc, x[row * n + j]);
        }
        y[row] = __float2half(__half2float(acc) / (float)n);
    }
}
