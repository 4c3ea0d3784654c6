// expect: SAFE
// why: lanes 0..15 shuffle with mask 0x0000ffff and width 16: every lane named in the mask
//   executes the shuffle, and lane l reads lane l + 8 only when l + 8 < 16 (the others
//   keep their own value), so no lane reads an inactive lane; no shared memory is used.
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [32] }
// arg: { tensor = "out", shape = [32], role = "out" }
extern "C" __global__ void shfl_half_mask(const float* x, float* out) {
    unsigned t = threadIdx.x;
    float v = x[t];
    if (t < 16) v += __shfl_down_sync(0x0000ffffu, v, 8, 16);
    out[t] = v;
}
