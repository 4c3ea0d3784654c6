// expect: RACE
// why: atomic_shared_count without the second barrier: thread 0's plain read of c and
//   thread 3's atomicAdd on c are unordered; an atomic races with a plain access.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "out", shape = [1], role = "out" }
extern "C" __global__ void atomic_count_read_early(float* out) {
    __shared__ int c;
    unsigned t = threadIdx.x;
    if (t == 0) c = 0;
    __syncthreads();
    if (t % 3 == 0) atomicAdd(&c, 1);
    if (t == 0) out[0] = (float)c;
}
