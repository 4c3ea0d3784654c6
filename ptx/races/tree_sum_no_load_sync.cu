// expect: RACE
// why: the tree sum without the barrier after the initial load. Thread 64 stores s[64]
//   (its element of x) and thread 0 reads s[64] in the first step (stride 64); no
//   barrier orders the store before the read.
// launch: block = [128]
// launch: grid = ["B"]
// launch: sizes = { B = 2 }
// arg: { tensor = "x", shape = ["B", 128] }
// arg: { tensor = "out", shape = ["B"], role = "out" }
extern "C" __global__ void tree_sum_no_load_sync(const float* x, float* out) {
    __shared__ float s[128];
    unsigned t = threadIdx.x;
    s[t] = x[blockIdx.x * 128 + t];
    for (unsigned k = 64; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
