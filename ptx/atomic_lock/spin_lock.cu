// Row sum through a critical section: a shared spin lock (atomicCAS to take it,
// atomicExch to give it back, __threadfence_block() after taking and before giving
// back) protects a plain read-modify-write of the shared accumulator.
extern "C" __global__ void atomic_lock_spin_lock(const float* x, float* out, int n) {
    __shared__ int lock;
    __shared__ float total;
    int row = blockIdx.x;
    if (threadIdx.x == 0) { lock = 0; total = 0.0f; }
    __syncthreads();
    float v = x[row * n + threadIdx.x];
    while (atomicCAS(&lock, 0, 1) != 0) {}
    __threadfence_block();
    total = total + v;
    __threadfence_block();
    atomicExch(&lock, 0);
    __syncthreads();
    if (threadIdx.x == 0) out[row] = total;
}
