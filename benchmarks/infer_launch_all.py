#!/usr/bin/env python3
"""How often launch inference reproduces the launch a generator wrote.

For every `triton_ir/*/kernel.ttir` and `corpus/*/kernel.ttir`, copies the kernel alone
into a temporary folder, runs `target/release/lift spec KERNEL --write-launch` there and
compares the inferred launch with the committed `kernel.launch.toml` the way
`tests/it/infer_launch.rs` does: grid, argument names, each tensor's shape and role, each
integer binding equal up to the case of size names, real arguments bound to something.
Prints one line per kernel that differs (the first difference, or why inference
failed) and a summary line. Build first: cargo build --release.

    python3 benchmarks/infer_launch_all.py
"""
import pathlib
import shutil
import subprocess
import tempfile
import tomllib

root = pathlib.Path(__file__).resolve().parent.parent
lift = root / "target" / "release" / "lift"


def norm(v):
    return str(v).replace(" ", "").replace("'", '"').lower()


def first_difference(want, got):
    if norm(want.get("grid")) != norm(got.get("grid")):
        return f"grid {want.get('grid')} vs {got.get('grid')}"
    wa, ga = want.get("args", {}), got.get("args", {})
    if list(wa) != list(ga):
        return f"args {list(wa)} vs {list(ga)}"
    for k, v in wa.items():
        w = ga[k]
        if isinstance(v, dict) and "tensor" in v:
            if not isinstance(w, dict) or "tensor" not in w:
                return f"{k}: a tensor, inferred {w}"
            if norm(v["shape"]) != norm(w["shape"]):
                return f"shape of {k}: {v['shape']} vs {w['shape']}"
            if v.get("role", "in") != w.get("role", "in"):
                return f"role of {k}: {v.get('role', 'in')} vs {w.get('role', 'in')}"
        elif isinstance(v, dict):
            if not isinstance(w, dict):
                return f"{k}: a real argument, inferred {w}"
        elif norm(v) != norm(w):
            return f"{k}: {v} vs {w}"
    return None


kernels = sorted(root.glob("triton_ir/*/kernel.ttir")) + sorted(root.glob("corpus/*/kernel.ttir"))
same = 0
for k in kernels:
    name = f"{k.parent.parent.name}/{k.parent.name}"
    want = tomllib.loads((k.parent / "kernel.launch.toml").read_text())
    with tempfile.TemporaryDirectory() as t:
        bare = pathlib.Path(t) / "kernel.ttir"
        shutil.copy(k, bare)
        r = subprocess.run([str(lift), "spec", str(bare), "--write-launch"],
                           capture_output=True, text=True)
        written = bare.with_suffix(".launch.toml")
        if not written.exists():
            err = (r.stderr.strip().splitlines() or ["no output"])[-1]
            print(f"{name}: not inferred: {err[:160]}")
            continue
        got = tomllib.loads(written.read_text())
    diff = first_difference(want, got)
    if diff:
        print(f"{name}: differs: {diff[:160]}")
    else:
        same += 1
print(f"\n{same} of {len(kernels)} launches reproduced "
      f"({100 * same / len(kernels):.1f} %)")
