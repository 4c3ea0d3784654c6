// y = x + 33, with the 33 made by two copies of one inline-asm block, as libcu++ and
// CuTe DSL emit their wait loops: each copy declares its own predicate P1, its own
// register t and the label DONE. ptxas scopes all three to the copy (a branch goes to
// the DONE of its own block), so raise_to(acc, limit) is max(acc, limit) + 1:
// 30 -> 31 (30 >= 10: the first copy branches to its DONE) -> 33 (31 < 32: raised to
// 32, plus 1). nvdisasm shows the folded constant 33 in the FADD.
// Resolved function-wide, the first copy's `@P1 bra DONE` would reach the second
// copy's DONE and give 30 + 1 = 31.
__device__ __forceinline__ unsigned raise_to(unsigned acc, unsigned limit) {
    asm volatile(
        "{\n\t"
        ".reg .pred P1;\n\t"
        ".reg .u32 t;\n\t"
        "mov.u32 t, %1;\n\t"
        "setp.ge.u32 P1, %0, t;\n\t"
        "@P1 bra DONE;\n\t"
        "mov.u32 %0, t;\n"
        "DONE:\n\t"
        "add.u32 %0, %0, 1;\n\t"
        "}"
        : "+r"(acc)
        : "r"(limit));
    return acc;
}

extern "C" __global__ void scoped_labels_blocks(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned acc = raise_to(30u, 10u);
        acc = raise_to(acc, 32u);
        y[i] = x[i] + (float)acc;
    }
}
