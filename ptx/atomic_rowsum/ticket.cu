// Each thread takes a ticket from a shared counter (atomicAdd's returned old value)
// and parks its partial sum in the slot it got; thread 0 adds the slots. Correct for
// every order, but the slot a thread gets depends on the order threads reach the
// atomic.
extern "C" __global__ void atomic_rowsum_ticket(const float* x, float* out, int n) {
    __shared__ unsigned int count;
    __shared__ float part[32];
    int row = blockIdx.x;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    float acc = 0.0f;
    for (int j = threadIdx.x; j < n; j += blockDim.x) acc += x[row * n + j];
    unsigned int slot = atomicAdd(&count, 1u);
    part[slot] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int k = 0; k < 32; k++) s += part[k];
        out[row] = s;
    }
}
