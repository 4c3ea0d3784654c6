import os; os.environ["TRITON_DEFAULT_FP_FUSION"]="0"
import triton, triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.language.extra import libdevice

def comp(name, fn, sig, consts):
    try:
        c = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=consts), target=GPUTarget("cuda", 80, 32))
    except Exception as e:
        print("FAIL", name, str(e)[-300:]); return
    open(f"/tmp/ttgen/{name}.ttir","w").write(c.asm["ttir"])
    print("ok", name)

@triton.jit
def elem(y_ptr, x_ptr, n, a, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=-float('inf'))
    y = tl.exp(x) + tl.log(x) + tl.sqrt(x) + tl.rsqrt(x) + tl.sin(x) + tl.cos(x) + tl.abs(x) + tl.exp2(x)
    y = tl.maximum(y, x) + tl.minimum(y, 0.044715)
    y = tl.where(x > 0, y, a)
    y = y + libdevice.tanh(x) + libdevice.pow(x, 3) + libdevice.erf(x)
    z = y.to(tl.float16).to(tl.float32)
    i = x.to(tl.int32).to(tl.int64).to(tl.float32)
    t = tl.full((BLOCK,), 2.5, tl.float32)
    y = z + i + t + tl.fma(x, y, z)
    tl.store(y_ptr + offs, y, mask=m)
comp("elem", elem, {"y_ptr":"*fp32","x_ptr":"*fp32","n":"i32","a":"fp32","BLOCK":"constexpr"}, {"BLOCK":4})

@triton.jit
def rowred(y_ptr, i_ptr, c_ptr, x_ptr, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    x = tl.load(x_ptr + row*stride + cols, mask=m, other=-float('inf'), cache_modifier=".cg") + tl.load(x_ptr + cols, eviction_policy="evict_last")
    mx = tl.max(x, axis=0)
    e = tl.exp(x - mx)
    s = tl.sum(e, axis=0)
    am = tl.argmax(x, axis=0)
    cs = tl.cumsum(e, axis=0)
    tl.store(y_ptr + row*stride + cols, e / s, mask=m)
    tl.store(i_ptr + row, am)
    tl.store(c_ptr + row*stride + cols, cs, mask=m)
comp("rowred", rowred, {"y_ptr":"*fp32","i_ptr":"*i32","c_ptr":"*fp32","x_ptr":"*fp32","stride":"i32","N":"i32","BLOCK":"constexpr"}, {"BLOCK":8})

@triton.jit
def red2d(y_ptr, x_ptr, s0, s1, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)[:, None]
    rn = tl.arange(0, BN)[None, :]
    x = tl.load(x_ptr + rm*s0 + rn*s1, mask=(rm < M) & (rn < N), other=0.0, volatile=True)
    xt = tl.trans(x)
    r = tl.reshape(xt, (BM*BN,))
    r2 = tl.reshape(r, (BN, BM))
    s = tl.sum(r2, axis=1)
    tl.store(y_ptr + tl.arange(0, BN), s)
comp("red2d", red2d, {"y_ptr":"*fp32","x_ptr":"*fp32","s0":"i32","s1":"i32","M":"i32","N":"i32","BM":"constexpr","BN":"constexpr"}, {"BM":4,"BN":8})

@triton.jit
def mm(c_ptr, a_ptr, b_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn, B: tl.constexpr):
    pm = tl.program_id(0); pn = tl.program_id(1)
    rm = pm*B + tl.arange(0, B); rn = pn*B + tl.arange(0, B); rk = tl.arange(0, B)
    acc = tl.zeros((B, B), dtype=tl.float32)
    for k in range(0, K, B):
        a = tl.load(a_ptr + rm[:, None]*sam + (k+rk)[None, :]*sak)
        b = tl.load(b_ptr + (k+rk)[:, None]*sbk + rn[None, :]*sbn)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None]*scm + rn[None, :]*scn, acc.to(tl.float16))
comp("mm", mm, {"c_ptr":"*fp16","a_ptr":"*fp16","b_ptr":"*fp16","M":"i32","N":"i32","K":"i32","sam":"i32","sak":"i32","sbk":"i32","sbn":"i32","scm":"i32","scn":"i32","B":"constexpr"}, {"B":16})

@triton.jit
def ctrl(y_ptr, x_ptr, n, flag):
    x = tl.load(x_ptr)
    if flag > 0:
        r = x * 2.0
    else:
        r = x - 1.0
    i = 0
    while i < n:
        r = r * 0.5
        i += 1
    for j in range(n):
        r = r + j
    tl.store(y_ptr, r)
comp("ctrl", ctrl, {"y_ptr":"*fp32","x_ptr":"*fp32","n":"i32","flag":"i32"}, {})

@triton.jit
def casts(y_ptr, x_ptr, i_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    h = x.to(tl.bfloat16)
    i = tl.load(i_ptr + offs)
    j = i.to(tl.int8).to(tl.int64)
    k = (j + n).to(tl.float32)
    u = x.to(tl.int32, bitcast=True)
    v = (u ^ 0x7FFFFFFF).to(tl.float32, bitcast=True)
    f8 = x.to(tl.float8e5)
    tl.store(y_ptr + offs, h.to(tl.float32) + k + v + f8.to(tl.float32) + x.to(tl.float64).to(tl.float32))
comp("casts", casts, {"y_ptr":"*fp32","x_ptr":"*fp32","i_ptr":"*i32","n":"i64","BLOCK":"constexpr"}, {"BLOCK":4})
