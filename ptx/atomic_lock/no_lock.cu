// Racy twin of `spin_lock`: the lock is removed, every thread does the plain
// read-modify-write of the shared accumulator at once.
extern "C" __global__ void atomic_lock_no_lock(const float* x, float* out, int n) {
    __shared__ float total;
    int row = blockIdx.x;
    if (threadIdx.x == 0) total = 0.0f;
    __syncthreads();
    float v = x[row * n + threadIdx.x];
    total = total + v;
    __syncthreads();
    if (threadIdx.x == 0) out[row] = total;
}
