// Online softmax, one thread per row.
#define INFINITY __int_as_float(0x7f800000)
extern "C" __global__ void softmax_online(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float m = -INFINITY, d = 0.0f;
        for (int j = 0; j < cols; j++) {
            float v = x[row * cols + j];
            float m_new = fmaxf(m, v);
            d = d * expf(m - m_new) + expf(v - m_new);
            m = m_new;
        }
        for (int j = 0; j < cols; j++) y[row * cols + j] = expf(x[row * cols + j] - m) / d;
    }
}
