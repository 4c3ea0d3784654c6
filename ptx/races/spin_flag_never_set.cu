// expect: DEADLOCK
// why: thread 0 spins until the shared flag is 1, but the only write to it stores 0
//   (before the barrier): the loop never ends and the kernel hangs. While thread 0
//   spins no other thread runs, so nothing it reads can change; lift must switch
//   threads and report the hang, not run thread 0 to the instruction cap.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "y", shape = [64], role = "out" }
extern "C" __global__ void spin_flag_never_set(float* y) {
    __shared__ volatile int flag;
    if (threadIdx.x == 0) {
        flag = 0;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        while (flag != 1) {
        }
    }
    y[threadIdx.x] = 1.0f;
}
