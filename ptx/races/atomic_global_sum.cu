// expect: SAFE
// why: every thread of both blocks does atomicAdd(&out[0], x[i]); atomics never race
//   with each other, and nothing else touches out[0].
// launch: block = [64]
// launch: grid = [2]
// arg: { tensor = "x", shape = [128] }
// arg: { tensor = "out", shape = [1], role = "inout" }
extern "C" __global__ void atomic_global_sum(const float* x, float* out) {
    unsigned i = blockIdx.x * 64 + threadIdx.x;
    atomicAdd(&out[0], x[i]);
}
