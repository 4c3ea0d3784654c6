// expect: RACE
// why: an in-place smoothing step on global memory: thread i writes a[i] and reads
//   a[i - 1] and a[i + 1], which threads i - 1 and i + 1 write; no barrier separates
//   the reads from the writes (and a barrier would not order other blocks anyway).
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "a", shape = [34], role = "inout" }
extern "C" __global__ void global_stencil_in_place(float* a) {
    unsigned i = threadIdx.x + 1;
    a[i] = 0.25f * a[i - 1] + 0.5f * a[i] + 0.25f * a[i + 1];
}
