// Cosine similarity per row dividing by ||a|| * ||b|| + eps.
extern "C" __global__ void cosine_sim_eps_sum(const float* a, const float* b, float* out, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float dot = 0.0f, na = 0.0f, nb = 0.0f;
        for (int j = 0; j < cols; j++) {
            float u = a[row * cols + j], v = b[row * cols + j];
            dot += u * v;
            na += u * u;
            nb += v * v;
        }
        out[row] = dot / (sqrtf(na) * sqrtf(nb) + 1e-8f);
    }
}
