// expect: RACE
// why: thread 0 initialises the counter with a plain store c = 0 and thread 3 does
//   atomicAdd(&c, 1) with no barrier between: the plain store and the atomic conflict.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "out", shape = [1], role = "out" }
extern "C" __global__ void atomic_count_init_race(float* out) {
    __shared__ int c;
    unsigned t = threadIdx.x;
    if (t == 0) c = 0;
    if (t % 3 == 0) atomicAdd(&c, 1);
    __syncthreads();
    if (t == 0) out[0] = (float)c;
}
