// expect: RACE
// why: only block 1 races: its threads 0 and 1 both store s[0] with no barrier between
//   (block 0 never touches s). A checker that looked at the first block alone would
//   miss it.
// launch: block = [32]
// launch: grid = [2]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "out", shape = [64], role = "out" }
extern "C" __global__ void race_in_second_block(const float* x, float* out) {
    __shared__ float s[1];
    unsigned t = threadIdx.x, i = blockIdx.x * 32 + t;
    if (blockIdx.x == 1 && t < 2) s[0] = x[i];
    __syncthreads();
    out[i] = blockIdx.x == 1 ? s[0] : x[i];
}
