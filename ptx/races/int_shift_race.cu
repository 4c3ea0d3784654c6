// expect: RACE
// why: integer data, GPUVerify style: thread i reads a[i + 1] and thread i + 1 writes
//   a[i + 1] (a[i] = a[i + 1] + 1), with nothing ordering them. The launch gives no
//   dtype: the race is in the addresses, whatever the elements hold.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "a", shape = [65], role = "inout" }
extern "C" __global__ void int_shift_race(int* a) {
    unsigned i = threadIdx.x;
    a[i] = a[i + 1] + 1;
}
