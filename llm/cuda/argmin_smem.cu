// Argmin over dim 1: one block per row, shared (value, index) tree, lower index on ties.
#define FLT_MAX 3.402823466e+38f
extern "C" __global__ void argmin_smem(const float* x, long long* out, int rows, int cols) {
    __shared__ float sv[128];
    __shared__ int si[128];
    int row = blockIdx.x, tid = threadIdx.x;
    float best = FLT_MAX;
    int bi = 0;
    for (int j = tid; j < cols; j += blockDim.x) {
        float v = x[row * cols + j];
        if (v < best) { best = v; bi = j; }
    }
    sv[tid] = best;
    si[tid] = bi;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            float o = sv[tid + s];
            int oi = si[tid + s];
            if (o < sv[tid] || (o == sv[tid] && oi < si[tid])) { sv[tid] = o; si[tid] = oi; }
        }
        __syncthreads();
    }
    if (tid == 0) out[row] = si[0];
}
