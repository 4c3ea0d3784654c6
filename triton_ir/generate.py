#!/usr/bin/env python3
"""Rebuild the Triton fixture suite of `lift` with real Triton (no GPU needed).

Usage (from anywhere; paths are resolved against the repository root):

    python3 triton_ir/generate.py              # rebuild every fixture folder
    python3 triton_ir/generate.py add softmax  # rebuild only these folders
    python3 triton_ir/generate.py --check [OP...]
        # additionally run every kernel on its instances with Triton's CPU
        # interpreter (TRITON_INTERPRET=1) and compare with the references:
        # "verified" fixtures must match, "refuted" twins must differ on
        # every instance.  Nothing is written by the check.

Each fixture folder `triton_ir/<op>/` holds a hand-written `kernel.py` (the
`@triton.jit` kernel plus module-level metadata, see README.md) and the files
this script derives from it:

    kernel.ttir            c.asm["ttir"] from triton.compile (Triton 3.9.0, target sm_80)
    kernel.ptx             c.asm["ptx"]  from the same compilation
    kernel.launch.toml     the launch description (docs/launch.md)
    fixture.toml           op, spec, expect, bug/error, instances
    ref/<inst>/<t>.npy     float32 inputs (seeded per op and instance)
    ref/<inst>/expected/<t>.npy   float64 outputs of kernel.py's `reference()`

The environment: a virtualenv `.venv-gen` at the repository root with
triton==3.9.0 and numpy; it is created if missing, and this script re-executes
itself with that interpreter when started with another Python.

Compilation settings: TRITON_DEFAULT_FP_FUSION=0 (no a*b+c -> fma fusion, so
the IR keeps the kernel's arithmetic as written), a fresh TRITON_CACHE_DIR in a
temporary directory per run, target GPUTarget("cuda", 80, 32).

Path normalisation (so the emitted files do not depend on the machine):
Triton writes the source file of every op into the IR (`loc("file":line:col)`)
and into the PTX (`.file` directives and the DWARF `DW_AT_comp_dir` string).
It takes that file name from `fn.__code__.co_filename` (JITFunction.file_name).
We therefore never rewrite the emitted text; instead
  * each kernel.py is compiled with Python's `compile(source, path)` using the
    repo-relative path `triton_ir/<op>/kernel.py` (the cwd is the repo root), so
    its locations read `loc("triton_ir/<op>/kernel.py":L:C)`;
  * the `file_name` of Triton's own library JIT functions (tl.sum, tl.max,
    tl.sigmoid, tl.cdiv... in triton/language/standard.py) is shortened from
    `/.../site-packages/triton/language/standard.py` to
    `triton/language/standard.py` before compiling.
The output is otherwise byte-for-byte what Triton emits.  After writing, the
script asserts that neither the repository root nor site-packages appears in
any emitted file.

Determinism: inputs are drawn from numpy.random.default_rng seeded with
crc32("<data op>/<instance>") where <data op> is the fixture's REFERENCE_OP (the
correct op, for wrong twins; the EQUIV op, for second implementations) or its
own name; running the script twice gives identical files.

BUG_REGION = "<where>" (optional, wrong twins): the bug shows only in a region the
random reference inputs miss (x == 0, a row of negative values); --check accepts
the twin matching the references there. BUG_GIVES_NAN = True (optional, wrong
twins): the twin's outputs are NaN (0 / 0 in masked lanes), which --check takes as
differing rather than as an unwritten element.

ZERO_FILL = True (optional, error kernels with a `reference()`; written to
fixture.toml as `zero_fill = true`): the kernel's only fault is a masked load
without other= whose undefined lanes reach a store; read with those lanes as 0
(the NVIDIA backend's zero fill, and Triton's interpreter's; `lift
--masked-load zero`) it computes the reference, and --check checks it so.

SIZE_BUG = "<one line>" with BUG_SIZES = {"N": 6} (size twins; written to fixture.toml
as `size_bug` and `bug_sizes`): a kernel with EXPECT = "verified" at its own
INSTANCES whose bug shows at other sizes, e.g. BUG_SIZES.  --check also runs it at
BUG_SIZES on random inputs and requires the outputs to differ from the reference, be
non-finite (a read past the end gets the NaN padding) or be written past their end.

EQUIV = "<op>" (optional; written to fixture.toml as `equiv`): the pair the
`equiv` command must decide, proved equal for "verified" kernels, refuted for
wrong twins.  It implies REFERENCE_OP = "<op>" unless that is set, and the
script checks that the two kernels share one launch interface (tensor names,
shapes and roles, scalar and size names, instances, spec, input domain).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VENV = os.path.join(ROOT, ".venv-gen")
VENV_PY = os.path.join(VENV, "bin", "python")
TRITON_VERSION = "3.9.0"


def ensure_venv():
    """Create .venv-gen if missing and re-exec this script with its python."""
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(VENV_PY):
        import subprocess
        subprocess.check_call([sys.executable or "python3", "-m", "venv", VENV])
        subprocess.check_call([VENV_PY, "-m", "pip", "install", f"triton=={TRITON_VERSION}", "numpy"])
    os.execv(VENV_PY, [VENV_PY, os.path.abspath(__file__)] + sys.argv[1:])


ensure_venv()

import json  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import types  # noqa: E402
import zlib  # noqa: E402

import numpy as np  # noqa: E402

INTERPRET = os.environ.get("TRITON_INTERPRET") == "1"
if not INTERPRET:
    os.environ["TRITON_DEFAULT_FP_FUSION"] = "0"
    _CACHE = tempfile.mkdtemp(prefix="lift-triton-cache-")
    os.environ["TRITON_CACHE_DIR"] = _CACHE

os.chdir(ROOT)

import triton  # noqa: E402
from triton.runtime.jit import JITFunction  # noqa: E402

SITE = os.path.dirname(os.path.dirname(os.path.abspath(triton.__file__))) + os.sep


def normalise_triton_library_paths():
    """Make Triton's own JIT functions report `triton/language/...` as their file."""
    import gc
    import triton.language  # noqa: F401  (loads standard.py etc.)
    for obj in gc.get_objects():
        if isinstance(obj, JITFunction) and obj.file_name.startswith(SITE):
            obj.file_name = obj.file_name[len(SITE):]


