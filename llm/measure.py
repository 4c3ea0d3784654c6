#!/usr/bin/env python3
"""Measure the LLM-style set with the release binary: `lift check` on every check of
llm/set.toml and `lift KERNEL` (a formula) on every correct kernel, one command at a
time, with wall-clock seconds per command. Prints the rates and a Markdown table for
benchmarks/RESULTS.md.

    cargo build --release && python3 llm/measure.py [--no-lift] [NAME ...]
"""
import os
import statistics
import subprocess
import sys
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIFT = os.path.join(ROOT, "target", "release", "lift")
VERDICT = {0: "verified", 1: "refuted", 2: "error", 3: "unknown"}


def run(args, timeout=120):
    t = time.time()
    try:
        p = subprocess.run([LIFT, *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
        rc, out = p.returncode, (p.stdout + p.stderr)
    except subprocess.TimeoutExpired:
        rc, out = 124, "timeout"
    return rc, time.time() - t, out


def main(argv):
    with open(os.path.join(ROOT, "llm", "set.toml"), "rb") as f:
        checks = tomllib.load(f)["check"]
    names = [a for a in argv if not a.startswith("--")]
    if names:
        checks = [c for c in checks if any(n in c["name"] for n in names)]
    times, rows = [], []
    correct = verified = wrong = caught = 0
    for c in checks:
        rc, dt, out = run(["check", "llm/" + c["kernel"], "--spec", c["spec"], "--scope", "instance"])
        times.append(dt)
        got = VERDICT.get(rc, f"rc {rc}")
        if rc == 1 and "data race" in out:
            got = "race"
        elif rc == 1 and "undefined value" in out:
            got = "undefined"
        elif rc == 1 and "OUT OF BOUNDS" in out:
            got = "fault"
        if c["expect"] == "verified":
            correct += 1
            verified += got == "verified"
        else:
            wrong += 1
            caught += got in ("refuted", "race", "undefined", "fault")
        rows.append((c["name"], c["expect"], got, dt))
    lifted, lift_times, kernels = 0, [], []
    if "--no-lift" not in argv:
        seen = set()
        for c in checks:
            if c["expect"] != "verified" or c["kernel"] in seen:
                continue
            seen.add(c["kernel"])
            rc, dt, out = run(["llm/" + c["kernel"]])
            lift_times.append(dt)
            ok = rc == 0
            lifted += ok
            kernels.append((c["kernel"], ok, dt, "" if ok else out.strip().splitlines()[-1][:120]))
    print("| check | expect | got | seconds |\n|---|---|---|---|")
    for name, expect, got, dt in rows:
        print(f"| {name} | {expect} | {got} | {dt:.2f} |")
    if kernels:
        print("\n| kernel | formula | seconds | why not |\n|---|---|---|---|")
        for k, ok, dt, why in kernels:
            print(f"| {k} | {'yes' if ok else 'no'} | {dt:.2f} | {why} |")
    print(f"\ncheck: {verified}/{correct} correct VERIFIED ({100 * verified / max(correct, 1):.1f}%), "
          f"{caught}/{wrong} wrong REFUTED/RACE/undefined/fault; median {statistics.median(times):.3f} s "
          f"per check command")
    if kernels:
        print(f"lift: {lifted}/{len(kernels)} correct kernels get a formula "
              f"({100 * lifted / len(kernels):.1f}%); median {statistics.median(lift_times):.3f} s "
              f"per lift command")


if __name__ == "__main__":
    main(sys.argv[1:])
