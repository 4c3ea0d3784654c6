#!/usr/bin/env python3
"""Rebuild the tensor-core corpus (`ptx/mma/`) from its CUDA sources with NVRTC.

Usage (from anywhere):

    python3 ptx/mma/generate.py            # every kernel
    python3 ptx/mma/generate.py mma_gemm   # some (file stems)

Kernels for Ampere (compute_80, -lineinfo, C++17, the CUDA runtime headers of the pip
wheel): `mma_gemm` is a float16 GEMM with a float32 accumulator written as Ampere code
does it, with inline PTX: `cp.async.cg` 16-byte copies of the tiles to shared memory,
`cp.async.commit_group`/`wait_group`, `ldmatrix .x4` and `.x2.trans`, and
`mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`; `naive_f16` is its reference (one
thread per element, float32 products of the halves). Each `<name>.cu` has the header of
`ptx/races/` (`// expect:` is lift race's verdict) plus `// equiv:`, what `lift equiv`
against `naive_f16` gives at the launch's sizes (and at K = 16 for a twin whose bug
needs a second K step; `race` where equiv stops at the kernel's data race).

The bug twins are not written by hand: TWINS below makes each from `mma_gemm.cu` by
textual edits (each must match exactly once). What each must give follows from the
edit: mma_gemm over bfloat16 (SAFE, C = A @ B), with a float16 C stored as packed
halves (SAFE, `cvt.rn.f16x2.f32`), a missing `cp.async.wait_group` (RACE), a missing `__syncwarp` between K steps
(RACE, only with two K steps or more), two A fragment registers swapped (REFUTED), and a
B tile read at row k0 / 2 instead of k0 (REFUTED at K = 32, equal at K = 16).

Every PTX file is assembled with the Triton wheel's ptxas for sm_80 (.venv-gen) and
must assemble (a hard error when ptxas is missing: fixtures are valid PTX).
`tests/it/ptx_mma.rs` checks the verdicts.
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

OPTIONS = ["--gpu-architecture=compute_80", "-lineinfo", "--std=c++17"]
# twin name -> (correct kernel, expect, equiv, why, [(old, new), ...])
TWINS = {
    "mma_gemm_no_wait": ("mma_gemm", "RACE", "race", [
        "the lanes do not wait for their cp.async group: ldmatrix reads tile words",
        "  that other lanes' copies may still be writing",
    ], [('        asm volatile("cp.async.wait_group 0;\\n" ::);\n', "")]),
    "mma_gemm_no_syncwarp": ("mma_gemm", "RACE", "race", [
        "no __syncwarp between K steps: the next step's cp.async copies overwrite tile",
        "  words other lanes' ldmatrix of this step read, with nothing ordering them",
        "  (only with two K steps or more: K = 32 at the launch)",
    ], [("        __syncwarp();\n    }\n", "    }\n")]),
    "mma_gemm_swapped_frag": ("mma_gemm", "SAFE", "refuted", [
        "the A fragment registers a1 and a2 are swapped in the mma: rows 8-15 of the",
        "  A tile meet columns 8-15 of B and the other way round; no access changes",
    ], [('"r"(a0), "r"(a1), "r"(a2), "r"(a3)', '"r"(a0), "r"(a2), "r"(a1), "r"(a3)')]),
    "mma_gemm_wrong_k": ("mma_gemm", "SAFE", "refuted at K = 32, equivalent at K = 16", [
        "the B tile is copied from row k0 / 2 instead of k0: the first K step (k0 = 0)",
        "  is right, the second reads rows 8-23 of B instead of 16-31",
    ], [("&B[(k0 + lane) * N + col0]", "&B[(k0 / 2 + lane) * N + col0]")]),
    "mma_gemm_bf16": ("mma_gemm", "SAFE", "equivalent to the spec C = A.float() @ B.float()", [
        "mma_gemm over bfloat16 inputs (mma.sync ... .f32.bf16.bf16.f32): the same",
        "  accesses and the same fragments, so the same reasons (its equiv is a",
        "  `lift check` against the spec: NVRTC widens bf16 to f32 by moving bits,",
        "  `mov.b32 %f, {0, %rs}`, which lift does not read as a conversion)",
    ], [("#include <cuda_fp16.h>", "#include <cuda_bf16.h>"),
        ("typedef __half elem;", "typedef __nv_bfloat16 elem;"),
        (".f32.f16.f16.f32", ".f32.bf16.bf16.f32"),
        ('shape = ["M", "K"], role = "in", dtype = "float16"', 'shape = ["M", "K"], role = "in", dtype = "bfloat16"'),
        ('shape = ["K", "N"], role = "in", dtype = "float16"', 'shape = ["K", "N"], role = "in", dtype = "bfloat16"')]),
    "mma_gemm_f16_out": ("mma_gemm", "SAFE", "equivalent to the spec C = (A.float() @ B.float()).half()", [
        "mma_gemm with a float16 C: each lane rounds its accumulator pairs with",
        "  __floats2half2_rn (cvt.rn.f16x2.f32) and stores them as one 32-bit word; the",
        "  same accesses otherwise, so the same reasons",
    ], [("float* __restrict__ C,", "__half* __restrict__ C,"),
        ('{ tensor = "C", shape = ["M", "N"], role = "out" }',
         '{ tensor = "C", shape = ["M", "N"], role = "out", dtype = "float16" }'),
        ("""    C[(row0 + g) * N + col0 + 2 * t] = d0;
    C[(row0 + g) * N + col0 + 2 * t + 1] = d1;
    C[(row0 + g + 8) * N + col0 + 2 * t] = d2;
    C[(row0 + g + 8) * N + col0 + 2 * t + 1] = d3;
""", """    *reinterpret_cast<__half2*>(&C[(row0 + g) * N + col0 + 2 * t]) = __floats2half2_rn(d0, d1);
    *reinterpret_cast<__half2*>(&C[(row0 + g + 8) * N + col0 + 2 * t]) = __floats2half2_rn(d2, d3);
""")]),
}


def write_twins():
    for name, (source, expect, equiv, why, edits) in TWINS.items():
        C.write_twin("mma", name, source, [f"expect: {expect}", f"equiv: {equiv}"], why, edits)


if __name__ == "__main__":
    C.main("mma", sys.argv[1:], write_twins, OPTIONS + [f"-I{base.cuda_include()}"], "sm_80")
