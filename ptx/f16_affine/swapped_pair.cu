// plain reading x[i ^ 1]: neighbouring elements swapped (each half2 word read the
// other way round).
#include <cuda_fp16.h>
extern "C" __global__ void f16_affine_swapped_pair(const __half* __restrict__ x,
                                                   __half* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (i ^ 1) < n) {
        y[i] = __float2half(2.0f * __half2float(x[i ^ 1]) + 1.0f);
    }
}
