// expect: SAFE
// why: a memcpy written as a byte loop: thread i copies the 8 bytes of struct in[i] to
//   out[i]; the byte ranges of different threads are disjoint.
// launch: block = [32]
// launch: grid = [1]
// arg: { tensor = "x", shape = [64] }
// arg: { tensor = "y", shape = [64], role = "out" }
struct P { float a, b; };
extern "C" __global__ void bytewise_copy(const P* in, P* out) {
    unsigned i = threadIdx.x;
    const char* s = (const char*)(in + i);
    char* d = (char*)(out + i);
    for (int k = 0; k < (int)sizeof(P); k++) d[k] = s[k];
}
