// y = x + 33 from one inline-asm block whose nested block declares the same label X
// and the same predicate q as the outer one. ptxas resolves a branch to the label of
// the innermost enclosing block that declares it, and a register declared in a block
// shadows the outer one:
//   outer q = (acc == 0), true for acc = 0;
//   inner block: X: acc += 10 while acc < 30 (its own q, its own X) -> acc = 30;
//   outer `@q bra X` (outer q, outer X) skips the + 100; X: acc += 3 -> 33.
// nvdisasm shows the folded constant 33 in the FADD. Resolving the inner branch to the
// outer X would give 10 + 3 = 13; letting the inner q leak out would give 133.
__device__ __forceinline__ unsigned nested_count(unsigned acc) {
    asm volatile(
        "{\n\t"
        ".reg .pred q;\n\t"
        "setp.eq.u32 q, %0, 0;\n\t"
        "{\n\t"
        ".reg .pred q;\n"
        "X:\n\t"
        "add.u32 %0, %0, 10;\n\t"
        "setp.lt.u32 q, %0, 30;\n\t"
        "@q bra X;\n\t"
        "}\n\t"
        "@q bra X;\n\t"
        "add.u32 %0, %0, 100;\n"
        "X:\n\t"
        "add.u32 %0, %0, 3;\n\t"
        "}"
        : "+r"(acc));
    return acc;
}

extern "C" __global__ void scoped_labels_nested(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned acc = nested_count(0u);
        y[i] = x[i] + (float)acc;
    }
}
