#!/usr/bin/env bash
# Same input, same verdict, whatever the machine's load: runs every suite kernel
# (triton_ir/*/ and corpus/*/, `lift KERNEL` and `lift check KERNEL --spec SPEC` with the
# fixture's spec) twice, once on the machine as it is and once with every core kept busy
# by busy-loop processes (two per core), and compares the two passes: exit codes and
# whole outputs, with durations ("12.3 ms", "0.5 s") blanked. Prints each difference and
# exits 1 when there is one, 0 when the passes agree.
#
#   scripts/determinism.sh [--lift PATH] [--base PATH] [--only REGEX] [--keep DIR]
#
# --lift  the binary (default target/release/lift; build first: cargo build --release)
# --base  compare against a second binary instead of a loaded machine: pass 2 runs PATH
#         (an older build) with no busy loops, so a refactor shows "all verdicts equal"
# --only  only the kernels whose folder matches REGEX (grep -E)
# --keep  write both passes' outputs under DIR (default: a temporary folder, removed)
#
# Needs python3 >= 3.11 (tomllib) to read the fixtures' specs.
set -euo pipefail
cd "$(dirname "$0")/.."

lift=target/release/lift
base=
only=.
keep=
while [ $# -gt 0 ]; do
    case "$1" in
        --lift) lift=$2; shift 2 ;;
        --base) base=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --keep) keep=$2; shift 2 ;;
        *) echo "usage: $0 [--lift PATH] [--base PATH] [--only REGEX] [--keep DIR]" >&2; exit 2 ;;
    esac
done
[ -x "$lift" ] || { echo "no lift binary at $lift (cargo build --release)" >&2; exit 2; }
[ -z "$base" ] || [ -x "$base" ] || { echo "no base binary at $base" >&2; exit 2; }

out=${keep:-$(mktemp -d)}
mkdir -p "$out"
[ -n "$keep" ] || trap 'rm -rf "$out"' EXIT

# One command a line: NAME<TAB>ARGS as a JSON list (specs hold spaces and quotes).
python3 - "$only" >"$out/commands" <<'EOF'
import json, pathlib, re, sys, tomllib
only = re.compile(sys.argv[1])
for suite in ["triton_ir", "corpus"]:
    for k in sorted(pathlib.Path(suite).glob("*/kernel.ttir")):
        d = k.parent
        if not only.search(str(d)):
            continue
        print(f"{d}/lift\t{json.dumps([str(k)])}")
        meta = tomllib.loads((d / "fixture.toml").read_text())
        if meta.get("spec"):
            print(f"{d}/check\t{json.dumps(['check', str(k), '--spec', meta['spec']])}")
EOF

# Runs every command; one file per command: exit code, then stdout with durations blanked.
pass() {
    local dir=$1 bin=${2:-$lift}
    mkdir -p "$dir"
    python3 - "$bin" "$out/commands" "$dir" <<'EOF'
import json, pathlib, re, subprocess, sys
lift, commands, dir = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
duration = re.compile(r"\d+(\.\d+)? ?(ms|s)\b")
for line in open(commands):
    name, args = line.rstrip("\n").split("\t")
    p = subprocess.run([lift, *json.loads(args)], capture_output=True, text=True)
    text = duration.sub("<time>", p.stdout)
    (dir / name.replace("/", "__")).write_text(f"exit {p.returncode}\n{text}")
EOF
}

echo "pass 1: as the machine is ($(wc -l <"$out/commands") commands)"
t0=$(date +%s)
pass "$out/idle"
echo "  $(($(date +%s) - t0)) s"

if [ -n "$base" ]; then
    echo "pass 2: the base binary $base"
    t0=$(date +%s)
    pass "$out/busy" "$base"
    echo "  $(($(date +%s) - t0)) s"
fi

busy=()
stop_busy() {
    for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done
    busy=()
}
trap 'stop_busy; [ -n "$keep" ] || rm -rf "$out"' EXIT
[ -n "$base" ] || for _ in $(seq $((2 * $(nproc)))); do
    ( while :; do :; done ) &
    busy+=("$!")
done
if [ -z "$base" ]; then
    echo "pass 2: with ${#busy[@]} busy loops on $(nproc) cores"
    t0=$(date +%s)
    pass "$out/busy"
    echo "  $(($(date +%s) - t0)) s"
    stop_busy
fi

differ=0
for f in "$out"/idle/*; do
    name=$(basename "$f")
    if ! cmp -s "$f" "$out/busy/$name"; then
        differ=$((differ + 1))
        echo "DIFFERS: ${name//__//}"
        diff "$f" "$out/busy/$name" | head -20 || true
    fi
done
total=$(ls "$out/idle" | wc -l)
if [ "$differ" -gt 0 ]; then
    echo "$differ of $total commands differ between pass 1 and pass 2"
    exit 1
fi
echo "all $total commands gave the same exit code and output in both passes"
