// expect: SAFE
// why: thread 2k writes s[k].a and thread 2k + 1 writes s[k].b: different bytes of one
//   struct. After __syncthreads() each thread reads the other field.
// launch: block = [64]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "y", shape = [64], role = "out" }
struct P { float a, b; };
extern "C" __global__ void struct_fields_split(const float* x, float* y) {
    __shared__ P s[32];
    unsigned t = threadIdx.x;
    if (t & 1) s[t / 2].b = x[t]; else s[t / 2].a = x[t];
    __syncthreads();
    y[t] = (t & 1) ? s[t / 2].a : s[t / 2].b;
}
