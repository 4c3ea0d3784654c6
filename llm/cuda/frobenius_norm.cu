// x / ||x||_F: one block, grid-stride sum of squares, tree, then divide.
extern "C" __global__ void frobenius_norm(const float* x, float* y, int n) {
    __shared__ float s[256];
    int tid = threadIdx.x;
    float acc = 0.0f;
    for (int i = tid; i < n; i += blockDim.x) acc += x[i] * x[i];
    s[tid] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    float norm = sqrtf(s[0]);
    for (int i = tid; i < n; i += blockDim.x) y[i] = x[i] / norm;
}
