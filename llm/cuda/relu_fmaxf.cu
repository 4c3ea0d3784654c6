// ReLU with fmaxf.
extern "C" __global__ void relu_fmaxf(const float* __restrict__ input, float* __restrict__ output, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) output[i] = fmaxf(input[i], 0.0f);
}
