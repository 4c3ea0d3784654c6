// expect: RACE
// why: the byte-loop copy copies sizeof(P) + 1 bytes: thread i also writes the first
//   byte of out[i + 1], which thread i + 1 writes too (write-write, unordered). The
//   tensors have one spare float so the last thread stays in bounds.
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [65] }
// arg: { tensor = "y", shape = [65], role = "out" }
struct P { float a, b; };
extern "C" __global__ void bytewise_copy_overrun(const P* in, P* out) {
    unsigned i = threadIdx.x;
    const char* s = (const char*)(in + i);
    char* d = (char*)(out + i);
    for (int k = 0; k < (int)sizeof(P) + 1; k++) d[k] = s[k];
}
