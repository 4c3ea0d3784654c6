#!/usr/bin/env python3
"""Rebuild lift's Triton PTX fixtures under ptx/triton/ with real Triton (no GPU needed).

Usage (from anywhere; paths are resolved against the repository root):

    python3 ptx/triton/generate.py             # every <variant>.py here
    python3 ptx/triton/generate.py inplace_small

Each `ptx/triton/<variant>.py` (hand-written) holds one `@triton.jit` kernel and its
metadata: KERNEL, SIGNATURE, CONSTEXPRS, GRID, ARGS (the launch's [args], by Python
parameter name, in signature order), INSTANCES, EXPECT ("equivalent" | "refuted" |
"race"), EQUIV (the variant it is compared with by `lift equiv`; itself for the
reference, with REFERENCE = True), ABOUT, and optionally BUG / RACE (what is wrong),
CHECKS ([(spec, verdict)] for `lift check`), TARGET (the compute capability,
80 unless given: 90 makes Hopper code, `wgmma.mma_async`; 100 Blackwell, `tcgen05.mma`), ATTRS (parameter -> tt.divisibility, as
Triton's launcher specialises aligned pointers and sizes), RACE_VERDICT ("SAFE" or "RACE", what
`lift race` says) and OPTIONS (triton.compile options, e.g. {"num_warps": 4}). The script writes

    <variant>.ptx           c.asm["ptx"] from triton.compile (target sm_80, or TARGET),
                            checked by the wheel's ptxas for that target (sm_90a at 90)
    <variant>.launch.toml   the launch description
    <variant>.fixture.toml  the verdicts (read by tests/it/ptx_equiv.rs and tests/it/ptx_misc.rs)

These are the PTX constructs Triton emits that its other fixtures (triton_ir/) do not
show: small blocks whose elements several threads hold (replicated lanes: every
thread loads, one stores), `eviction_policy=` loads (`createpolicy` and
`L2::cache_hint` operands), NaN tests (`setp.num`), and a reduction at num_warps = 4
over a 32 x 64 tile (`rowsum_tile`: every lane of a warp stores the warp's partial to
one shared address in one instruction, and warps replicate them).

The environment is `.venv-gen` at the repository root (triton==3.9.0), as for
triton_ir/generate.py; this script re-executes itself with that interpreter.
Compilation settings as there: TRITON_DEFAULT_FP_FUSION=0, a fresh TRITON_CACHE_DIR,
GPUTarget("cuda", 80, 32). Each kernel is compiled from the repo-relative path
`ptx/triton/<variant>.py`, so the emitted `.file` names hold no machine path; the
output is otherwise byte-for-byte what Triton emits.
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VENV_PY = os.path.join(ROOT, ".venv-gen", "bin", "python")

if os.path.realpath(sys.prefix) != os.path.realpath(os.path.join(ROOT, ".venv-gen")):
    if not os.path.exists(VENV_PY):
        raise SystemExit("missing .venv-gen: run triton_ir/generate.py once to create it")
    os.execv(VENV_PY, [VENV_PY, os.path.abspath(__file__)] + sys.argv[1:])

os.environ["TRITON_DEFAULT_FP_FUSION"] = "0"
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="lift-triton-cache-")
os.chdir(ROOT)

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
from triton.runtime.jit import JITFunction  # noqa: E402

SITE = os.path.dirname(os.path.dirname(os.path.abspath(triton.__file__))) + os.sep


def normalise_triton_library_paths():
    """Make Triton's own JIT functions (tl.sum's combine function, in
    triton/language/standard.py) report `triton/language/...` as their file, as
    triton_ir/generate.py does, so no machine path reaches the `.file` directives."""
    import gc
    import triton.language  # noqa: F401  (loads standard.py etc.)
    for obj in gc.get_objects():
        if isinstance(obj, JITFunction) and obj.file_name.startswith(SITE):
            obj.file_name = obj.file_name[len(SITE):]


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


def ptxas_check(variant, ptx, target):
    """Assemble the PTX with the Triton wheel's own ptxas (sm_90a for wgmma), so a
    fixture is code the hardware's assembler accepts."""
    import subprocess
    # The ptxas Triton itself uses from sm_90 on (CUDA 13; the plain one is 12.9).
    ptxas = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas-blackwell")
    arch = f"sm_{target}a" if target >= 90 else f"sm_{target}"
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        r = subprocess.run([ptxas, f"-arch={arch}", src, "-o", os.path.join(d, "k.cubin")],
                           capture_output=True, text=True)
    assert r.returncode == 0, f"{variant}: ptxas -arch={arch} failed:\n{r.stderr}"


