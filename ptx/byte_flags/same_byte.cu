// adjacent with the index halved: threads 2k and 2k+1 both write byte k (a race), and
// the upper half of y is never written.
extern "C" __global__ void byte_flags_same_byte(const float* __restrict__ x, bool* __restrict__ y,
                                                int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i / 2] = x[i] > 0.0f;
    }
}
