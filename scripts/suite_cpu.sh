#!/usr/bin/env bash
# User CPU of `lift KERNEL` (the all-sizes step, whole process) on every suite kernel
# (triton_ir/*/kernel.ttir and corpus/*/kernel.ttir), one line a kernel, sorted with the
# costliest first, then the sum and the verdicts' counts. CPU (user + sys of the child) is
# the figure to compare on a shared machine; wall time is printed beside it. The verdict
# is the all-sizes one the report prints (VERIFIED for all sizes, REFUTED at sizes,
# UNKNOWN), else the exit code. With --check, times `lift check KERNEL --spec SPEC` instead,
# on every kernel whose fixture.toml has a spec (python3 >= 3.11 for tomllib).
#
#   scripts/suite_cpu.sh [--lift PATH] [--only REGEX] [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
lift=target/release/lift
only=.
mode=lift
while [ $# -gt 0 ]; do
    case "$1" in
        --lift) lift=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --check) mode=check; shift ;;
        *) echo "usage: $0 [--lift PATH] [--only REGEX] [--check]" >&2; exit 2 ;;
    esac
done
[ -x "$lift" ] || { echo "no lift binary at $lift (cargo build --release)" >&2; exit 2; }
python3 - "$lift" "$only" "$mode" <<'PY'
import os, pathlib, re, resource, subprocess, sys, time
lift, only, mode = sys.argv[1], re.compile(sys.argv[2]), sys.argv[3]
rows, sums = [], {}
for suite in ["triton_ir", "corpus"]:
    for k in sorted(pathlib.Path(suite).glob("*/kernel.ttir")):
        if not only.search(str(k.parent)):
            continue
        args = [lift, str(k)]
        if mode == "check":
            import tomllib
            spec = tomllib.loads((k.parent / "fixture.toml").read_text()).get("spec")
            if not spec:
                continue
            args = [lift, "check", str(k), "--spec", spec]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        p = subprocess.run(args, capture_output=True, text=True)
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        user = after.ru_utime - before.ru_utime
        cpu = user + after.ru_stime - before.ru_stime
        # The all-sizes step's verdict, as the report prints it.
        if "for all sizes: UNKNOWN" in p.stdout:
            verdict = "UNKNOWN"
        elif "REFUTED at" in p.stdout:
            verdict = "REFUTED"
        elif re.search(r"\bfor all \w", p.stdout):
            verdict = "VERIFIED"
        else:
            verdict = f"exit {p.returncode}"
        rows.append((user, cpu, wall, verdict, str(k.parent)))
        sums[suite] = sums.get(suite, 0.0) + user
for user, cpu, wall, verdict, name in sorted(rows, reverse=True):
    print(f"{user:8.3f} user {cpu:8.3f} cpu {wall:8.3f} wall  {verdict:9} {name}")
for suite, s in sums.items():
    print(f"sum user {suite}: {s:.2f} s")
unknown = [r for r in rows if r[3] == "UNKNOWN"]
if unknown:
    u = max(unknown)
    print(f"max UNKNOWN: {u[0]:.3f} s user, {u[4]}")
counts = {}
for r in rows:
    counts[r[3]] = counts.get(r[3], 0) + 1
print("verdicts:", ", ".join(f"{v} {n}" for v, n in sorted(counts.items())))
PY
