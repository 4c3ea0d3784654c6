// LogSoftmax over dim 1: one block per row, shared trees.
#define FLT_MAX 3.402823466e+38f
extern "C" __global__ void log_softmax(const float* x, float* y, int rows, int cols) {
    extern __shared__ float buf[];
    int row = blockIdx.x, tid = threadIdx.x;
    float m = -FLT_MAX;
    for (int j = tid; j < cols; j += blockDim.x) {
        float v = x[row * cols + j];
        if (v > m) m = v;
    }
    buf[tid] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s && buf[tid + s] > buf[tid]) buf[tid] = buf[tid + s];
        __syncthreads();
    }
    float row_max = buf[0];
    __syncthreads();
    float acc = 0.0f;
    for (int j = tid; j < cols; j += blockDim.x) acc += expf(x[row * cols + j] - row_max);
    buf[tid] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) buf[tid] += buf[tid + s];
        __syncthreads();
    }
    float lse = logf(buf[0]) + row_max;
    for (int j = tid; j < cols; j += blockDim.x) y[row * cols + j] = x[row * cols + j] - lse;
}
