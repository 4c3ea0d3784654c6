// y = scale * x with every argument, the tensor pointers included, in one struct passed
// by value (issue 19, item 6): `.param .align 8 .b8 ..._param_0[24]`, fields at byte
// offsets 0 (x), 8 (y), 16 (scale), 20 (n).
struct Args {
    const float* x;
    float* y;
    float scale;
    int n;
};

extern "C" __global__ void struct_args_scale(Args a) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.n) {
        a.y[i] = a.scale * a.x[i];
    }
}
