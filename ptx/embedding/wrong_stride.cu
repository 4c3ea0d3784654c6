// lookup.cu with the table's row stride off by one: w[ids[i] * (d - 1) + j], which stays
// inside w but reads the wrong elements.
extern "C" __global__ void embedding_wrong_stride(const long long* __restrict__ ids,
                                                 const float* __restrict__ w,
                                                 float* __restrict__ out, int l, int d) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= l * d) return;
    int row = i / d, col = i % d;
    out[i] = w[ids[row] * (d - 1) + col];
}