# ----------------------------------------------------------------------------
# loading kernel.py
# ----------------------------------------------------------------------------

_MODULES = {}


def load_op(op):
    """Execute triton_ir/<op>/kernel.py with its repo-relative path as file name."""
    if op in _MODULES:
        return _MODULES[op]
    rel = f"triton_ir/{op}/kernel.py"
    with open(rel) as f:
        source = f.read()
    mod = types.ModuleType(f"lift_fixture_{op}")
    mod.__file__ = rel
    sys.modules[mod.__name__] = mod
    exec(compile(source, rel, "exec"), mod.__dict__)
    if getattr(mod, "EQUIV", None) and not getattr(mod, "REFERENCE_OP", None):
        # a second implementation of a correct op: it carries that op's reference data
        mod.REFERENCE_OP = mod.EQUIV
    ref_op = getattr(mod, "REFERENCE_OP", None)
    if ref_op:
        # a wrong twin or an equiv kernel: whatever it does not define is the reference op's
        base = load_op(ref_op)
        for key in INHERITED:
            if not hasattr(mod, key) and hasattr(base, key):
                setattr(mod, key, getattr(base, key))
    _MODULES[op] = mod
    return mod


# metadata a twin (REFERENCE_OP = "<correct op>") or an equiv kernel (EQUIV = "<op>", which
# implies REFERENCE_OP = "<op>") takes from the reference op unless it sets it
INHERITED = ("SIGNATURE", "CONSTEXPRS", "GRID", "ARGS", "SPEC", "INSTANCES", "DOMAIN")


def kernel_fn(mod):
    name = getattr(mod, "KERNEL", None)
    if name is not None:
        return getattr(mod, name)
    fns = [v for v in vars(mod).values()
           if hasattr(v, "fn") and getattr(getattr(v, "fn", None), "__module__", None) == mod.__name__]
    if len(fns) != 1:
        raise SystemExit(f"{mod.__file__}: define KERNEL = '<name>' (found {len(fns)} jit functions)")
    return fns[0]


def all_ops():
    return sorted(d for d in os.listdir(HERE)
                  if os.path.isfile(os.path.join(HERE, d, "kernel.py")))


