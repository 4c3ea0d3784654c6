// expect: SAFE
// why: struct_shared_rotate with __syncthreads() between the stores of s[t] and the
//   loads of s[(t + 1) % 32]: every store is ordered before every load.
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32, 3] }
// arg: { tensor = "y", shape = [32, 3], role = "out" }
struct P { float x, y, z; };
extern "C" __global__ void struct_shared_rotate_sync(const P* in, P* out) {
    __shared__ P s[32];
    unsigned t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[(t + 1) % 32];
}
