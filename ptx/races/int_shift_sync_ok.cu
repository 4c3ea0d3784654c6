// expect: SAFE
// why: int_shift_race with the read and the write split by __syncthreads(): every
//   thread reads a[i + 1] before any thread writes a[i] (one block). The launch gives
//   no dtype: integer data in a tensor read as float32 changes nothing about the
//   addresses.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "a", shape = [65], role = "inout" }
extern "C" __global__ void int_shift_sync_ok(int* a) {
    unsigned i = threadIdx.x;
    int v = a[i + 1] + 1;
    __syncthreads();
    a[i] = v;
}
