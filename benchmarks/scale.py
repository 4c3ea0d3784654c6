#!/usr/bin/env python3
"""Issue 16's scale harness: wall time and peak RSS of `lift equiv` and `lift race` on
the SGEMM tutorial series (ptx/sgemm/, the whole 128 x 128 output) as K grows, and of
`lift equiv` on the flash-attention pair (ptx/flash_attn/, N = 128, D = 64).

Usage (from anywhere; paths are resolved against the repository root):

    python3 benchmarks/scale.py                  # K = 32, 64, 128, 256, 512
    python3 benchmarks/scale.py --quick          # K <= 64 (and flash attention at N = 32)
    python3 benchmarks/scale.py --only blocktile_2d --no-flash --timeout 120
    python3 benchmarks/scale.py --k 32,512 --no-race

Each run is `/usr/bin/time -f "%e %M" target/release/lift ...` with a per-run timeout
(default 300 s; a run past it is killed and reported as TIMEOUT). Build first with
`cargo build --release`. The issue's targets (measured on the 2-core machine): time and
memory growing linearly in K from 32 to 512, the K = 512 pairs proved in <= 60 s and
<= 4 GB, `lift race` on one 256-thread CTA at K = 512 in <= 5 s and <= 512 MB, the
flash-attention pair at N = 128, D = 64 in <= 30 s. The script prints a Markdown table
(for benchmarks/RESULTS.md) and, per pair, the growth of time and memory from the
smallest to the largest K against the growth of K. It asserts nothing.
"""
import argparse
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SGEMM = "ptx/sgemm"
REFERENCE = "naive"
# The correct SGEMM variants, proved against naive; `coalesced` (bfi.b32, which the
# executor lacks) is listed too so that the table shows where it stands.
PAIRS = ["coalesced", "coalesced_offsets", "smem_tiled", "blocktile_1d", "blocktile_2d",
         "vectorized", "warptile"]
# `lift race` targets: the one-CTA kernels (blocktile_2d and vectorized are the issue's
# "one 256-thread CTA"), and the racy twin.
RACES = ["blocktile_2d", "vectorized", "warptile", "blocktile_2d_no_sync"]
KS = [32, 64, 128, 256, 512]
# FlashAttention-1 (output renormalised per tile) and -2 style (divided once at the end)
FLASH = ["flash1", "flash2"]

EXIT = {0: "VERIFIED/SAFE", 1: "REFUTED/RACE", 2: "usage error", 3: "UNKNOWN"}


def run(cmd, timeout):
    """Run `cmd` under /usr/bin/time; (exit code, verdict line, seconds, peak MB)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        full = ["/usr/bin/time", "-f", "%e %M", "-o", tf.name] + cmd
        start = time.monotonic()
        p = subprocess.Popen(full, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, start_new_session=True)
        try:
            out, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return None, "TIMEOUT", time.monotonic() - start, None
        fields = tf.read().split()
    secs, rss_mb = None, None
    try:
        secs, rss_mb = float(fields[-2]), int(fields[-1]) / 1024
    except (IndexError, ValueError):
        pass
    lines = [ln for ln in out.splitlines() if ln.strip()]
    verdict = next((ln for ln in reversed(lines)
                    if ln.split()[0] in ("VERIFIED", "REFUTED", "RACE", "SAFE", "UNKNOWN",
                                         "DEADLOCK", "error:")), lines[-1] if lines else "")
    word = verdict.split()[0] if verdict else "?"
    if word == "error:":
        word = "ERROR: " + verdict[len("error: "):][:120]
    return p.returncode, word, secs, rss_mb


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="K <= 64 only (flash at N = 32)")
    ap.add_argument("--k", help="comma-separated K values (default 32,64,128,256,512)")
    ap.add_argument("--only", help="comma-separated SGEMM variants (default: all)")
    ap.add_argument("--timeout", type=float, default=300.0, help="per-run limit, s")
    ap.add_argument("--no-equiv", action="store_true")
    ap.add_argument("--no-race", action="store_true")
    ap.add_argument("--no-flash", action="store_true")
    ap.add_argument("--lift", default=os.path.join(ROOT, "target", "release", "lift"))
    args = ap.parse_args(argv)

    if not os.path.exists(args.lift):
        raise SystemExit(f"{args.lift} missing: run `cargo build --release` first")
    ks = [int(k) for k in args.k.split(",")] if args.k else KS
    if args.quick:
        ks = [k for k in ks if k <= 64]
    only = set(args.only.split(",")) if args.only else None
    pick = (lambda vs: [v for v in vs if only is None or v in only])
    sgemm_sizes = lambda k: ["--size", "M=128", "--size", "N=128", "--size", f"K={k}"]

    jobs = []  # (command kind, what, size label, argv)
    if not args.no_equiv:
        for v in pick(PAIRS):
            for k in ks:
                jobs.append(("equiv", f"naive vs {v}", f"K={k}",
                             [args.lift, "equiv", f"{SGEMM}/{REFERENCE}.ptx", f"{SGEMM}/{v}.ptx"]
                             + sgemm_sizes(k)))
    if not args.no_race:
        for v in pick(RACES):
            for k in ks:
                jobs.append(("race", v, f"K={k}",
                             [args.lift, "race", f"{SGEMM}/{v}.ptx"] + sgemm_sizes(k)))
    if not args.no_flash:
        n = 32 if args.quick else 128
        for v in FLASH:
            jobs.append(("equiv", f"flash_attn naive vs {v}", f"N={n}, D=64",
                         [args.lift, "equiv", "ptx/flash_attn/naive.ptx", f"ptx/flash_attn/{v}.ptx",
                          "--size", f"N={n}", "--size", "D=64"]))

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    print(f"benchmarks/scale.py {' '.join(argv)}  (commit {commit}, {platform.node()}, "
          f"{os.cpu_count()} cores, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"timeout {args.timeout:g} s)\n")
    print("| command | pair | size | verdict | exit | wall s | peak RSS MB |")
    print("|---|---|---|---|---|---|---|")
    results = []
    for kind, what, size, cmd in jobs:
        code, word, secs, rss = run(cmd, args.timeout)
        results.append((kind, what, size, code, word, secs, rss))
        print(f"| {kind} | {what} | {size} | {word} | {fmt(code, 'd')} | {fmt(secs, '.2f')} "
              f"| {fmt(rss, '.0f')} |", flush=True)

    # growth from the smallest to the largest K, per pair (linear: time ratio ~ K ratio)
    by = {}
    for kind, what, size, code, word, secs, rss in results:
        if size.startswith("K=") and secs is not None and code in (0, 1):
            by.setdefault((kind, what), []).append((int(size[2:]), secs, rss))
    if by:
        print("\n| command | pair | K range | K ratio | time ratio | RSS ratio |")
        print("|---|---|---|---|---|---|")
        for (kind, what), pts in by.items():
            if len(pts) < 2:
                continue
            (k0, t0, m0), (k1, t1, m1) = min(pts), max(pts)
            print(f"| {kind} | {what} | {k0}..{k1} | {k1 / k0:.0f} | "
                  f"{t1 / max(t0, 1e-3):.1f} | {m1 / max(m0, 1e-3):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
