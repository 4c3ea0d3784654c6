// softplus as LLM-written benchmark kernels often have it: log(1 + exp(x)), no threshold.
// PyTorch returns x where x > 20; this returns inf for every x above ~88.7.
extern "C" __global__ void softplus_naive(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = logf(1.0f + expf(x[i]));
    }
}
