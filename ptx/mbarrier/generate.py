#!/usr/bin/env python3
"""Rebuild the mbarrier pipeline corpus (`ptx/mbarrier/`) from its CUDA sources with NVRTC.

Usage (from anywhere):

    python3 ptx/mbarrier/generate.py          # every kernel
    python3 ptx/mbarrier/generate.py ring     # some (file stems)

Kernels for Hopper (compute_90a, -lineinfo, C++17, the CUDA runtime and CCCL headers
of the pip wheels): mbarrier pipelines written with libcu++ (`cuda::barrier` and
`cuda::memcpy_async`, which NVRTC lowers to `cp.async.bulk` and mbarrier
`expect_tx`/`try_wait`) and with inline PTX (producer/consumer rings of full and
empty mbarriers, no `bar.sync` in the hand-off). Each `<name>.cu` has the header of
`ptx/races/` (`// expect:`, `// why:`, `// launch:`, `// arg:`; see
ptx/races/generate.py), whose verdicts here include UNKNOWN: `tma_box` is a TMA tensor
copy (`[tmap, {c0, c1}]` of a `__grid_constant__` descriptor whose `.param` address the
kernel takes, `%cluster_ctarank`) that lift parses and reports as unsupported at its line.

The bug twins are not written by hand: TWINS below makes each from a correct kernel
by textual edits (each must match exactly once), writes `<twin>.cu` (with its own
expect/why header) and compiles it like the others. What each twin must give follows
from the edit: a wrong initial phase parity, a missing arrive on the empty barrier,
`expect_tx` bytes too many or too few, a read before the wait.

Every PTX file is assembled with the Triton wheel's ptxas for sm_90a (.venv-gen) and
must assemble (a hard error when ptxas is missing: fixtures are valid PTX).
`tests/it/ptx_mbarrier.rs` runs `lift race` on each and checks the expected verdict
and that a finding names the barrier, the phase and the line.
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
# twin name -> (correct kernel, expect, why, [(old, new), ...]); `ring128` is no bug
# twin but the ring at 128 threads (96 consumers), the size benchmarks/RESULTS.md times.
TWINS = {
    "ring128": ("ring", "SAFE", [
        "ring.cu with one producer warp and three consumer warps (96 consumers, tiles",
        "  of 96 floats): the same hand-off, so the same reasons",
    ], [("#define TILE 64", "#define TILE 96"), ("#define CONSUMERS 64", "#define CONSUMERS 96"),
        ("// launch: block = [96]", "// launch: block = [128]"),
        ('shape = ["B", "K", 64]', 'shape = ["B", "K", 96]'),
        ('shape = ["B", 64]', 'shape = ["B", 96]')]),
    "ring_wrong_parity": ("ring", "DEADLOCK", [
        "the producer waits on the empty barrier with parity ph instead of ph ^ 1: in",
        "  round 0 that is the phase still open (nobody has consumed anything), so it waits",
        "  for the consumers, who wait for the first full phase it never arms",
    ], [("mbar_wait(&empty[s], ph ^ 1);", "mbar_wait(&empty[s], ph);")]),
    "ring_missing_arrive": ("ring", "DEADLOCK", [
        "consumer thread 63 never arrives on the empty barrier, which expects 64 arrivals:",
        "  stage 0 is never empty again, so the producer waits forever in round 1 (k = 2)",
        "  and the consumers wait forever for the tile it does not load",
    ], [("mbar_arrive(&empty[s]);", "if (i != CONSUMERS - 1) mbar_arrive(&empty[s]);")]),
    "ring_tx_too_many": ("ring", "DEADLOCK", [
        "the producer expects 16 bytes more than the copy brings: the full barrier's",
        "  transaction count never reaches zero, so the consumers wait forever",
    ], [("mbar_arrive_expect_tx(&full[s], TILE * sizeof(float));",
         "mbar_arrive_expect_tx(&full[s], TILE * sizeof(float) + 16);")]),
    "ring_tx_too_few": ("ring", "DEADLOCK", [
        "the producer expects 16 bytes fewer than the copy brings: the copy completes",
        "  256 bytes on a phase armed with 240, the transaction count goes to -16 and",
        "  never returns to zero (lift completes a copy's bytes at once; on a GPU the",
        "  phase may instead complete early and the read races with the copy's tail)",
    ], [("mbar_arrive_expect_tx(&full[s], TILE * sizeof(float));",
         "mbar_arrive_expect_tx(&full[s], TILE * sizeof(float) - 16);")]),
    "ring_read_before_wait": ("ring", "RACE", [
        "the consumers read their element before waiting on the full barrier: the read",
        "  is not ordered after the bulk copy that writes the stage",
    ], [("            mbar_wait(&full[s], ph);\n            acc += buf[s][i];\n",
         "            acc += buf[s][i];\n            mbar_wait(&full[s], ph);\n")]),
    "ring_ws_no_consumer_barrier": ("ring_ws", "RACE", [
        "the consumers read their neighbour's sum without the barrier of the consumer",
        "  warps: consumer 31 (a lane of warp 1) reads part[32], which consumer 32 (warp",
        "  2) writes, with nothing ordering the two",
    ], [("        consumers_sync(1, CONSUMERS);\n", "")]),
    "ring_k3_skips_tile": ("ring", "DEADLOCK", [
        "the producer loads one tile fewer when K mod 4 == 3: at the launch's K = 5 the",
        "  ring is safe, but at K = 3 (and 7, 11, ...) the consumers wait forever on the",
        "  full barrier of the last tile, which nobody arms; only a check over every K",
        "  finds it",
    ], [("        if (tid == 0) {\n            for (int k = 0; k < k_tiles; ++k) {",
         "        if (tid == 0) {\n            for (int k = 0; k < k_tiles - (k_tiles % 4 == 3); ++k) {")]),
    "ring_k41_skips_tile": ("ring", "DEADLOCK", [
        "the producer loads one tile fewer when K > 40: safe at every K up to 40, so",
        "  neither the launch's K = 5 nor the counts run one by one show it; the",
        "  repetition proof must not prove it safe (its branch on K is decided",
        "  differently at larger K), and the counts run after the proof fails find it",
        "  at K = 41",
    ], [("        if (tid == 0) {\n            for (int k = 0; k < k_tiles; ++k) {",
         "        if (tid == 0) {\n            for (int k = 0; k < k_tiles - (k_tiles > 40); ++k) {")]),
    "barrier_copy_missing_arrive": ("barrier_copy", "DEADLOCK", [
        "the barrier is initialised for one thread more than the block has: the phase",
        "  the copy completes never gets its last arrival, so every thread waits forever",
    ], [("init(&bar, blockDim.x);", "init(&bar, blockDim.x + 1);")]),
    "barrier_copy_read_before_wait": ("barrier_copy", "RACE", [
        "every thread reads the tile before it waits on the barrier the copy completes:",
        "  the read is not ordered after the bulk copy's write",
    ], [("    bar.arrive_and_wait();\n    const float v = tile[127 - threadIdx.x];\n",
         "    const float v = tile[127 - threadIdx.x];\n    bar.arrive_and_wait();\n")]),
}


def write_twins():
    for name, (source, expect, why, edits) in TWINS.items():
        C.write_twin("mbarrier", name, source, [f"expect: {expect}"], why, edits)


if __name__ == "__main__":
    C.main("mbarrier", sys.argv[1:], write_twins, OPTIONS + [f"-I{base.cuda_include()}", f"-I{base.cccl_include()}"], "sm_90a")
