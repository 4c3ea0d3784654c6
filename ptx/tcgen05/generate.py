#!/usr/bin/env python3
"""Rebuild the Blackwell tensor-core corpus (`ptx/tcgen05/`) from its CUDA sources with NVRTC.

Usage (from anywhere):

    python3 ptx/tcgen05/generate.py                # every kernel
    python3 ptx/tcgen05/generate.py tcgen05_gemm   # some (file stems)

Kernels for Blackwell (compute_100a, -lineinfo, C++17, the CUDA runtime headers of the
pip wheel): `tcgen05_gemm` is a float16 GEMM with a float32 accumulator in tensor
memory, with inline PTX: `tcgen05.alloc`, tiles stored to shared memory in the
canonical K-major layout without swizzle, `fence.proxy.async`, one
`tcgen05.mma.cta_group::1.kind::f16` (M = 128, N = 16) per K step committed to an
mbarrier (`tcgen05.commit`), `mbarrier.try_wait.parity`, `tcgen05.ld.32x32b.x16`,
`tcgen05.wait::ld`, `tcgen05.dealloc`. Its reference is `ptx/mma/naive_f16` (one thread
per element). Each `<name>.cu` has the header of `ptx/races/` (`// expect:` is lift
race's verdict) plus `// equiv:`, what `lift equiv` against `ptx/mma/naive_f16` gives
at the launch's sizes.

The bug twins are not written by hand: TWINS below makes each from `tcgen05_gemm.cu` by
textual edits (each must match exactly once). What each must give follows from the
edit: the accumulator read before the last mma's mbarrier phase completes (RACE), the
next K step's tiles stored before the previous mma is known complete (RACE), no
`tcgen05.commit` (DEADLOCK: the phase the threads wait for never completes), the
loaded registers used before `tcgen05.wait::ld` (RACE), and an instruction descriptor
that says B is N-major for a K-major tile (REFUTED: the mma reads other elements), and
no `tcgen05.dealloc` (UNDEFINED BEHAVIOUR: tensor memory still allocated at exit).

Every PTX file is assembled with the Triton wheel's ptxas for sm_100a (.venv-gen) and
must assemble. `tests/it/ptx_tcgen05.rs` checks the verdicts.
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

OPTIONS = ["--gpu-architecture=compute_100a", "-lineinfo", "--std=c++17"]
FINAL_WAIT = "    wait(bar, phase);\n    asm volatile(\"tcgen05.fence::after_thread_sync"
LOOP_WAIT = ("        if (k0 > 0) {\n            // The previous step's mma has read its tiles.\n"
             "            wait(bar, phase);\n            phase ^= 1;\n        }\n")
COMMIT = ('            asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\\n"\n'
          '                         ::"r"(smem(bar)) : "memory");\n')
DEALLOC = ('    if (warp == 0) {\n        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;\\n" '
           '::"r"(tmem) : "memory");\n    }\n')
WAIT_LD = '    asm volatile("tcgen05.wait::ld.sync.aligned;\\n" ::: "memory");\n'
# twin name -> (correct kernel, expect, equiv, why, [(old, new), ...])
TWINS = {
    "tcgen05_gemm_read_before_wait": ("tcgen05_gemm", "RACE", "race", [
        "no wait after the K loop: tcgen05.ld reads the accumulator before the mbarrier",
        "  phase of the last mma's tcgen05.commit completes",
    ], [(FINAL_WAIT, "    asm volatile(\"tcgen05.fence::after_thread_sync")]),
    "tcgen05_gemm_no_loop_wait": ("tcgen05_gemm", "RACE", "race", [
        "no wait inside the K loop: the next step's stores overwrite the tiles the",
        "  previous tcgen05.mma may still be reading (K = 32: two steps)",
    ], [(LOOP_WAIT, "")]),
    "tcgen05_gemm_no_commit": ("tcgen05_gemm", "DEADLOCK", "deadlock", [
        "no tcgen05.commit: nothing arrives on the mbarrier, so the phase every thread",
        "  waits for never completes",
    ], [(COMMIT, "")]),
    "tcgen05_gemm_no_wait_ld": ("tcgen05_gemm", "RACE", "race", [
        "no tcgen05.wait::ld: the loaded registers are stored while tcgen05.ld may",
        "  still be writing them",
    ], [(WAIT_LD, "")]),
    "tcgen05_gemm_b_mn_major": ("tcgen05_gemm", "SAFE", "refuted", [
        "the instruction descriptor says B is N-major (bit 16) for a K-major tile: the",
        "  mma reads other elements; no access changes",
    ], [("#define IDESC 0x08040010u", "#define IDESC 0x08050010u")]),
    "tcgen05_gemm_no_dealloc": ("tcgen05_gemm", "UNDEFINED BEHAVIOUR", "undefined", [
        "no tcgen05.dealloc: the 32 columns of tensor memory warp 0 allocated are still",
        "  allocated when the CTA exits, which the PTX ISA leaves undefined",
    ], [(DEALLOC, "")]),
}


def write_twins():
    for name, (source, expect, equiv, why, edits) in TWINS.items():
        C.write_twin("tcgen05", name, source, [f"expect: {expect}", f"equiv: {equiv}"], why, edits)


if __name__ == "__main__":
    C.main("tcgen05", sys.argv[1:], write_twins, OPTIONS + [f"-I{base.cuda_include()}"], "sm_100a")
