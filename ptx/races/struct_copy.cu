// expect: SAFE
// why: thread i copies the 16-byte struct in[i] to out[i]; structs of different
//   threads do not overlap.
// launch: block = [32]
// launch: grid = [2]
// arg: { tensor = "x", shape = [64, 4] }
// arg: { tensor = "y", shape = [64, 4], role = "out" }
struct P { float x, y, z, w; };
extern "C" __global__ void struct_copy(const P* in, P* out) {
    unsigned i = blockIdx.x * 32 + threadIdx.x;
    out[i] = in[i];
}
