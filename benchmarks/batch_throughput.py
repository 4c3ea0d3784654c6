"""Throughput of `lift.batch` over the whole batch suite (tests/batch/suite.toml: every
suite and corpus kernel, `lift` and `check`), in this process and as Ray tasks on a
local Ray cluster, and whether the two give the same records (`seconds` aside).

    .venv-python/bin/python benchmarks/batch_throughput.py [--cpus 2]

Prints one line per executor (jobs, wall seconds, jobs per minute) and the number of
records that differ; results go to benchmarks/RESULTS.md by hand. Needs the Python
package (`bash scripts/setup.sh` builds it into .venv-python) and Ray.
"""
import argparse
import os
import time

import lift

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(ROOT, "tests", "batch", "suite.toml")


def without_seconds(records):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


def timed(executor):
    t0 = time.perf_counter()
    records = list(lift.batch(MANIFEST, executor=executor))
    return records, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpus", type=int, default=os.cpu_count())
    args = ap.parse_args()
    local, t_local = timed("local")
    import ray

    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    try:
        remote, t_ray = timed("ray")
    finally:
        ray.shutdown()
    n = len(local)
    for name, t in [("local", t_local), ("ray", t_ray)]:
        print(f"{name}: {n} jobs in {t:.1f} s wall = {60 * n / t:.1f} jobs/min")
    a, b = without_seconds(local), without_seconds(remote)
    differ = [x["id"] for x, y in zip(a, b) if x != y]
    print(f"records that differ (seconds aside): {len(differ)} {differ[:10]}")
    verdicts = {}
    for r in local:
        verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
    print("verdicts:", dict(sorted(verdicts.items())))


if __name__ == "__main__":
    main()
