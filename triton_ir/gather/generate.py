#!/usr/bin/env python3
"""Rebuild lift's Triton gather fixtures (issue 12 item 4, issue 19 item 3).

Usage (from anywhere): `.venv-gen/bin/python triton_ir/gather/generate.py`

Compiles each kernel of `kernels.py` as the suite's are (`triton_ir/generate.py`):
Triton 3.9, `GPUTarget("cuda", 80, 32)`, `TRITON_DEFAULT_FP_FUSION=0`, a fresh cache,
the source compiled under its repository-relative name. Writes per fixture
`triton_ir/gather/<name>/`: `kernel.ttir`, `kernel.ptx`, `kernel.launch.toml` (the index tensor
declares its `values`), `fixture.toml` (spec, expected verdict), and `ref/<inst>/`
inputs (float32, int64 labels drawn from the declared values, ignore_index included)
with `expected/` float64 outputs of a NumPy reference. These fixtures live one level
down so the suite's walkers (`tests/common`) do not take them; `tests/it/gather.rs` walks
them.
"""
import os
import sys
import tempfile
import types
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
os.environ["TRITON_DEFAULT_FP_FUSION"] = "0"
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="lift-triton-cache-")
os.chdir(ROOT)

import numpy as np  # noqa: E402
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

SITE = os.path.dirname(os.path.dirname(os.path.abspath(triton.__file__))) + os.sep


def normalise_triton_library_paths():
    """Make Triton's own JIT functions report `triton/language/...` (as the suite does)."""
    import gc
    import triton.language  # noqa: F401
    from triton.runtime.jit import JITFunction
    for obj in gc.get_objects():
        if isinstance(obj, JITFunction) and obj.file_name.startswith(SITE):
            obj.file_name = obj.file_name[len(SITE):]


normalise_triton_library_paths()

REL = "triton_ir/gather/kernels.py"
with open(REL) as f:
    _src = f.read()
K = types.ModuleType("lift_gather_kernels")
K.__file__ = REL
sys.modules[K.__name__] = K
exec(compile(_src, REL, "exec"), K.__dict__)


def _lse(x):
    m = x.max(axis=1)
    return m + np.log(np.exp(x - m[:, None]).sum(axis=1))


def _ce(ins, sz):
    x, t = ins["x"], ins["t"].astype(np.int64)
    keep = t != -100
    picked = x[np.arange(x.shape[0]), np.where(keep, t, 0)]
    return {"loss": np.where(keep, _lse(x) - picked, 0.0)}


CE = {
    "signature": {"loss_ptr": "*fp32", "x_ptr": "*fp32", "t_ptr": "*i64", "n_cols": "i32",
                  "ignore_index": "i32", "BLOCK_N": "constexpr"},
    "constexprs": {"BLOCK_N": 8},
    "grid": ["M"],
    "args": [
        ("loss_ptr", {"tensor": "loss", "shape": ["M"], "role": "out"}),
        ("x_ptr", {"tensor": "x", "shape": ["M", "N"]}),
        ("t_ptr", {"tensor": "t", "shape": ["M"], "dtype": "int64", "values": ["0..N", -100]}),
        ("n_cols", "N"),
        ("ignore_index", -100),
    ],
    "instances": [{"name": "m4n8", "sizes": {"M": 4, "N": 8}},
                  {"name": "m3n5", "sizes": {"M": 3, "N": 5}}],
    "labels": {"t": ("N", -100)},
    "spec": "loss = F.cross_entropy(x, t, reduction='none')",
    "reference": _ce,
}

