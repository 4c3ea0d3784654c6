// expect: RACE
// why: thread 0 of every block stores out[0] (each its own block index): two blocks
//   write one global element, and nothing orders different blocks.
// launch: block = [32]
// launch: grid = [2]
// arg: { tensor = "out", shape = [1], role = "out" }
extern "C" __global__ void blocks_same_element(float* out) {
    if (threadIdx.x == 0) out[0] = (float)blockIdx.x;
}
