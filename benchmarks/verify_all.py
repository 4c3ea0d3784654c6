#!/usr/bin/env python3
"""Unbounded verification time per suite kernel.

Runs `target/release/lift KERNEL --format json [ARGS]` on every triton_ir/*/kernel.ttir
and prints a markdown table (kernel, verdict, time of the unbounded step alone, paths)
followed by a summary line. With `--check` first, runs `lift check KERNEL --spec SPEC`
instead, SPEC from the kernel's fixture.toml (the spec proved for every size). Build
first: cargo build --release.

    python3 benchmarks/verify_all.py [--check] [extra lift args, e.g. --size N=64]
"""
import json
import pathlib
import statistics
import subprocess
import sys
import tomllib

check = sys.argv[1:2] == ["--check"]
extra = sys.argv[2:] if check else sys.argv[1:]

root = pathlib.Path(__file__).resolve().parent.parent
lift = root / "target" / "release" / "lift"
rows = []
for k in sorted(root.glob("triton_ir/*/kernel.ttir")):
    name = k.parent.name
    cmd = [str(lift), str(k), "--format", "json", *extra]
    if check:
        meta = tomllib.loads((k.parent / "fixture.toml").read_text())
        cmd = [str(lift), "check", str(k), "--spec", meta["spec"], "--format", "json", *extra]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=root).stdout
    try:
        a = json.loads(out).get("all_sizes") or {}
    except json.JSONDecodeError:
        a = {}
    rows.append((name, a.get("verdict", "not run"), a.get("time_ms", 0.0), a.get("paths", 0)))
print("| kernel | verdict | time (ms) | paths |")
print("|---|---|---|---|")
for name, verdict, ms, paths in rows:
    print(f"| {name} | {verdict} | {ms:.1f} | {paths} |")
proved = [ms for _, v, ms, _ in rows if v == "verified"]
count = {v: sum(1 for r in rows if r[1] == v) for v in sorted({r[1] for r in rows})}
print()
print(f"verdicts: {count}; proved: median {statistics.median(proved):.0f} ms, "
      f"max {max(proved):.0f} ms, sum {sum(proved) / 1000:.1f} s; "
      f"all kernels summed {sum(r[2] for r in rows) / 1000:.1f} s")
