// expect: RACE
// why: thread t stores s[t] = t and, with no barrier in between, passes s[(t + 1) % 64]
//   (its neighbour's slot) to __syncthreads_count: the neighbour's store and this load
//   are unordered, and the value read decides the count every thread gets.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void syncthreads_count_racy(float* out) {
    __shared__ int s[64];
    unsigned t = threadIdx.x;
    s[t] = t;
    int c = __syncthreads_count(s[(t + 1) % 64] & 1);
    out[t] = (float)c;
}
