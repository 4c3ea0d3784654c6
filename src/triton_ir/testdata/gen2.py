import os; os.environ["TRITON_DEFAULT_FP_FUSION"]="0"
import triton, triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

def comp(name, fn, sig, consts):
    src = ASTSource(fn=fn, signature=sig, constexprs=consts)
    target = GPUTarget("cuda", 80, 32)
    try:
        from triton.compiler.compiler import make_backend
        backend = make_backend(target)
        opts = backend.parse_options({})
        import triton._C.libtriton as lt
        ctx = lt.ir.context(); lt.ir.load_dialects(ctx); backend.load_dialects(ctx)
        codegen_fns = backend.get_codegen_implementation(opts)
        module_map = backend.get_module_map()
        m = src.make_ir(target, opts, codegen_fns, module_map, ctx)
        stages = {}
        backend.add_stages(stages, opts, src.language)
        m2 = stages["ttir"](m, {})
        open(f"/tmp/ttgen/{name}.ttir","w").write(str(m2))
        print("ok", name)
    except Exception as e:
        import traceback; traceback.print_exc()
        print("FAIL", name, str(e)[-300:])

@triton.jit(noinline=True)
def helper(x, y):
    return x * y + 1.0

@triton.jit
def calls(y_ptr, x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid)
    y = helper(x, x)
    tl.store(y_ptr + pid, y)
comp("calls", calls, {"y_ptr":"*fp32","x_ptr":"*fp32","n":"i32","BLOCK":"constexpr"}, {"BLOCK":4})

@triton.jit
def misc(y_ptr, x_ptr, h_ptr, i_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_assert(n > 0, "n must be positive")
    tl.device_print("x: ", x)
    a, b = tl.split(tl.join(x, x * 2.0))
    c = tl.clamp(a, -1.0, 1.0)
    r = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [c], dtype=tl.float32, is_pure=True, pack=1)
    tl.atomic_add(y_ptr + offs, r + b)
    tl.atomic_cas(i_ptr, 0, 1)
    xi = tl.load(i_ptr + offs)
    h = tl.histogram(xi, 8)
    tl.store(h_ptr + tl.arange(0, 8), h)
    s = tl.sort(x)
    f = tl.flip(s, 0)
    u = tl.umulhi(xi.to(tl.uint32), xi.to(tl.uint32))
    hh = x.to(tl.float16) * 0.1 + x.to(tl.bfloat16).to(tl.float16)
    bb = x.to(tl.bfloat16) * 0.3
    big = xi.to(tl.int64) * 12345678901
    tl.store(y_ptr + offs, f + u.to(tl.float32) + hh.to(tl.float32) + bb.to(tl.float32) + big.to(tl.float32))
comp("misc", misc, {"y_ptr":"*fp32","x_ptr":"*fp32","h_ptr":"*i32","i_ptr":"*i32","n":"i32","BLOCK":"constexpr"}, {"BLOCK":8})

@triton.jit
def blockptr(y_ptr, x_ptr, M, N, sm, sn, BM: tl.constexpr, BN: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (M, N), (sm, sn), (0, 0), (BM, BN), (1, 0))
    acc = tl.zeros((BM, BN), tl.float32)
    for i in range(0, N, BN):
        acc += tl.load(p, boundary_check=(0, 1), padding_option="zero")
        p = tl.advance(p, (0, BN))
    q = tl.make_block_ptr(y_ptr, (M, N), (sm, sn), (0, 0), (BM, BN), (1, 0))
    tl.store(q, acc, boundary_check=(0,))
comp("blockptr", blockptr, {"y_ptr":"*fp32","x_ptr":"*fp32","M":"i32","N":"i32","sm":"i32","sn":"i32","BM":"constexpr","BN":"constexpr"}, {"BM":4,"BN":4})

@triton.jit
def gath(y_ptr, x_ptr, i_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    i = tl.load(i_ptr + offs)
    g = tl.gather(x, i, 0)
    c = tl.cat(x, g, can_reorder=True)
    tl.store(y_ptr + tl.arange(0, 2*BLOCK), c)
comp("gath", gath, {"y_ptr":"*fp32","x_ptr":"*fp32","i_ptr":"*i32","BLOCK":"constexpr"}, {"BLOCK":4})
