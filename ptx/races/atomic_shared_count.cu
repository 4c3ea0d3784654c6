// expect: SAFE
// why: thread 0 zeroes the shared counter, __syncthreads(), every third thread does
//   atomicAdd(&c, 1) (atomics never race with each other), __syncthreads(), thread 0
//   reads c: each plain access is separated from every atomic by a barrier.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "out", shape = [1], role = "out" }
extern "C" __global__ void atomic_shared_count(float* out) {
    __shared__ int c;
    unsigned t = threadIdx.x;
    if (t == 0) c = 0;
    __syncthreads();
    if (t % 3 == 0) atomicAdd(&c, 1);
    __syncthreads();
    if (t == 0) out[0] = (float)c;
}
