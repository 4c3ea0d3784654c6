// expect: SAFE
// why: each thread fills and reads its own local array (per-thread memory, never
//   shared), then writes its own out[i].
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32, 4] }
// arg: { tensor = "out", shape = [32], role = "out" }
// arg: 2
extern "C" __global__ void local_array(const float* x, float* out, int k) {
    float r[4];
    unsigned t = threadIdx.x;
    for (int j = 0; j < 4; j++) r[j] = x[t * 4 + j];
    out[t] = r[k] + r[(k + 1) % 4];
}
