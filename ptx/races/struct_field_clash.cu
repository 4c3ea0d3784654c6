// expect: RACE
// why: threads 2k and 2k + 1 both write s[k].a (the field index ignores t's low bit):
//   a write-write conflict on the same 4 bytes with no barrier between.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "y", shape = [64], role = "out" }
struct P { float a, b; };
extern "C" __global__ void struct_field_clash(const float* x, float* y) {
    __shared__ P s[32];
    unsigned t = threadIdx.x;
    s[t / 2].a = x[t];
    s[t / 2].b = 0.0f;
    __syncthreads();
    y[t] = s[t / 2].a + s[t / 2].b;
}
