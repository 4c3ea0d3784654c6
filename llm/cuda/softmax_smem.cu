// Softmax over the last dim: one block per row, shared-memory trees, -FLT_MAX seed.
#define FLT_MAX 3.402823466e+38f
extern "C" __global__ void softmax_smem(const float* input, float* output, int rows, int cols) {
    __shared__ float sdata[256];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    const float* x = input + row * cols;
    float* y = output + row * cols;
    float max_val = -FLT_MAX;
    for (int i = tid; i < cols; i += blockDim.x) max_val = fmaxf(max_val, x[i]);
    sdata[tid] = max_val;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] = fmaxf(sdata[tid], sdata[tid + s]);
        __syncthreads();
    }
    max_val = sdata[0];
    __syncthreads();
    float sum = 0.0f;
    for (int i = tid; i < cols; i += blockDim.x) sum += expf(x[i] - max_val);
    sdata[tid] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    sum = sdata[0];
    for (int i = tid; i < cols; i += blockDim.x) y[i] = expf(x[i] - max_val) / sum;
}
