#!/usr/bin/env python3
"""Rebuild the thread-block cluster corpus (`ptx/cluster/`) from its CUDA sources with NVRTC.

Usage (from anywhere):

    python3 ptx/cluster/generate.py               # every kernel
    python3 ptx/cluster/generate.py dsmem_sum     # some (file stems)

Kernels for Hopper (compute_90a, -lineinfo, C++17, the CUDA runtime and CCCL headers of
the pip wheels) that run as clusters of CTAs (`__cluster_dims__`, which NVRTC writes as
`.reqnctapercluster`) and share their shared memory through cooperative groups'
`this_cluster().map_shared_rank` (`mapa` and loads from distributed shared memory) and
`cluster.sync()` (`barrier.cluster.arrive` + `barrier.cluster.wait`). Each `<name>.cu`
has the header of `ptx/races/` (`// expect:`, `// why:`, `// launch:`, `// arg:`).

The bug twins are not written by hand: TWINS below makes each from a correct kernel by
textual edits (each must match exactly once), like ptx/mbarrier/generate.py. Every PTX
file is assembled with the Triton wheel's ptxas for sm_90a (.venv-gen).
`tests/it/ptx_cluster.rs` runs `lift race` on each and checks the expected verdict and
its trail.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PTX_DIR = os.path.dirname(HERE)
ROOT = os.path.dirname(PTX_DIR)
VENV = os.path.join(ROOT, ".venv-ptx")
VENV_PY = os.path.join(VENV, "bin", "python")

if os.path.realpath(sys.prefix) != os.path.realpath(VENV):
    if not os.path.exists(VENV_PY):
        raise SystemExit(".venv-ptx is missing: run `python3 ptx/generate.py` once to create it")
    os.execv(VENV_PY, [VENV_PY, os.path.abspath(__file__)] + sys.argv[1:])

sys.path.insert(0, PTX_DIR)
import generate as base  # noqa: E402  (chdir ROOT)
import nvrtc_corpus as C  # noqa: E402

OPTIONS = ["--gpu-architecture=compute_90a", "-lineinfo", "--std=c++17"]
# twin name -> (correct kernel, expect, why, [(old, new), ...])
TWINS = {
    "dsmem_sum_peer_exits": ("dsmem_sum", "RACE", [
        "the second cluster.sync() is gone: a CTA that has read its peer's tile returns",
        "  at once, and its shared memory goes with it, while nothing orders the peer's",
        "  read of that tile before the exit (the CUDA programming guide requires every",
        "  access to a block's distributed shared memory to happen before the block exits)",
    ], [("    y[i] = tile[threadIdx.x] + other[threadIdx.x];\n    cluster.sync();\n",
         "    y[i] = tile[threadIdx.x] + other[threadIdx.x];\n")]),
    "dsmem_sum_no_sync": ("dsmem_sum", "RACE", [
        "the first cluster.sync() is gone: a thread reads its peer's tile while the peer",
        "  may not have written it yet (the write and the read are in different CTAs with",
        "  no barrier.cluster between them)",
    ], [("    tile[threadIdx.x] = x[i];\n    cluster.sync();\n",
         "    tile[threadIdx.x] = x[i];\n")]),
    "dsmem_sum_wait_without_arrive": ("dsmem_sum", "DEADLOCK", [
        "the last thread of each CTA waits at the first cluster barrier without arriving",
        "  (cluster.barrier_wait() instead of cluster.sync()): phase 0 of the barrier",
        "  needs an arrival from every thread of the cluster that has not exited, the",
        "  waiting thread's own included, so every thread waits forever",
    ], [("    tile[threadIdx.x] = x[i];\n    cluster.sync();\n",
         "    tile[threadIdx.x] = x[i];\n    if (threadIdx.x != 127) cluster.sync(); else cluster.barrier_wait();\n")]),
}


def write_twins():
    for name, (source, expect, why, edits) in TWINS.items():
        C.write_twin("cluster", name, source, [f"expect: {expect}"], why, edits)
        # `write_twin` renames `void NAME(`; a cluster kernel's attribute sits between.
        path = os.path.join(HERE, f"{name}.cu")
        with open(path) as f:
            text = f.read()
        old = f"__cluster_dims__(2, 1, 1) {source}("
        if text.count(old) != 1:
            raise SystemExit(f"{name}: `{old}` matches {text.count(old)} times")
        base.write_text(path, text.replace(old, f"__cluster_dims__(2, 1, 1) {name}("))


if __name__ == "__main__":
    C.main("cluster", sys.argv[1:], write_twins, OPTIONS + [f"-I{base.cuda_include()}", f"-I{base.cccl_include()}"], "sm_90a")