FIXTURES = {
    "embedding": {
        "kernel": "embedding_kernel",
        "signature": {"out_ptr": "*fp32", "ids_ptr": "*i64", "w_ptr": "*fp32", "D": "i32",
                      "BLOCK_D": "constexpr"},
        "constexprs": {"BLOCK_D": 4},
        "grid": ["L"],
        "args": [
            ("out_ptr", {"tensor": "out", "shape": ["L", "D"], "role": "out"}),
            ("ids_ptr", {"tensor": "ids", "shape": ["L"], "dtype": "int64", "values": "0..V"}),
            ("w_ptr", {"tensor": "w", "shape": ["V", "D"]}),
            ("D", "D"),
        ],
        "instances": [{"name": "l3v5d4", "sizes": {"L": 3, "V": 5, "D": 4}},
                      {"name": "l5v3d3", "sizes": {"L": 5, "V": 3, "D": 3}}],
        "labels": {"ids": ("V", None)},
        "spec": "out = F.embedding(ids, w)",
        "expect": "verified",
        "reference": lambda ins, sz: {"out": ins["w"][ins["ids"].astype(np.int64)]},
    },
    "cross_entropy": dict(CE, kernel="cross_entropy_kernel", expect="verified"),
    "cross_entropy_no_ignore": dict(
        CE, kernel="cross_entropy_no_ignore_kernel", expect="oob",
        bug="ignore_index not tested: an ignored row reads x[row, -100], outside x"),
    "cross_entropy_max_not_lse": dict(
        CE, kernel="cross_entropy_max_not_lse_kernel", expect="refuted",
        bug="the row max stands in for the log-sum-exp"),
}


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


HEADER = "# Generated by triton_ir/gather/generate.py; edit kernels.py or generate.py and regenerate.\n"


def write(path, text):
    with open(path, "w", newline="\n") as f:
        f.write(text)


def shape_of(shape, sizes):
    return tuple(sizes[s] if isinstance(s, str) else s for s in shape)


def generate(name, fx):
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    src = ASTSource(fn=getattr(K, fx["kernel"]), signature=dict(fx["signature"]),
                    constexprs=dict(fx["constexprs"]))
    c = triton.compile(src, target=GPUTarget("cuda", 80, 32))
    ttir = c.asm["ttir"]
    assert ROOT not in ttir and "site-packages" not in ttir
    write(os.path.join(d, "kernel.ttir"), ttir)
    ptx = c.asm["ptx"]
    assert ROOT not in ptx and "site-packages" not in ptx
    write(os.path.join(d, "kernel.ptx"), ptx)
    launch = [HEADER, f"grid = {toml_value(fx['grid'])}\n",
              f"sizes = {toml_value(fx['instances'][0]['sizes'])}\n", "\n[args]\n"]
    for k, v in fx["args"]:
        launch.append(f"{k} = {toml_value(v)}\n")
    write(os.path.join(d, "kernel.launch.toml"), "".join(launch))
    meta = [HEADER, f"kernel = {toml_value(fx['kernel'])}\n",
            f"spec = {toml_value(fx['spec'])}\n", f"expect = {toml_value(fx['expect'])}\n"]
    if "bug" in fx:
        meta.append(f"bug = {toml_value(fx['bug'])}\n")
    for inst in fx["instances"]:
        meta.append(f"\n[[instance]]\nname = {toml_value(inst['name'])}\n"
                    f"sizes = {toml_value(inst['sizes'])}\n")
    write(os.path.join(d, "fixture.toml"), "".join(meta))
    for inst in fx["instances"]:
        sz = inst["sizes"]
        rd = os.path.join(d, "ref", inst["name"])
        os.makedirs(os.path.join(rd, "expected"), exist_ok=True)
        rng = np.random.default_rng(zlib.crc32(f"gather/{fx['kernel']}/{inst['name']}".encode()))
        ins = {}
        for _, a in fx["args"]:
            if not (isinstance(a, dict) and "tensor" in a) or a.get("role") == "out":
                continue
            shp = shape_of(a["shape"], sz)
            if a.get("dtype") == "int64":
                hi, ignore = fx["labels"][a["tensor"]]
                t = rng.integers(0, sz[hi], size=shp)
                if ignore is not None and t.size > 1:
                    t[1] = ignore
                ins[a["tensor"]] = t.astype(np.int64)
            else:
                ins[a["tensor"]] = rng.uniform(-2.0, 2.0, size=shp).astype(np.float32)
        for t, arr in ins.items():
            np.save(os.path.join(rd, f"{t}.npy"), arr)
        ins64 = {k: v.astype(np.float64) for k, v in ins.items()}
        for t, arr in fx["reference"](ins64, sz).items():
            np.save(os.path.join(rd, "expected", f"{t}.npy"),
                    np.ascontiguousarray(np.asarray(arr, dtype=np.float64)))
    print(f"generated triton_ir/gather/{name}")


if __name__ == "__main__":
    for name in sys.argv[1:] or FIXTURES:
        generate(name, FIXTURES[name])
