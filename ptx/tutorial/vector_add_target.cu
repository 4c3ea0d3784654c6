// race: SAFE
// check: VERIFIED
// spec: c = a + b
// why: vector add, one thread per element with a tail guard; NV_IF_TARGET picks the
//   sm_80 branch at compile time (compute_80), which adds.
// launch: block = [128]
// launch: grid = ["cdiv(N, 128)"]
// launch: sizes = { N = 200 }
// arg: { tensor = "a", shape = ["N"] }
// arg: { tensor = "b", shape = ["N"] }
// arg: { tensor = "c", shape = ["N"], role = "out" }
// arg: "N"
#include <nv/target>

extern "C" __global__ void vector_add_target(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        NV_IF_TARGET(NV_PROVIDES_SM_80,
                     (c[i] = a[i] + b[i];),
                     (c[i] = a[i] - b[i];))
    }
}