# ----------------------------------------------------------------------------
# size expressions (the launch format's: literals, names, + - * // %, cdiv, min, max)
# ----------------------------------------------------------------------------

def eval_size(expr, sizes):
    if isinstance(expr, int):
        return expr
    env = {"__builtins__": {}, "cdiv": lambda a, b: -(-a // b), "min": min, "max": max}
    env.update(sizes)
    v = eval(expr, env)  # trusted: our own fixture metadata
    assert isinstance(v, int), (expr, v)
    return v


# ----------------------------------------------------------------------------
# TOML writing (small, just what the fixtures need)
# ----------------------------------------------------------------------------

def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        r = repr(v)
        if "e" in r and "." not in r.split("e")[0]:
            return r  # 1e-05 is valid TOML
        return r
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def arg_entries(mod):
    """Non-constexpr kernel parameters in signature order with their launch entries."""
    out = []
    for name, ty in mod.SIGNATURE.items():
        if ty == "constexpr":
            continue
        if name not in mod.ARGS:
            raise SystemExit(f"{mod.__file__}: ARGS lacks parameter {name}")
        out.append((name, mod.ARGS[name]))
    extra = set(mod.ARGS) - {n for n, _ in out}
    if extra:
        raise SystemExit(f"{mod.__file__}: ARGS names unknown parameters {sorted(extra)}")
    return out


def tensors(mod):
    """[(tensor name, shape exprs, role)] in argument order."""
    res = []
    for _, a in arg_entries(mod):
        if isinstance(a, dict) and "tensor" in a:
            res.append((a["tensor"], a["shape"], a.get("role", "in")))
    return res


HEADER = "# Generated by triton_ir/generate.py from kernel.py; edit kernel.py and regenerate.\n"


def launch_toml(mod):
    first = mod.INSTANCES[0]
    lines = [HEADER, f"grid = {toml_value(mod.GRID)}\n", f"sizes = {toml_value(first['sizes'])}\n", "\n[args]\n"]
    for name, a in arg_entries(mod):
        if isinstance(a, dict) and "tensor" in a:
            a = {"tensor": a["tensor"], "shape": a["shape"], "role": a.get("role", "in")}
        lines.append(f"{name} = {toml_value(a)}\n")
    return "".join(lines)


def fixture_toml(op, mod):
    lines = [HEADER, f"op = {toml_value(op)}\n", f"spec = {toml_value(mod.SPEC)}\n",
             f"expect = {toml_value(mod.EXPECT)}\n"]
    if getattr(mod, "BUG", None):
        lines.append(f"bug = {toml_value(mod.BUG)}\n")
    if getattr(mod, "ERROR", None):
        lines.append(f"error = {toml_value(mod.ERROR)}\n")
    if getattr(mod, "BUG_REGION", None):
        lines.append(f"bug_region = {toml_value(mod.BUG_REGION)}\n")
    if getattr(mod, "ZERO_FILL", False):
        lines.append("zero_fill = true\n")
    if getattr(mod, "SIZE_BUG", None):
        lines.append(f"size_bug = {toml_value(mod.SIZE_BUG)}\n")
        lines.append(f"bug_sizes = {toml_value(mod.BUG_SIZES)}\n")
    if getattr(mod, "REFERENCE_OP", None):
        lines.append(f"reference_op = {toml_value(mod.REFERENCE_OP)}\n")
    if getattr(mod, "EQUIV", None):
        lines.append(f"equiv = {toml_value(mod.EQUIV)}\n")
    for inst in mod.INSTANCES:
        lines.append("\n[[instance]]\n")
        lines.append(f"name = {toml_value(inst['name'])}\n")
        lines.append(f"sizes = {toml_value(inst['sizes'])}\n")
        if inst.get("scalars"):
            lines.append(f"scalars = {toml_value(inst['scalars'])}\n")
    return "".join(lines)


# ----------------------------------------------------------------------------
# reference data
# ----------------------------------------------------------------------------

def reference_module(op, mod):
    ref_op = getattr(mod, "REFERENCE_OP", None)
    return (load_op(ref_op), ref_op) if ref_op else (mod, op)


# numpy dtypes of the pointer element types the fixtures use (the .npy files stay
# float32: an fp16 input holds fp16-representable values)
PTR_DTYPES = {"*fp32": np.float32, "*fp16": np.float16}


def tensor_dtype(mod, tensor):
    """The numpy dtype of the pointer parameters bound to `tensor`."""
    for name, a in arg_entries(mod):
        if isinstance(a, dict) and a.get("tensor") == tensor:
            return PTR_DTYPES[mod.SIGNATURE[name]]
    return np.float32


def make_inputs(op, mod, inst):
    _, data_op = reference_module(op, mod)
    rng = np.random.default_rng(zlib.crc32(f"{data_op}/{inst['name']}".encode()))
    domain = getattr(mod, "DOMAIN", {})
    inputs = {}
    for t, shape, role in tensors(mod):
        if role == "out":
            continue
        shp = tuple(eval_size(s, inst["sizes"]) for s in shape)
        lo, hi = domain.get(t, (-2.0, 2.0))
        inputs[t] = rng.uniform(lo, hi, size=shp).astype(tensor_dtype(mod, t)).astype(np.float32)
    return inputs


def expected_outputs(op, mod, inst, inputs):
    rmod, _ = reference_module(op, mod)
    if not hasattr(rmod, "reference"):
        return None
    ins64 = {k: v.astype(np.float64) for k, v in inputs.items()}
    out = rmod.reference(ins64, dict(inst["sizes"]), dict(inst.get("scalars", {})))
    want = {t: (shape, role) for t, shape, role in tensors(mod) if role in ("out", "inout")}
    if set(out) != set(want):
        raise SystemExit(f"{op}: reference returns {sorted(out)}, outputs are {sorted(want)}")
    res = {}
    for t, (shape, _) in want.items():
        shp = tuple(eval_size(s, inst["sizes"]) for s in shape)
        arr = np.asarray(out[t], dtype=np.float64)
        if arr.shape != shp:
            raise SystemExit(f"{op}: reference output {t} has shape {arr.shape}, want {shp}")
        if not np.all(np.isfinite(arr)):
            raise SystemExit(f"{op}: reference output {t} is not finite")
        res[t] = np.ascontiguousarray(arr)
    return res


def write_refs(op, mod):
    ref_dir = os.path.join(HERE, op, "ref")
    if os.path.isdir(ref_dir):
        shutil.rmtree(ref_dir)
    for inst in mod.INSTANCES:
        d = os.path.join(ref_dir, inst["name"])
        os.makedirs(d)
        inputs = make_inputs(op, mod, inst)
        for t, a in inputs.items():
            np.save(os.path.join(d, f"{t}.npy"), a)
        if mod.EXPECT == "error" and not getattr(mod, "REFERENCE_OP", None) and not hasattr(mod, "reference"):
            continue
        exp = expected_outputs(op, mod, inst, inputs)
        if exp is None:
            continue
        os.makedirs(os.path.join(d, "expected"))
        for t, a in exp.items():
            np.save(os.path.join(d, "expected", f"{t}.npy"), a)


# ----------------------------------------------------------------------------
# compilation
# ----------------------------------------------------------------------------

def compile_op(op, mod):
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    fn = kernel_fn(mod)
    src = ASTSource(fn=fn, signature=dict(mod.SIGNATURE), constexprs=dict(getattr(mod, "CONSTEXPRS", {})))
    c = triton.compile(src, target=GPUTarget("cuda", 80, 32))
    return c.asm["ttir"], c.asm["ptx"]


def write_text(path, text):
    with open(path, "w", newline="\n") as f:
        f.write(text)


def check_machine_independent(op):
    for name in ("kernel.ttir", "kernel.ptx", "kernel.launch.toml", "fixture.toml"):
        with open(os.path.join(HERE, op, name)) as f:
            text = f.read()
        for bad in (ROOT, SITE.rstrip(os.sep), "site-packages"):
            if bad in text:
                raise SystemExit(f"{op}/{name}: machine-dependent path {bad!r} left in output")


def validate(op, mod):
    for key in ("SIGNATURE", "GRID", "ARGS", "SPEC", "EXPECT", "INSTANCES"):
        if not hasattr(mod, key):
            raise SystemExit(f"{mod.__file__}: missing {key}")
    assert mod.EXPECT in ("verified", "refuted", "error"), mod.EXPECT
    if mod.EXPECT == "refuted":
        assert getattr(mod, "BUG", None), f"{op}: twins need BUG"
    if mod.EXPECT == "error":
        assert getattr(mod, "ERROR", None), f"{op}: error kernels need ERROR"
    if getattr(mod, "ZERO_FILL", False):
        assert mod.EXPECT == "error" and hasattr(mod, "reference"), \
            f"{op}: ZERO_FILL is for error kernels (masked loads without other=) with a reference"
    if getattr(mod, "EQUIV", None):
        validate_equiv(op, mod)
    if getattr(mod, "SIZE_BUG", None) or getattr(mod, "BUG_SIZES", None):
        validate_size_twin(op, mod)
    names = [i["name"] for i in mod.INSTANCES]
    assert len(set(names)) == len(names), f"{op}: duplicate instance names"
    for inst in mod.INSTANCES:
        for _, a in arg_entries(mod):
            if isinstance(a, dict) and "scalar" in a:
                assert a["scalar"] in inst.get("scalars", {}), f"{op}/{inst['name']}: no value for {a['scalar']}"


def validate_size_twin(op, mod):
    """SIZE_BUG = "<what goes wrong, at which sizes>" with BUG_SIZES = {"N": 6}: a kernel that
    is correct at its instances (EXPECT = "verified") but wrong at other sizes."""
    assert getattr(mod, "SIZE_BUG", None) and getattr(mod, "BUG_SIZES", None), \
        f"{op}: SIZE_BUG and BUG_SIZES go together"
    assert mod.EXPECT == "verified", f"{op}: a size twin is correct at its instances (EXPECT = 'verified')"
    assert not getattr(mod, "EQUIV", None), f"{op}: a size twin has its own instances, so no EQUIV"
    names = {k for inst in mod.INSTANCES for k in inst["sizes"]}
    assert set(mod.BUG_SIZES) == names, f"{op}: BUG_SIZES names {sorted(mod.BUG_SIZES)}, sizes are {sorted(names)}"
    assert all(isinstance(v, int) and v > 0 for v in mod.BUG_SIZES.values()), f"{op}: BUG_SIZES"
    assert all(dict(i["sizes"]) != dict(mod.BUG_SIZES) for i in mod.INSTANCES), \
        f"{op}: BUG_SIZES is one of the instances"


def launch_interface(mod):
    """What two kernels must share to run on one launch: tensors (shape, role), scalar
    names, size names, instances, spec and input domain (argument order, parameter names,
    constexprs and the grid may differ)."""
    tens = {t: (list(shape), role) for t, shape, role in tensors(mod)}
    scalars = sorted(a["scalar"] for _, a in arg_entries(mod) if isinstance(a, dict) and "scalar" in a)
    sizes = sorted({k for inst in mod.INSTANCES for k in inst["sizes"]})
    insts = [(i["name"], dict(i["sizes"]), dict(i.get("scalars", {}))) for i in mod.INSTANCES]
    return {"tensors": tens, "scalars": scalars, "sizes": sizes, "instances": insts,
            "spec": mod.SPEC, "domain": dict(getattr(mod, "DOMAIN", {}))}


def validate_equiv(op, mod):
    """EQUIV = "<op>": the kernel must line up with <op> on one launch and carry its data."""
    other = mod.EQUIV
    assert other != op, f"{op}: EQUIV names the fixture itself"
    assert mod.REFERENCE_OP == other, f"{op}: EQUIV = {other!r} but REFERENCE_OP = {mod.REFERENCE_OP!r}"
    base = load_op(other)
    assert base.EXPECT == "verified", f"{op}: EQUIV names {other}, which is not a correct kernel"
    mine, theirs = launch_interface(mod), launch_interface(base)
    for key in mine:
        if mine[key] != theirs[key]:
            raise SystemExit(f"{op}: EQUIV = {other!r} but the {key} differ:\n  {mine[key]}\n  {theirs[key]}")


def generate(op):
    mod = load_op(op)
    validate(op, mod)
    ttir, ptx = compile_op(op, mod)
    d = os.path.join(HERE, op)
    write_text(os.path.join(d, "kernel.ttir"), ttir)
    write_text(os.path.join(d, "kernel.ptx"), ptx)
    write_text(os.path.join(d, "kernel.launch.toml"), launch_toml(mod))
    write_text(os.path.join(d, "fixture.toml"), fixture_toml(op, mod))
    write_refs(op, mod)
    check_machine_independent(op)


# ----------------------------------------------------------------------------
# --check: run the kernels with Triton's CPU interpreter
# ----------------------------------------------------------------------------

class _NpTensor:
    """Just enough of a torch.Tensor for triton's interpreter, over a numpy array."""

    class _DType:
        def __init__(self, d):
            self.d = d

        def __str__(self):
            return "torch." + str(self.d)

        @property
        def itemsize(self):
            return self.d.itemsize

    def __init__(self, a):
        self.a = a
        self.dtype = self._DType(a.dtype)

    def data_ptr(self):
        return self.a.ctypes.data

    def untyped_storage(self):
        return self

    def cpu(self):
        return self

    def new_empty(self, *a, **k):
        return self

    def set_(self, *a):
        return self

    def storage_offset(self):
        return 0

    def size(self):
        return self.a.shape

    def stride(self):
        return tuple(s // self.a.itemsize for s in self.a.strides)

    def copy_(self, other):
        pass


OVERRUN_SENTINEL = -12345.0  # exact in fp16 and fp32


def run_interpreted(op, mod, inst, inputs=None, overrun=None):
    """Run the kernel on instance `inst` (inputs from ref/, or `inputs`), return float32
    outputs. With a list `overrun`, the names of outputs written past their end are added."""
    d = os.path.join(HERE, op, "ref", inst["name"])
    bufs, args = {}, []
    for name, a in arg_entries(mod):
        if isinstance(a, dict) and "tensor" in a:
            shp = tuple(eval_size(s, inst["sizes"]) for s in a["shape"])
            dtype = PTR_DTYPES[mod.SIGNATURE[name]]
            if a.get("role", "in") == "out":
                # poison: a kernel that reads an output before writing it shows up as NaN
                buf = np.full(shp, np.nan, dtype=dtype)
            else:
                buf = (inputs[a["tensor"]] if inputs is not None
                       else np.load(os.path.join(d, f"{a['tensor']}.npy"))).astype(dtype)
            # pad so that an out-of-bounds access in the interpreter does not crash
            pad = np.full(buf.size + 64, np.nan, dtype=dtype)
            if overrun is not None and a.get("role", "in") != "in":
                pad[:] = OVERRUN_SENTINEL  # a write past the end changes it (even to NaN)
            pad[:buf.size] = buf.ravel()
            bufs[a["tensor"]] = (pad, shp)
            args.append(_NpTensor(pad))
        elif isinstance(a, dict) and "scalar" in a:
            args.append(float(inst["scalars"][a["scalar"]]))
        elif isinstance(a, dict) and "value" in a:
            args.append(float(a["value"]))
        else:
            args.append(eval_size(a, inst["sizes"]))
    grid = tuple(eval_size(g, inst["sizes"]) for g in mod.GRID)
    kernel_fn(mod)[grid](*args, **dict(getattr(mod, "CONSTEXPRS", {})))
    if overrun is not None:
        overrun += [t for t, _, role in tensors(mod) if role in ("out", "inout")
                    and np.any(bufs[t][0][int(np.prod(bufs[t][1])):] != OVERRUN_SENTINEL)]
    return {t: bufs[t][0][:int(np.prod(bufs[t][1]))].reshape(bufs[t][1]).astype(np.float32)
            for t, _, role in tensors(mod) if role in ("out", "inout")}


def check(op):
    mod = load_op(op)
    # An error kernel whose only fault is a masked load without other= computes the
    # reference when masked-off lanes read 0 (ZERO_FILL): the interpreter zero-fills
    # them as the NVIDIA backend does, so it is checked like a correct kernel.
    zero_fill = getattr(mod, "ZERO_FILL", False)
    if mod.EXPECT == "error" and not zero_fill:
        print(f"{op:24s} skip (error kernel)")
        return True
    ok = True
    for inst in mod.INSTANCES:
        d = os.path.join(HERE, op, "ref", inst["name"], "expected")
        got = run_interpreted(op, mod, inst)
        for t, g in got.items():
            if mod.EXPECT == "refuted" and getattr(mod, "BUG_GIVES_NAN", False) and np.any(np.isnan(g)):
                # a twin whose bug is a NaN output (0 / 0 in masked lanes)
                continue
            if not np.all(np.isfinite(g)):
                # outputs start as NaN and tensors are NaN-padded: an unwritten
                # element or an out-of-bounds read shows up here
                print(f"{op:24s} {inst['name']:10s} output {t} not finite  FAIL")
                return False
        worst = 0.0
        for t, g in got.items():
            want = np.load(os.path.join(d, f"{t}.npy"))
            err = np.abs(g.astype(np.float64) - want) / np.maximum(1.0, np.abs(want))
            err = np.where(np.isnan(err), np.inf, err)
            worst = max(worst, float(err.max()))
        # an fp16 output is rounded to fp16 (relative error up to 2^-11)
        half = any(t == "*fp16" for t in mod.SIGNATURE.values())
        matches = worst < (1e-3 if half else 1e-4)
        good = matches if mod.EXPECT == "verified" or zero_fill else not matches
        # A twin whose bug is confined to a region random data miss (x == 0, an
        # all-negative row) matches the references; lift must still refute it.
        region = getattr(mod, "BUG_REGION", None)
        if mod.EXPECT == "refuted" and matches and region:
            good = True
            print(f"{op:24s} {inst['name']:10s} same as the reference here (bug only where {region})")
            continue
        ok &= good
        what = "zero-fill" if zero_fill else mod.EXPECT
        print(f"{op:24s} {inst['name']:10s} {what:9s} max rel err {worst:.2e}  {'ok' if good else 'FAIL'}")
    if getattr(mod, "SIZE_BUG", None):
        ok &= check_bug_sizes(op, mod)
    return ok


def check_bug_sizes(op, mod):
    """A size twin at BUG_SIZES (random inputs, not written to ref/): its outputs must differ
    from the reference, be non-finite (a read past the end gets the NaN padding) or be
    written past their end."""
    # Scalars as at the first instance (only the sizes change).
    inst = {"name": "bug_sizes", "sizes": dict(mod.BUG_SIZES),
            "scalars": dict(mod.INSTANCES[0].get("scalars", {}))}
    inputs = make_inputs(op, mod, inst)
    want = expected_outputs(op, mod, inst, inputs)
    overrun = []
    got = run_interpreted(op, mod, inst, inputs, overrun)
    worst = 0.0
    for t, g in got.items():
        err = np.abs(g.astype(np.float64) - want[t]) / np.maximum(1.0, np.abs(want[t]))
        worst = max(worst, float(np.where(np.isnan(err), np.inf, err).max()))
    good = worst >= 1e-4 or bool(overrun)
    how = f"max rel err {worst:.2e}" + (f", writes past the end of {', '.join(overrun)}" if overrun else "")
    sizes = ", ".join(f"{k}={v}" for k, v in mod.BUG_SIZES.items())
    print(f"{op:24s} {sizes:10s} size bug  {how}  {'ok' if good else 'FAIL (the bug does not show)'}")
    return good


def main(argv):
    do_check = "--check" in argv
    ops = [a for a in argv if not a.startswith("--")] or all_ops()
    unknown = [o for o in ops if o not in all_ops()]
    if unknown:
        raise SystemExit(f"unknown fixture folders: {unknown}")
    if INTERPRET:
        # Triton's interpreter has no libdevice; give it the exact functions
        from triton.language.extra import libdevice
        import triton.language as tl
        libdevice.tanh = lambda x: 2.0 / (1.0 + tl.exp(-2.0 * x)) - 1.0
        ok = all([check(op) for op in ops])
        sys.exit(0 if ok else 1)
    normalise_triton_library_paths()
    try:
        for op in ops:
            generate(op)
            print(f"generated triton_ir/{op}")
    finally:
        shutil.rmtree(_CACHE, ignore_errors=True)
    if do_check:
        import subprocess
        env = dict(os.environ, TRITON_INTERPRET="1")
        env.pop("TRITON_CACHE_DIR", None)
        r = subprocess.call([sys.executable, os.path.abspath(__file__)] + ops, env=env)
        sys.exit(r)


if __name__ == "__main__":
    main(sys.argv[1:])
