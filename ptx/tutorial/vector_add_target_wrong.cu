// race: SAFE
// check: REFUTED
// spec: c = a + b
// why: wrong twin of vector_add_target: the branches are swapped, so on compute_80
//   the kernel subtracts (memory-safe, wrong value).
// launch: block = [128]
// launch: grid = ["cdiv(N, 128)"]
// launch: sizes = { N = 200 }
// arg: { tensor = "a", shape = ["N"] }
// arg: { tensor = "b", shape = ["N"] }
// arg: { tensor = "c", shape = ["N"], role = "out" }
// arg: "N"
#include <nv/target>

extern "C" __global__ void vector_add_target_wrong(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        NV_IF_TARGET(NV_PROVIDES_SM_80,
                     (c[i] = a[i] - b[i];),
                     (c[i] = a[i] + b[i];))
    }
}
