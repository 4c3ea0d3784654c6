#!/usr/bin/env bash
# Unbounded verification time per suite kernel: runs `lift KERNEL --format json` on every
# triton_ir/*/kernel.ttir and prints a markdown table (kernel, verdict, time of the
# unbounded step alone, paths) and a summary line. Needs a release build and python3.
#   benchmarks/verify_all.sh [extra lift args, e.g. --size N=64]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/lift
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 2; }
echo "| kernel | verdict | time (ms) | paths |"
echo "|---|---|---|---|"
for k in triton_ir/*/kernel.ttir; do
    name=$(basename "$(dirname "$k")")
    "$bin" "$k" --format json "$@" 2>/dev/null | python3 -c '
import json, sys
name = sys.argv[1]
try:
    d = json.load(sys.stdin)
except Exception:
    print(f"| {name} | no lift | | |"); sys.exit()
a = d.get("all_sizes") or {}
print(f"| {name} | {a.get(\"verdict\", \"-\")} | {a.get(\"time_ms\", 0):.1f} | {a.get(\"paths\", 0)} |")
' "$name" || true
done
