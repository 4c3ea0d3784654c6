// Deadlock: the thread holding the lock waits at __syncthreads while the others spin
// on the lock, so the barrier is never reached by every thread.
extern "C" __global__ void atomic_lock_held_at_barrier(const float* x, float* out, int n) {
    __shared__ int lock;
    __shared__ float total;
    int row = blockIdx.x;
    if (threadIdx.x == 0) { lock = 0; total = 0.0f; }
    __syncthreads();
    float v = x[row * n + threadIdx.x];
    while (atomicCAS(&lock, 0, 1) != 0) {}
    __threadfence_block();
    total = total + v;
    __syncthreads();
    __threadfence_block();
    atomicExch(&lock, 0);
    __syncthreads();
    if (threadIdx.x == 0) out[row] = total;
}
