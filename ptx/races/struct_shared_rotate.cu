// expect: RACE
// why: each lane stores its struct into s[t] and then copies s[(t + 1) % 32], the
//   neighbour's struct, with no __syncwarp()/__syncthreads() in between: lane t + 1's
//   store of s[t + 1] and lane t's load of it are unordered (Volta: no implicit
//   warp synchrony).
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32, 3] }
// arg: { tensor = "y", shape = [32, 3], role = "out" }
struct P { float x, y, z; };
extern "C" __global__ void struct_shared_rotate(const P* in, P* out) {
    __shared__ P s[32];
    unsigned t = threadIdx.x;
    s[t] = in[t];
    out[t] = s[(t + 1) % 32];
}