def load(variant):
    rel = f"ptx/triton/{variant}.py"
    with open(rel) as f:
        source = f.read()
    mod = {"__name__": f"lift_triton_{variant}", "__file__": rel}
    exec(compile(source, rel, "exec"), mod)
    return mod


def build(variant):
    m = load(variant)
    fn = m[m["KERNEL"]]
    # ATTRS (optional): parameter name -> divisibility, as Triton's launcher specialises
    # a pointer aligned to 16 bytes or an integer that is a multiple of 16.
    names = list(m["SIGNATURE"])
    attrs = {(names.index(p),): [["tt.divisibility", d]] for p, d in m.get("ATTRS", {}).items()}
    src = ASTSource(fn=fn, signature=dict(m["SIGNATURE"]), constexprs=dict(m.get("CONSTEXPRS", {})),
                    attrs=attrs or None)
    target = m.get("TARGET", 80)
    c = triton.compile(src, target=GPUTarget("cuda", target, 32), options=dict(m.get("OPTIONS", {})))
    ptx = c.asm["ptx"]
    if target != 80:
        ptxas_check(variant, ptx, target)
    for bad in (ROOT, "site-packages"):
        assert bad not in ptx, f"{variant}: machine path {bad!r} in the PTX"
    head = f"# Generated by ptx/triton/generate.py from ptx/triton/{variant}.py; edit it and regenerate.\n"
    with open(f"ptx/triton/{variant}.ptx", "w", newline="\n") as f:
        f.write(ptx)
    launch = [head, f"grid = {toml_value(m['GRID'])}\n",
              f"sizes = {toml_value(m['INSTANCES'][0]['sizes'])}\n"]
    # The dynamic shared memory Triton asks the launch for, where it exceeds lift's
    # default (48 KiB): the warp-specialised rings.
    if c.metadata.shared > 48 * 1024:
        launch.append(f"dynamic_shared = {c.metadata.shared}\n")
    launch.append("\n[args]\n")
    for k, v in m["ARGS"].items():
        launch.append(f"{k} = {toml_value(v)}\n")
    with open(f"ptx/triton/{variant}.launch.toml", "w", newline="\n") as f:
        f.write("".join(launch))
    fx = [head, 'family = "triton"\n', f"variant = {toml_value(variant)}\n",
          f"entry = {toml_value(m['KERNEL'])}\n",
          f"source = {toml_value(f'ptx/triton/{variant}.py')}\n",
          f"about = {toml_value(m['ABOUT'])}\n",
          f"expect = {toml_value(m['EXPECT'])}\n",
          f"equiv = {toml_value(m['EQUIV'])}\n",
          f"race_verdict = {toml_value(m['RACE_VERDICT'])}\n"]
    if m.get("REFERENCE"):
        fx.append("reference = true\n")
    for key in ("BUG", "RACE"):
        if m.get(key):
            fx.append(f"{key.lower()} = {toml_value(m[key])}\n")
    for spec, verdict in m.get("CHECKS", []):
        fx.append("\n[[check]]  # `lift check <variant>.ptx --spec SPEC` gives VERDICT\n")
        fx.append(f"spec = {toml_value(spec)}\nverdict = {toml_value(verdict)}\n")
    for inst in m["INSTANCES"]:
        fx.append(f"\n[[instance]]\nname = {toml_value(inst['name'])}\nsizes = {toml_value(inst['sizes'])}\n")
    with open(f"ptx/triton/{variant}.fixture.toml", "w", newline="\n") as f:
        f.write("".join(fx))
    print(f"ptx/triton/{variant}: {m['EXPECT']}")


def main(argv):
    normalise_triton_library_paths()
    names = [a for a in argv if not a.startswith("-")] or sorted(
        f[:-3] for f in os.listdir("ptx/triton") if f.endswith(".py") and f != "generate.py")
    for n in names:
        build(n)


if __name__ == "__main__":
    main(sys.argv[1:])
