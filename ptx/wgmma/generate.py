#!/usr/bin/env python3
"""Rebuild the Hopper tensor-core corpus (`ptx/wgmma/`) from its CUDA sources with NVRTC.

Usage (from anywhere):

    python3 ptx/wgmma/generate.py              # every kernel
    python3 ptx/wgmma/generate.py wgmma_gemm   # some (file stems)

Kernels for Hopper (compute_90a, -lineinfo, C++17, the CUDA runtime headers of the pip
wheel): `wgmma_gemm` is a float16 GEMM with a float32 accumulator on the warpgroup
tensor cores, with inline PTX: tiles stored to shared memory in the 32-byte swizzle,
`fence.proxy.async`, `wgmma.fence`, `wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16`
on two shared-memory matrix descriptors, `wgmma.commit_group`/`wait_group`. Its
reference is `ptx/mma/naive_f16` (one thread per element). Each `<name>.cu` has the
header of `ptx/races/` (`// expect:` is lift race's verdict) plus `// equiv:`, what
`lift equiv` against `ptx/mma/naive_f16` gives at the launch's sizes.

The bug twins are not written by hand: TWINS below makes each from `wgmma_gemm.cu` by
textual edits (each must match exactly once). What each must give follows from the edit:
no `wgmma.wait_group` at all (RACE: the accumulators are stored while the last
operation is in flight), the wait moved out of the K loop (RACE: the next K step
overwrites the tiles the previous operation may still be reading), and descriptors
that say "no swizzle" for swizzled tiles (REFUTED: the operation reads other elements).

Every PTX file is assembled with the Triton wheel's ptxas for sm_90a (.venv-gen) and
must assemble. `tests/it/ptx_wgmma.rs` checks the verdicts.
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
LOOP_WAIT = ('        asm volatile("wgmma.wait_group.sync.aligned 0;\\n" ::: "memory");\n'
             '        __syncthreads();\n    }\n')
# twin name -> (correct kernel, expect, equiv, why, [(old, new), ...])
TWINS = {
    "wgmma_gemm_no_wait": ("wgmma_gemm", "RACE", "race", [
        "no wgmma.wait_group: the accumulator registers are stored while the last",
        "  wgmma.mma_async may still be writing them",
    ], [(LOOP_WAIT, "        __syncthreads();\n    }\n"),
        ('    asm volatile("wgmma.wait_group.sync.aligned 0;\\n" ::: "memory");\n    for', "    for")]),
    "wgmma_gemm_wait_after_loop": ("wgmma_gemm", "RACE", "race", [
        "the wait is after the K loop only: the next K step's stores overwrite the",
        "  tiles the previous wgmma.mma_async may still be reading (K = 32: two steps)",
    ], [(LOOP_WAIT, "        __syncthreads();\n    }\n")]),
    "wgmma_gemm_unswizzled_desc": ("wgmma_gemm", "SAFE", "refuted", [
        "the descriptors say no swizzle (mode 0) for tiles stored in the 32-byte",
        "  swizzle: the operation reads other elements; no access changes",
    ], [("((256ull >> 4) << 32) | (3ull << 62)", "((256ull >> 4) << 32) | (0ull << 62)")]),
}


def write_twins():
    for name, (source, expect, equiv, why, edits) in TWINS.items():
        C.write_twin("wgmma", name, source, [f"expect: {expect}", f"equiv: {equiv}"], why, edits)


if __name__ == "__main__":
    C.main("wgmma", sys.argv[1:], write_twins, OPTIONS + [f"-I{base.cuda_include()}"], "sm_90a")
