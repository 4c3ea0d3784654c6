// Bug twin of scale.cu: `i <= a.n` lets thread n read x[n] and write y[n], one element
// past the end of both tensors (the pointers come from the struct's fields).
struct Args {
    const float* x;
    float* y;
    float scale;
    int n;
};

extern "C" __global__ void struct_args_past_end(Args a) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= a.n) {
        a.y[i] = a.scale * a.x[i];
    }
}
