// expect: SAFE
// why: libcu++'s cuda::memcpy_async with a block-scoped cuda::barrier (NVRTC at sm_90:
//   a cp.async.bulk that completes its 512 bytes on the barrier's mbarrier, and an
//   expect_tx of 512 bytes): thread 0 starts the copy, every thread arrives and waits
//   (arrive_and_wait), and the phase completes only once all 128 threads arrived and
//   all 512 bytes landed, so every read of the tile follows the copy.
// launch: block = [128]
// launch: grid = ["B"]
// launch: sizes = { B = 2 }
// arg: { tensor = "x", shape = ["B", 128], role = "in" }
// arg: { tensor = "y", shape = ["B", 128], role = "out" }
#include <cuda/barrier>
#pragma nv_diag_suppress static_var_with_dynamic_init

extern "C" __global__ void barrier_copy(const float* x, float* y) {
    __shared__ alignas(16) float tile[128];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        cuda::memcpy_async(tile, x + blockIdx.x * 128, cuda::aligned_size_t<16>(sizeof(tile)), bar);
    }
    bar.arrive_and_wait();
    const float v = tile[127 - threadIdx.x];
    y[blockIdx.x * 128 + threadIdx.x] = v;
}
