// expect: RACE
// why: aliasing inside the kernel: b = a + 1, thread t writes b[t] = a[t + 1] and
//   thread t + 1 reads a[t + 1]; the two accesses to one element are unordered.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "a", shape = [65], role = "inout" }
extern "C" __global__ void alias_offset_pointer(float* a) {
    unsigned t = threadIdx.x;
    float* b = a + 1;
    b[t] = 2.0f * a[t];
}
