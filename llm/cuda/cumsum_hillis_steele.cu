// Cumulative sum over dim 1: one block per row (cols == blockDim), Hillis-Steele scan with
// a double buffer.
extern "C" __global__ void cumsum_hillis_steele(const float* x, float* y, int rows, int cols) {
    __shared__ float buf[2][64];
    int row = blockIdx.x, tid = threadIdx.x;
    int pout = 0, pin = 1;
    buf[pout][tid] = x[row * cols + tid];
    __syncthreads();
    for (int off = 1; off < cols; off *= 2) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (tid >= off) buf[pout][tid] = buf[pin][tid] + buf[pin][tid - off];
        else buf[pout][tid] = buf[pin][tid];
        __syncthreads();
    }
    y[row * cols + tid] = buf[pout][tid];
}
