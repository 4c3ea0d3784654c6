// Sum over dim 1, one thread per row, float4 loads then a scalar tail.
extern "C" __global__ void rowsum_float4(const float* x, float* out, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        const float4* v = reinterpret_cast<const float4*>(x + row * cols);
        float s = 0.0f;
        int n4 = cols / 4;
        for (int j = 0; j < n4; j++) {
            float4 q = v[j];
            s += q.x + q.y + q.z + q.w;
        }
        for (int j = n4 * 4; j < cols; j++) s += x[row * cols + j];
        out[row] = s;
    }
}
