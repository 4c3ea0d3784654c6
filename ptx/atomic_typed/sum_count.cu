// 64-bit atomics on typed global tensors: a float64 sum (atom.global.add.f64) and a
// uint64 count (atom.global.add.u64), each a one-element tensor thread 0 zeroes first.
extern "C" __global__ void atomic_typed_sum_count(const double* __restrict__ x,
                                                  double* __restrict__ y,
                                                  unsigned long long* __restrict__ c, int n) {
    int i = threadIdx.x;
    if (i == 0) {
        y[0] = 0.0;
        c[0] = 0;
    }
    __syncthreads();
    if (i < n) {
        atomicAdd(y, x[i]);
        atomicAdd(c, 1ULL);
    }
}
