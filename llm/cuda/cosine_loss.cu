// Cosine similarity loss: mean over rows of 1 - cos(a, b), eps clamps on each norm.
extern "C" __global__ void cosine_loss(const float* a, const float* b, float* out, int rows, int cols) {
    __shared__ float s[64];
    int tid = threadIdx.x;
    float c = 0.0f;
    if (tid < rows) {
        float dot = 0.0f, na = 0.0f, nb = 0.0f;
        for (int j = 0; j < cols; j++) {
            float u = a[tid * cols + j], v = b[tid * cols + j];
            dot += u * v;
            na += u * u;
            nb += v * v;
        }
        const float eps = 1e-8f;
        c = 1.0f - dot / (fmaxf(sqrtf(na), eps) * fmaxf(sqrtf(nb), eps));
    }
    s[tid] = c;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[0] = s[0] / rows;
}
