#!/usr/bin/env python3
"""Rebuild the TMA tensor-map corpus (`ptx/tensormap/`) from its CUDA sources with NVRTC.

Usage (from anywhere):

    python3 ptx/tensormap/generate.py             # every kernel
    python3 ptx/tensormap/generate.py tma_made    # some (file stems)

Kernels for Hopper (compute_90a, -lineinfo, C++17) that build their own TMA tensor map
with inline PTX, as Triton's `tl.make_tensor_descriptor` does (`ptx/triton/matmul_tma_*`):
`tensormap.replace` of each field in a zeroed shared template, `tensormap.cp_fenceproxy`
to a global map, `fence.proxy.tensormap` acquire, then `cp.async.bulk.tensor` through the
map completing on an mbarrier. Each `<name>.cu` has the header of `ptx/races/`
(`// expect:`, `// why:`, `// launch:`, `// arg:`).

The bug twins are not written by hand: TWINS below makes each from the correct kernel
by one textual edit (which must match exactly once), writes `<twin>.cu` with its own
header and compiles it like the others. What each twin must give follows from the edit.
Every PTX file is assembled with the Triton wheel's ptxas for sm_90a.
`tests/it/ptx_tma.rs` runs `lift race` and `lift equiv` on each.
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
# twin name -> (correct kernel, expect, why, [(old, new)])
TWINS = {
    "tma_made_no_fence": ("tma_made", "RACE", [
        "tma_made.cu without the fence.proxy.tensormap acquire after the copy of the map:",
        "  the tensor-map proxy may read the global map's stale bytes, so the tensor copy",
        "  is not ordered after the map's copy (a finding naming the map and the copy)",
    ], [('        asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(gmap) : "memory");\n', "")]),
    "tma_made_box_rows": ("tma_made", "DEADLOCK", [
        "tma_made.cu with a box of 8 rows instead of 16: the copy completes 1024 bytes",
        "  of the 2048 its expect_tx announced, so phase 0 of the mbarrier never completes",
        "  and every thread waits for it (an expect_tx mismatch)",
    ], [('"tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(map), "r"(16)',
         '"tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(map), "r"(8)')]),
}


def write_twins():
    for name, (source, expect, why, edits) in TWINS.items():
        C.write_twin("tensormap", name, source, [f"expect: {expect}"], why, edits)


if __name__ == "__main__":
    C.main("tensormap", sys.argv[1:], write_twins, OPTIONS + [f"-I{base.cuda_include()}", f"-I{base.cccl_include()}"], "sm_90a")
