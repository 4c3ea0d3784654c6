// Integer tensors: y[i] = a[i] + b[i] with a, b int16 widened to an int32 output
// (ld.global.u16, cvt.s32.s16, add.s32, st.global.u32): exact integer arithmetic.
extern "C" __global__ void int_add_widen(const short* __restrict__ a, const short* __restrict__ b,
                                         int* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = (int)a[i] + (int)b[i];
    }
}
