#!/usr/bin/env python3
"""Rebuild the PTX fixture suite of `lift` from its CUDA C++ sources with NVRTC.

Usage (from anywhere; paths are resolved against the repository root):

    python3 ptx/generate.py                 # every family
    python3 ptx/generate.py reduce softmax  # some families
    python3 ptx/generate.py --mnemonics     # also print the sorted unique PTX
                                            # instruction mnemonics of all .ptx files
                                            # under ptx/ (Triton's kernel.ptx included
                                            # with --mnemonics=all)

No GPU and no nvcc: NVRTC comes from pip (`nvidia-cuda-nvrtc-cu12`), loaded with
ctypes from the wheel's `nvidia/cuda_nvrtc/lib/libnvrtc.so.12`.  The script
creates `.venv-ptx/` at the repository root (nvidia-cuda-nvrtc-cu12, the CUDA
runtime and CCCL header wheels, numpy) if it is missing and re-executes itself with
that interpreter.

For every variant `ptx/<family>/<variant>.cu` (hand-written, one
`extern "C" __global__` entry `<family>_<variant>` per file) it writes

    <variant>.ptx           NVRTC's PTX (options below)
    <variant>.launch.toml   the launch description (docs/launch.md)
    <variant>.fixture.toml  expected verdict, the variant it is compared with, race/bug
and per family
    ref/<instance>/<tensor>.npy            inputs (float32, or the launch dtype)
    ref/<instance>/expected/<tensor>.npy   float64 expected outputs (NumPy, from the
                                           math definition of the op)

NVRTC options: --gpu-architecture=compute_80 -lineinfo --std=c++17 (the defaults
otherwise: -O3, --fmad=true, IEEE division and sqrt, no fast math).

Paths: NVRTC joins the process's working directory with the program name in the
PTX `.file` directive, whatever the name looks like.  The program is named
`ptx/<family>/<variant>.cu` and compiled with the repository root as working
directory, then the one `.file` line is rewritten from `"<root>/ptx/..."` to
`"ptx/..."`.  That is the only edit made to NVRTC's output; the script asserts
that no absolute path remains.

Determinism: each variant is compiled twice and the two PTX texts must be
identical; inputs come from numpy.random.default_rng seeded with
crc32("ptx/<family>/<instance>"), so two runs give identical files.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VENV = os.path.join(ROOT, ".venv-ptx")
VENV_PY = os.path.join(VENV, "bin", "python")
NVRTC_PKG = "nvidia-cuda-nvrtc-cu12==12.9.86"
# CUDA's own headers (cuda_pipeline.h for __pipeline_memcpy_async); NVRTC has none.
RUNTIME_PKG = "nvidia-cuda-runtime-cu12==12.9.79"
# libcu++'s <nv/target> and <cuda/std/...>, which cooperative_groups.h includes.
CCCL_PKG = "nvidia-cuda-cccl-cu12==12.9.27"


def ensure_venv():
    """Create .venv-ptx if missing and re-exec this script with its python."""
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    if not os.path.exists(VENV_PY):
        import subprocess
        subprocess.check_call([sys.executable or "python3", "-m", "venv", VENV])
        subprocess.check_call([VENV_PY, "-m", "pip", "install", "-q", NVRTC_PKG, RUNTIME_PKG,
                               CCCL_PKG, "numpy"])
    os.execv(VENV_PY, [VENV_PY, os.path.abspath(__file__)] + sys.argv[1:])


ensure_venv()

import ctypes  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import zlib  # noqa: E402

import numpy as np  # noqa: E402

os.chdir(ROOT)

NVRTC_OPTIONS = ["--gpu-architecture=compute_80", "-lineinfo", "--std=c++17"]


def cuda_include():
    """The include folder of the CUDA runtime wheel (installed on first use)."""
    try:
        import nvidia.cuda_runtime
    except ImportError:
        import subprocess
        subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", RUNTIME_PKG])
        import nvidia.cuda_runtime
    return os.path.join(list(nvidia.cuda_runtime.__path__)[0], "include")


def cccl_include():
    """The include folder of the CCCL wheel (<nv/target>; installed on first use)."""
    try:
        import nvidia.cuda_cccl
    except ImportError:
        import subprocess
        subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", CCCL_PKG])
        import nvidia.cuda_cccl
    return os.path.join(list(nvidia.cuda_cccl.__path__)[0], "include")

# ----------------------------------------------------------------------------
# the suite: families (one launch interface, one reference data set each) and
# their variants
# ----------------------------------------------------------------------------

FAMILIES = {
    "reduce": {
        "spec": "out = torch.sum(x, dim=-1)",
        # C parameters in order -> launch entries (PTX params are <entry>_param_<i>)
        "params": [
            ("x", {"tensor": "x", "shape": ["B", "N"], "role": "in"}),
            ("out", {"tensor": "out", "shape": ["B"], "role": "out"}),
            ("n", "B * N"),
        ],
        "grid": ["B"],
        "instances": [
            {"name": "two_ctas", "sizes": {"B": 2, "N": 128}},
            {"name": "three_ctas", "sizes": {"B": 3, "N": 128}},
        ],
        "note": "N must be 128: each CTA sums one row of 128 floats.",
        "reference": lambda ins, sz: {"out": ins["x"].sum(axis=1)},
        "reference_variant": "interleaved_divergent",
    },
    "matmul": {
        "spec": "C = A @ B",
        "params": [
            ("A", {"tensor": "A", "shape": ["M", "K"], "role": "in"}),
            ("B", {"tensor": "B", "shape": ["K", "N"], "role": "in"}),
            ("C", {"tensor": "C", "shape": ["M", "N"], "role": "out"}),
            ("M", "M"),
            ("N", "N"),
            ("K", "K"),
        ],
        "grid": ["cdiv(N, 16)", "cdiv(M, 16)"],
        "instances": [
            {"name": "k32", "sizes": {"M": 16, "N": 16, "K": 32}},
            {"name": "k16", "sizes": {"M": 16, "N": 16, "K": 16}},
            {"name": "tiles2x2", "sizes": {"M": 32, "N": 32, "K": 32}},
        ],
        "note": "M, N, K multiples of 16 (the tiled variants do not bounds-check).",
        "reference": lambda ins, sz: {"C": ins["A"] @ ins["B"]},
        "reference_variant": "naive",
    },
    "softmax": {
        "spec": "y = torch.softmax(x, dim=-1)",
        "params": [
            ("x", {"tensor": "x", "shape": ["M", "N"], "role": "in"}),
            ("y", {"tensor": "y", "shape": ["M", "N"], "role": "out"}),
            ("n", "N"),
        ],
        "grid": ["M"],
        "instances": [
            {"name": "two_rows", "sizes": {"M": 2, "N": 128}},
            {"name": "five_rows", "sizes": {"M": 5, "N": 128}},
        ],
        "note": "N must be 128: one CTA per row of 128 floats.",
        "reference": lambda ins, sz: {"y": _softmax(ins["x"])},
        "reference_variant": "naive_smem",
    },
}


# Elementwise and row-wise families whose point is the spec's meaning (PyTorch's
# softplus threshold, erf vs tanh GELU, an eps under a square root): each variant lists
# `checks`, `lift check` verdicts against several specs (see ptx/README.md).
_ELEMENTWISE = {
    "params": [
        ("x", {"tensor": "x", "shape": ["N"], "role": "in"}),
        ("y", {"tensor": "y", "shape": ["N"], "role": "out"}),
        ("n", "N"),
    ],
    "grid": ["cdiv(N, 32)"],
    "instances": [
        {"name": "n8", "sizes": {"N": 8}},
        {"name": "n40", "sizes": {"N": 40}},
    ],
    "note": "any N (threads past N do nothing).",
}
FAMILIES.update({
    "softplus": dict(_ELEMENTWISE,
                     spec="y = torch.nn.functional.softplus(x)",
                     reference=lambda ins, sz: {"y": _softplus(ins["x"])},
                     reference_variant="threshold"),
    "gelu": dict(_ELEMENTWISE,
                 spec="y = torch.nn.functional.gelu(x)",
                 reference=lambda ins, sz: {"y": _gelu(ins["x"])},
                 reference_variant="erf"),
    # sigmoid and SiLU written with expf(-x): NVRTC's expf expansion at a negated
    # argument (issue 20, item 1).
    "sigmoid": dict(_ELEMENTWISE,
                    spec="y = torch.sigmoid(x)",
                    reference=lambda ins, sz: {"y": 1 / (1 + np.exp(-ins["x"]))},
                    reference_variant="neg_exp"),
    "silu": dict(_ELEMENTWISE,
                 spec="y = torch.nn.functional.silu(x)",
                 reference=lambda ins, sz: {"y": ins["x"] / (1 + np.exp(-ins["x"]))},
                 reference_variant="neg_exp"),
    "l2norm": {
        "spec": "y = x / torch.sqrt(torch.sum(x * x, dim=-1, keepdim=True))",
        "params": [
            ("x", {"tensor": "x", "shape": ["M", "N"], "role": "in"}),
            ("y", {"tensor": "y", "shape": ["M", "N"], "role": "out"}),
            ("m", "M"),
            ("n", "N"),
        ],
        "grid": ["cdiv(M, 32)"],
        "instances": [
            {"name": "m2n4", "sizes": {"M": 2, "N": 4}},
            {"name": "m3n8", "sizes": {"M": 3, "N": 8}},
        ],
        "note": "any M, N (one thread per row).",
        "reference": lambda ins, sz: {
            "y": ins["x"] / np.sqrt((ins["x"] ** 2).sum(axis=1, keepdims=True))},
        "reference_variant": "plain",
    },
})


# Stores under data-dependent branches (issue 19): elementwise kernels written with an
# if/else of stores, and a shared-memory max tree with `if (v > s[tid]) s[tid] = v`.
FAMILIES.update({
    "relu": dict(_ELEMENTWISE,
                 spec="y = torch.relu(x)",
                 reference=lambda ins, sz: {"y": np.maximum(ins["x"], 0.0)},
                 reference_variant="ifelse"),
    "cond_max": {
        "spec": "out = torch.amax(x, dim=-1)",
        "params": [
            ("x", {"tensor": "x", "shape": ["B", "N"], "role": "in"}),
            ("out", {"tensor": "out", "shape": ["B"], "role": "out"}),
            ("n", "B * N"),
        ],
        "grid": ["B"],
        "instances": [
            {"name": "two_ctas", "sizes": {"B": 2, "N": 128}},
            {"name": "three_ctas", "sizes": {"B": 3, "N": 128}},
        ],
        "note": "N must be 128: each CTA takes the max of one row of 128 floats.",
        "reference": lambda ins, sz: {"out": ins["x"].max(axis=1)},
        "reference_variant": "tree",
    },
})


# Atomics (issue 19, item 5): row sums and a split-K dot accumulated with atomicAdd,
# a ticket counter, and a spin-locked critical section with its broken twins.
_ROWSUM_PARAMS = [
    ("x", {"tensor": "x", "shape": ["B", "N"], "role": "in"}),
    ("out", {"tensor": "out", "shape": ["B"], "role": "out"}),
    ("n", "N"),
]
FAMILIES.update({
    "atomic_rowsum": {
        "spec": "out = torch.sum(x, dim=-1)",
        "params": _ROWSUM_PARAMS,
        "grid": ["B"],
        "instances": [
            {"name": "b2n64", "sizes": {"B": 2, "N": 64}},
            {"name": "b3n40", "sizes": {"B": 3, "N": 40}},
        ],
        "note": "any N (32 threads stride over a row; one CTA per row).",
        "reference": lambda ins, sz: {"out": ins["x"].sum(axis=1)},
        "reference_variant": "partial",
    },
    "atomic_matmul": {
        "spec": "C = A @ B",
        "params": [
            ("A", {"tensor": "A", "shape": ["M", "K"], "role": "in"}),
            ("B", {"tensor": "B", "shape": ["K", "N"], "role": "in"}),
            ("C", {"tensor": "C", "shape": ["M", "N"], "role": "out"}),
            ("M", "M"),
            ("N", "N"),
            ("K", "K"),
        ],
        "grid": ["N", "M"],
        "instances": [
            {"name": "m2n3k40", "sizes": {"M": 2, "N": 3, "K": 40}},
            {"name": "m3n2k64", "sizes": {"M": 3, "N": 2, "K": 64}},
        ],
        "note": "any M, N, K (one CTA per C element, 32 threads split K).",
        "reference": lambda ins, sz: {"C": ins["A"] @ ins["B"]},
        "reference_variant": "split_k",
    },
    "atomic_hist": {
        "spec": "out = x.reshape(B, N // 8, 8).sum(1)",
        "params": [
            ("x", {"tensor": "x", "shape": ["B", "N"], "role": "in"}),
            ("out", {"tensor": "out", "shape": ["B", 8], "role": "out"}),
            ("n", "N"),
        ],
        "grid": ["B"],
        "instances": [
            {"name": "b2n64", "sizes": {"B": 2, "N": 64}},
            {"name": "b3n40", "sizes": {"B": 3, "N": 40}},
        ],
        "note": "N a multiple of 8 (8 bins; one CTA per row).",
        "reference": lambda ins, sz: {
            "out": ins["x"].reshape(sz["B"], sz["N"] // 8, 8).sum(axis=1)},
        "reference_variant": "bins",
    },
    "atomic_lock": {
        "spec": "out = torch.sum(x, dim=-1)",
        "params": _ROWSUM_PARAMS,
        "grid": ["B"],
        "instances": [
            {"name": "b2n32", "sizes": {"B": 2, "N": 32}},
            {"name": "b3n32", "sizes": {"B": 3, "N": 32}},
        ],
        "note": "N must be 32: one CTA per row, one thread per element.",
        "reference": lambda ins, sz: {"out": ins["x"].sum(axis=1)},
        "reference_variant": "spin_lock",
    },
})

def _softplus(x):
    return np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))


def _gelu(x):
    from math import erf, sqrt
    return np.vectorize(lambda v: 0.5 * v * (1 + erf(v / sqrt(2))))(x)


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# (family, variant): block, expect ("equivalent" | "refuted" | "race" | "unwritten"),
# and for wrong variants `bug`, for racy ones `race` (the two conflicting accesses),
# for "unwritten" (a read of shared memory no write reached) `error`.
# `equiv` defaults to the family's reference variant.
VARIANTS = {
    ("reduce", "interleaved_divergent"): {
        "block": [128], "expect": "equivalent",
        "about": "Harris #1: interleaved addressing, tid % (2*stride) == 0 (reference)"},
    ("reduce", "interleaved_strided"): {
        "block": [128], "expect": "equivalent",
        "about": "Harris #2: interleaved addressing, index = 2*stride*tid"},
    ("reduce", "sequential"): {
        "block": [128], "expect": "equivalent",
        "about": "Harris #3: sequential addressing, stride halves, tid < stride"},
    ("reduce", "first_add_during_load"): {
        "block": [64], "expect": "equivalent",
        "about": "Harris #4: 64 threads, each adds x[i] + x[i+64] while loading"},
    ("reduce", "warp_unrolled_syncwarp"): {
        "block": [128], "expect": "equivalent",
        "about": "Harris #5 made Volta-safe: last warp unrolled, read / __syncwarp / write / __syncwarp"},
    ("reduce", "warp_unrolled_racy"): {
        "block": [128], "expect": "race",
        "race": "warp 0, no __syncwarp: lane 16 writes s[16] (s[16] += s[48]) and lane 0 "
                "reads s[16] (s[0] += s[16]) in the unrolled volatile warp_reduce",
        "about": "Harris #5 as published: volatile, no __syncwarp"},
    ("reduce", "missing_syncthreads"): {
        "block": [128], "expect": "race",
        "race": "thread 64 stores s[64] (initial load) and thread 0 reads s[64] "
                "(s[0] += s[64], stride 64) with no __syncthreads between",
        "about": "sequential with the barrier after the shared-memory load removed"},
    ("matmul", "naive"): {
        "block": [16, 16], "expect": "equivalent",
        "about": "one thread per C element, K loop over global memory (reference)"},
    ("matmul", "smem_tiled"): {
        "block": [16, 16], "expect": "equivalent",
        "about": "16x16 shared-memory tiles of A and B, two __syncthreads per K step"},
    ("matmul", "register_blocked_2x2"): {
        "block": [8, 8], "expect": "equivalent",
        "about": "64 threads, 2x2 outputs per thread in registers, cooperative tile loads"},
    ("matmul", "smem_async"): {
        "block": [16, 16], "expect": "equivalent",
        "about": "smem_tiled with tiles loaded by __pipeline_memcpy_async (cp.async), "
                 "commit, wait_prior(0), __syncthreads"},
    ("matmul", "smem_async_no_wait"): {
        "block": [16, 16], "expect": "race",
        "race": "no cp.async.wait_group: thread (0, 0) reads Bs[0][0] after __syncthreads "
                "while its own copy there is in flight (bar.sync does not wait for cp.async)",
        "about": "smem_async without __pipeline_wait_prior(0)"},
    ("matmul", "smem_async_early_prefetch"): {
        "block": [16, 16], "expect": "race",
        "race": "the copies of tile t + 1 are issued into the one buffer before the "
                "products of tile t read it: in-flight cp.async writes race with those reads",
        "about": "smem_async_pipelined with one buffer, prefetching before the products"},
    ("matmul", "smem_async_pipelined"): {
        "block": [16, 16], "expect": "equivalent",
        "about": "double-buffered: 16-byte cp.async copies of tile t + 1 in flight while "
                 "tile t is multiplied, commit per step, wait_prior(1)"},
    ("matmul", "smem_async_wait_prior_2"): {
        "block": [16, 16], "expect": "race",
        "race": "wait_prior(2) leaves the groups of tiles 0 and 1 in flight: in step 0 "
                "thread (0, 0) reads a tile element its own copy is still writing",
        "about": "smem_async_pipelined with __pipeline_wait_prior(2) instead of 1"},
    ("matmul", "wrong_bound"): {
        "block": [16, 16], "expect": "refuted",
        "bug": "K loop bound K - 1: the last term A[i, K-1] * B[K-1, j] is dropped",
        "about": "naive with k < K - 1"},
    ("softmax", "naive_smem"): {
        "block": [128], "expect": "equivalent",
        "about": "one element per thread, max and sum by shared-memory trees, __expf (reference)"},
    ("softmax", "naive_smem_expf"): {
        "block": [128], "expect": "equivalent",
        "about": "naive_smem with accurate expf (range reduction + ex2.approx.ftz + 2^j from bits)"},
    ("softmax", "online"): {
        "block": [32], "expect": "equivalent",
        "about": "32 threads, per-thread online max/sum over 4 columns, (m, d) tree in shared memory"},
    ("softmax", "warp_shuffle"): {
        "block": [32], "expect": "equivalent",
        "about": "one warp, __shfl_xor_sync butterflies (16, 8, 4, 2, 1) for max and sum"},
    ("softmax", "missing_barrier"): {
        "block": [128], "expect": "race",
        "race": "thread 0 stores s[0] = e (sum phase) and thread t != 0 reads s[0] "
                "(m = s[0], the max) with no __syncthreads between",
        "about": "naive_smem without the barrier between reading the max and reusing s"},
    ("softmax", "wrong_shuffle_offset"): {
        "block": [32], "expect": "refuted",
        "bug": "butterfly offsets 16, 8, 4, 2 (loop `offset > 1`): max and sum over "
               "only the 16 lanes of one parity",
        "about": "warp_shuffle without the offset-1 exchange"},
}


SOFTPLUS_WHERE = "y = torch.where(x > 20, x, torch.log(1 + torch.exp(x)))"
L2_EPS = "y = x / torch.sqrt(torch.sum(x * x, dim=-1, keepdim=True) + 1e-8)"
L2_PLAIN = "y = x / torch.sqrt(torch.sum(x * x, dim=-1, keepdim=True))"
# Some checks need the refuter to separate differences far below f32 resolution (issue
# 18, item 4): above 20, log(1 + e^x) - x = e^-x (2e-9 at x = 20).

VARIANTS.update({
    ("softplus", "threshold"): {
        "block": [32], "expect": "equivalent",
        "about": "PyTorch's softplus: x > 20 ? x : logf(1 + expf(x)) (reference)",
        "checks": [
            ("y = torch.nn.functional.softplus(x)", "verified", None),
            ("y = F.softplus(x, beta=1, threshold=20)", "verified", None),
            (SOFTPLUS_WHERE, "verified", None),
            ("y = torch.log(1 + torch.exp(x))", "refuted", None),
        ]},
    ("softplus", "naive"): {
        "block": [32], "expect": "refuted", "equiv": "threshold",
        "bug": "no threshold: logf(1 + expf(x)) is log(1 + e^x), not x, above 20, and "
               "inf in f32 above 88.7 where PyTorch gives x",
        "about": "logf(1 + expf(x)), no threshold (as LLM-written kernels often have it)",
        "checks": [
            ("y = torch.nn.functional.softplus(x)", "refuted", None),
            (SOFTPLUS_WHERE, "refuted", None),
            ("y = torch.log(1 + torch.exp(x))", "verified", None),
        ]},
    ("gelu", "erf"): {
        "block": [32], "expect": "equivalent",
        "about": "exact GELU with erff (reference)",
        "checks": [
            ("y = torch.nn.functional.gelu(x)", "verified", None),
            ("y = F.gelu(x, approximate='none')", "verified", None),
            ("y = F.gelu(x, approximate='tanh')", "refuted", None),
        ]},
    ("gelu", "tanh"): {
        "block": [32], "expect": "refuted", "equiv": "erf",
        "bug": "the tanh approximation differs from exact GELU by up to 4.7e-4 (near x = 2.7)",
        "about": "GELU with the tanh approximation (tanhf)",
        "checks": [
            ("y = F.gelu(x, approximate='tanh')", "verified", None),
            ("y = torch.nn.functional.gelu(x)", "refuted", None),
        ]},
    ("sigmoid", "neg_exp"): {
        "block": [32], "expect": "equivalent",
        "about": "1 / (1 + expf(-x)) (reference)",
        "checks": [
            ("y = torch.sigmoid(x)", "verified", None),
            ("y = torch.sigmoid(-x)", "refuted", None),
        ]},
    ("sigmoid", "zero_minus"): {
        "block": [32], "expect": "equivalent",
        "about": "1 / (1 + expf(0 - x))",
        "checks": [
            ("y = torch.sigmoid(x)", "verified", None),
        ]},
    ("sigmoid", "fast_intrinsics"): {
        "block": [32], "expect": "equivalent",
        "about": "__fdividef(1, 1 + __expf(-x))",
        "checks": [
            ("y = torch.sigmoid(x)", "verified", None),
        ]},
    ("sigmoid", "wrong_sign"): {
        "block": [32], "expect": "refuted",
        "bug": "1 / (1 + expf(x)) is sigmoid(-x)",
        "about": "1 / (1 + expf(x)): the sign of the exponent dropped",
        "checks": [
            ("y = torch.sigmoid(x)", "refuted", None),
            ("y = torch.sigmoid(-x)", "verified", None),
        ]},
    ("silu", "neg_exp"): {
        "block": [32], "expect": "equivalent",
        "about": "x / (1 + expf(-x)) (reference)",
        "checks": [
            ("y = torch.nn.functional.silu(x)", "verified", None),
            ("y = F.silu(x)", "verified", None),
            ("y = x * torch.sigmoid(x)", "verified", None),
            ("y = torch.sigmoid(x)", "refuted", None),
        ]},
    ("silu", "times_sigmoid"): {
        "block": [32], "expect": "equivalent",
        "about": "x * (1 / (1 + expf(-x)))",
        "checks": [
            ("y = F.silu(x)", "verified", None),
        ]},
    ("silu", "wrong_sign"): {
        "block": [32], "expect": "refuted",
        "bug": "x / (1 + expf(x)) is x * sigmoid(-x)",
        "about": "x / (1 + expf(x)): the sign of the exponent dropped",
        "checks": [
            ("y = F.silu(x)", "refuted", None),
        ]},
    ("l2norm", "plain"): {
        "block": [32], "expect": "equivalent",
        "about": "x / sqrtf(sum x^2), one thread per row (reference)",
        "checks": [
            (L2_PLAIN, "verified", None),
            (L2_EPS, "refuted", None),
            ("y = x / torch.linalg.vector_norm(x, dim=-1, keepdim=True)", "verified", None),
            ("y = x / torch.norm(x, dim=1, keepdim=True)", "verified", None),
            ("y = x / torch.linalg.vector_norm(x, ord=1, dim=-1, keepdim=True)", "refuted", None),
        ]},
    ("l2norm", "eps"): {
        "block": [32], "expect": "refuted", "equiv": "plain",
        "bug": "an extra 1e-8 under the square root: a different function (by ~1e-8 relative "
               "for rows of norm ~1, far below f32 resolution; visibly for rows of norm ~1e-4)",
        "about": "x / sqrtf(sum x^2 + 1e-8f), one thread per row",
        "checks": [
            (L2_EPS, "verified", None),
            (L2_PLAIN, "refuted", None),
        ]},
})


VARIANTS.update({
    ("relu", "ifelse"): {
        "block": [32], "expect": "equivalent",
        "about": "relu as an if/else of two stores: y[i] = x when x > 0, else y[i] = 0 (reference)",
        "checks": [
            ("y = torch.relu(x)", "verified", None),
            ("y = F.relu(x)", "verified", None),
            ("y = F.leaky_relu(x, 0.1)", "refuted", None),
        ]},
    ("relu", "leaky_twin"): {
        "block": [32], "expect": "refuted", "equiv": "ifelse",
        "bug": "the else branch stores 0.1f * x instead of 0: a leaky relu, wrong for every x < 0",
        "about": "if (x > 0) y[i] = x; else y[i] = 0.1f * x;",
        "checks": [
            ("y = torch.relu(x)", "refuted", None),
            ("y = F.leaky_relu(x, negative_slope=0.1)", "verified", None),
        ]},
    ("relu", "clamp_ifelse"): {
        "block": [32], "expect": "refuted", "equiv": "ifelse",
        "bug": "a different op: clamp(x, -1, 1) (nested if/else stores), not relu",
        "about": "clamp(x, -1, 1) with nested if/else stores, one store per path",
        "checks": [
            ("y = torch.clamp(x, -1, 1)", "verified", None),
            ("y = torch.relu(x)", "refuted", None),
        ]},
    ("relu", "one_sided_store"): {
        "block": [32], "expect": "unknown",
        "reason": "is stored on only one side of the data-dependent branch",
        "about": "if (x > 0) y[i] = x; and nothing else: y[i] is written only for x > 0",
        "checks": []},
    ("relu", "halving_loop"): {
        "block": [32], "expect": "unknown",
        "reason": "a loop whose trip count depends on the data",
        "about": "while (v > 1) v *= 0.5; then relu: a data-dependent trip count",
        "checks": []},
    ("cond_max", "tree"): {
        "block": [128], "expect": "equivalent",
        "about": "row max by a shared tree, each step `if (v > s[tid]) s[tid] = v` (reference)",
        "checks": [
            ("out = torch.amax(x, dim=-1)", "verified", None),
            ("out = torch.sum(x, dim=-1)", "refuted", None),
        ]},
    ("cond_max", "sign_split"): {
        "block": [128], "expect": "refuted",
        "bug": "a different op: |x[b, 0]| (two threads store s[0] under complementary "
               "conditions), not the row max",
        "about": "thread 0 stores v when v > 0, thread 1 stores -v otherwise: no race, "
                 "since the two stores never happen for the same input",
        "checks": [
            ("out = torch.where(x[:, 0] > 0, x[:, 0], -x[:, 0])", "verified", None),
            ("out = torch.abs(x[:, 0])", "verified",
             "decide: abs(v) against select(v > 0, v, -v) (abs forms are not complete)"),
            ("out = x[:, 0]", "refuted", None),
        ]},
    ("cond_max", "sign_split_no_neg"): {
        "block": [128], "expect": "refuted",
        "bug": "thread 1 stores v instead of -v: x[b, 0], not |x[b, 0]|",
        "about": "sign_split with the negation dropped",
        "checks": [
            ("out = torch.abs(x[:, 0])", "refuted", None),
            ("out = torch.where(x[:, 0] > 0, x[:, 0], -x[:, 0])", "refuted", None),
            ("out = x[:, 0]", "verified", None),
        ]},
    ("cond_max", "missing_syncthreads"): {
        "block": [128], "expect": "race",
        "race": "no __syncthreads between tree steps: thread 1's conditional store s[1] = v "
                "(when x[65] > x[1], stride 64) and thread 0's read of s[1] (stride 1)",
        "about": "tree without the __syncthreads closing each step"},
})

VARIANTS.update({
    ("atomic_rowsum", "partial"): {
        "block": [32], "expect": "equivalent",
        "about": "strided partial sums in registers, one atomicAdd per thread into out[row] "
                 "(thread 0 zeroes it first; reference)"},
    ("atomic_rowsum", "per_element"): {
        "block": [32], "expect": "equivalent",
        "about": "one atomicAdd per element into out[row]"},
    ("atomic_rowsum", "missing_tail"): {
        "block": [32], "expect": "refuted",
        "bug": "the loop runs j < n - 1: the last element of each row is never added",
        "about": "partial with the loop bound off by one",
        "checks": [
            ("out = torch.sum(x, dim=-1)", "refuted", None),
            ("out = torch.sum(x[:, :-1], dim=-1)", "verified", None),
        ]},
    ("atomic_rowsum", "shared_acc"): {
        "block": [32], "expect": "equivalent",
        "about": "atomicAdd into a shared accumulator (atom.shared.add.f32), read by thread 0 "
                 "after __syncthreads"},
    ("atomic_rowsum", "shared_acc_no_sync"): {
        "block": [32], "expect": "race",
        "race": "no __syncthreads between the atomic adds into s and thread 0's plain read of s",
        "about": "shared_acc without the barrier before the read"},
    ("atomic_rowsum", "ticket"): {
        "block": [32], "expect": "unknown",
        "reason": "depends on the order threads reach it",
        "about": "each thread parks its partial sum in the slot atomicAdd(&count, 1) returns: "
                 "correct for every order, but which slot a thread gets is the schedule's"},
    ("atomic_matmul", "split_k"): {
        "block": [32], "expect": "equivalent",
        "about": "one CTA per C element, 32 threads split K and atomicAdd their partial dots "
                 "(reference)",
        "checks": [
            ("C = A @ B", "verified", None),
            ("C = torch.matmul(A, B)", "verified", None),
        ]},
    ("atomic_matmul", "split_k_transposed_b"): {
        "block": [32], "expect": "refuted",
        "bug": "B read as B[j * K + k] (as if stored transposed)",
        "about": "split_k with B's index transposed"},
    ("atomic_hist", "bins"): {
        "block": [32], "expect": "equivalent",
        "about": "bin j % 8 of each row accumulated by atomicAdd into 8 shared bins (reference)"},
    ("atomic_hist", "rotated_bins"): {
        "block": [32], "expect": "refuted",
        "bug": "element j goes to bin (j + 1) % 8: the bins come out rotated by one",
        "about": "bins with the bin index off by one"},
    ("atomic_hist", "zero_unsynced"): {
        "block": [32], "expect": "race",
        "race": "no __syncthreads between thread k's plain store hist[k] = 0 and the other "
                "threads' atomicAdd into hist[k]",
        "about": "bins without the barrier after zeroing"},
    ("atomic_lock", "spin_lock"): {
        "block": [32], "expect": "equivalent",
        "about": "while (atomicCAS(&lock, 0, 1) != 0); fence; total = total + v; fence; "
                 "atomicExch(&lock, 0): a spin-locked critical section (reference)"},
    ("atomic_lock", "global_lock"): {
        "block": [32], "expect": "equivalent",
        "about": "spin_lock protecting a plain read-modify-write of out[row] in global memory"},
    ("atomic_lock", "no_lock"): {
        "block": [32], "expect": "race",
        "race": "the lock removed: every thread reads and writes total with nothing ordering them",
        "about": "spin_lock without the lock"},
    ("atomic_lock", "no_fence"): {
        "block": [32], "expect": "race",
        "race": "relaxed atomicCAS/atomicExch with no fence: under the PTX memory model the "
                "critical sections of two threads are not ordered",
        "about": "spin_lock without the __threadfence_block() calls"},
    ("atomic_lock", "held_at_barrier"): {
        "block": [32], "expect": "deadlock",
        "deadlock": "the lock holder waits at __syncthreads while the other threads spin on the lock",
        "about": "a __syncthreads inside the critical section"},
})


# Typed memory (issue 19, item 2): tensors of other element types than float32 (the
# launch's `dtype`), 1-, 8- and 16-byte accesses, byte-granular races.
FAMILIES.update({
    "argmax": {
        "spec": "y = torch.argmax(x, dim=1)",
        "params": [
            ("x", {"tensor": "x", "shape": ["M", "N"], "role": "in"}),
            ("out", {"tensor": "y", "shape": ["M"], "role": "out", "dtype": "int64"}),
            ("m", "M"),
            ("n", "N"),
        ],
        "grid": ["cdiv(M, 32)"],
        "instances": [
            {"name": "m3n4", "sizes": {"M": 3, "N": 4}},
            {"name": "m5n5", "sizes": {"M": 5, "N": 5}},
        ],
        "note": "any M, N >= 1 (one thread per row; proved up to N = 5 with the default "
                "--max-case-splits). Inputs are multiples of 1/2 in "
                "[-2, 2], so rows have ties.",
        # Ties: a twin that breaks them the other way must differ on the references.
        "inputs": lambda rng, shp, dtype: (np.round(rng.uniform(-2.0, 2.0, size=shp) * 2) / 2
                                           ).astype(np.float32),
        "reference": lambda ins, sz: {"y": ins["x"].argmax(axis=1)},
        "reference_variant": "first",
    },
    "masked_fill": {
        "spec": "y = torch.where(m, 0.0, x)",
        "params": [
            ("x", {"tensor": "x", "shape": ["N"], "role": "in"}),
            ("m", {"tensor": "m", "shape": ["N"], "role": "in", "dtype": "bool"}),
            ("y", {"tensor": "y", "shape": ["N"], "role": "out"}),
            ("n", "N"),
        ],
        "grid": ["cdiv(N, 32)"],
        "instances": [
            {"name": "n8", "sizes": {"N": 8}},
            {"name": "n40", "sizes": {"N": 40}},
        ],
        "note": "any N (threads past N do nothing); m is a bool tensor (one byte each).",
        "reference": lambda ins, sz: {"y": np.where(ins["m"] != 0, 0.0, ins["x"])},
        "reference_variant": "bool_mask",
    },
    "f64_poly": {
        "spec": "y = 0.5 * x * x + x",
        "params": [
            ("x", {"tensor": "x", "shape": ["N"], "role": "in", "dtype": "float64"}),
            ("y", {"tensor": "y", "shape": ["N"], "role": "out", "dtype": "float64"}),
            ("n", "N"),
        ],
        "grid": ["cdiv(N, 32)"],
        "instances": [
            {"name": "n8", "sizes": {"N": 8}},
            {"name": "n40", "sizes": {"N": 40}},
        ],
        "note": "any N; float64 tensors (8-byte elements).",
        "reference": lambda ins, sz: {"y": 0.5 * ins["x"] * ins["x"] + ins["x"]},
        "reference_variant": "plain",
    },
    "int_add": {
        "spec": "y = a + b",
        "params": [
            ("a", {"tensor": "a", "shape": ["N"], "role": "in", "dtype": "int16"}),
            ("b", {"tensor": "b", "shape": ["N"], "role": "in", "dtype": "int16"}),
            ("y", {"tensor": "y", "shape": ["N"], "role": "out", "dtype": "int32"}),
            ("n", "N"),
        ],
        "grid": ["cdiv(N, 32)"],
        "instances": [
            {"name": "n8", "sizes": {"N": 8}},
            {"name": "n40", "sizes": {"N": 40}},
        ],
        "note": "any N; int16 inputs, int32 output (no overflow possible).",
        "reference": lambda ins, sz: {"y": ins["a"] + ins["b"]},
        "reference_variant": "widen",
    },
    "f16_affine": {
        "spec": "y = 2 * x + 1",
        "params": [
            ("x", {"tensor": "x", "shape": ["N"], "role": "in", "dtype": "float16"}),
            ("y", {"tensor": "y", "shape": ["N"], "role": "out", "dtype": "float16"}),
            ("n", "N"),
        ],
        "grid": ["cdiv(N, 32)"],
        "instances": [
            {"name": "n8", "sizes": {"N": 8}},
            {"name": "n40", "sizes": {"N": 40}},
        ],
        "note": "any even N; float16 tensors (2-byte elements; the f16 casts are read as "
                "exact, as lift's reals say, docs/semantics.md).",
        "reference": lambda ins, sz: {"y": 2 * ins["x"] + 1},
        "reference_variant": "plain",
    },
    "atomic_typed": {
        "spec": "y = x.sum(0, keepdim=True)\nc = torch.ones_like(x).sum(0, keepdim=True)",
        "params": [
            ("x", {"tensor": "x", "shape": ["N"], "role": "in", "dtype": "float64"}),
            ("y", {"tensor": "y", "shape": [1], "role": "out", "dtype": "float64"}),
            ("c", {"tensor": "c", "shape": [1], "role": "out", "dtype": "uint64"}),
            ("n", "N"),
        ],
        "grid": [1],
        "instances": [
            {"name": "n5", "sizes": {"N": 5}},
            {"name": "n32", "sizes": {"N": 32}},
        ],
        "note": "N <= 32 (one CTA of 32 threads).",
        "reference": lambda ins, sz: {"y": ins["x"].sum(keepdims=True),
                                      "c": np.array([sz["N"]], dtype=np.float64)},
        "reference_variant": "sum_count",
    },
    "byte_copy": {
        "spec": "y = x",
        "params": [
            ("x", {"tensor": "x", "shape": ["N"], "role": "in"}),
            ("y", {"tensor": "y", "shape": ["N"], "role": "out"}),
            ("n", "N"),
        ],
        "grid": ["cdiv(4 * N, 32)"],
        "instances": [
            {"name": "n8", "sizes": {"N": 8}},
            {"name": "n13", "sizes": {"N": 13}},
        ],
        "note": "any N; one thread per byte (per_byte, shifted) or per element (halves).",
        "reference": lambda ins, sz: {"y": ins["x"]},
        "reference_variant": "per_byte",
    },
    "byte_flags": {
        "spec": "y = torch.where(x > 0, 1, 0)",
        "params": [
            ("x", {"tensor": "x", "shape": ["N"], "role": "in"}),
            ("y", {"tensor": "y", "shape": ["N"], "role": "out", "dtype": "bool"}),
            ("n", "N"),
        ],
        "grid": ["cdiv(N, 32)"],
        "instances": [
            {"name": "n8", "sizes": {"N": 8}},
            {"name": "n40", "sizes": {"N": 40}},
        ],
        "note": "any N; y is a bool tensor: four threads write the four bytes of a word.",
        "reference": lambda ins, sz: {"y": (ins["x"] > 0).astype(np.float64)},
        "reference_variant": "adjacent",
    },
})

VARIANTS.update({
    ("argmax", "first"): {
        "block": [32], "expect": "equivalent",
        "about": "one thread per row, strict `>`: ties keep the first index; int64 output "
                 "(st.global.u64) (reference)",
        "checks": [
            ("y = torch.argmax(x, dim=1)", "verified", None),
            ("y = torch.argmax(x, dim=-1)", "verified", None),
            ("y = torch.argmin(x, dim=1)", "refuted", None),
        ]},
    ("argmax", "last_on_ties"): {
        "block": [32], "expect": "refuted",
        "bug": "`>=` instead of `>`: a row whose maximum occurs twice gets the last index",
        "about": "argmax with `>=`",
        "checks": [
            ("y = torch.argmax(x, dim=1)", "refuted", None),
        ]},
    ("argmax", "argmin"): {
        "block": [32], "expect": "refuted",
        "bug": "`<` instead of `>`: the index of the minimum",
        "about": "argmax with the comparison flipped",
        "checks": [
            ("y = torch.argmax(x, dim=1)", "refuted", None),
            ("y = torch.argmin(x, dim=1)", "verified", None),
        ]},
    ("masked_fill", "bool_mask"): {
        "block": [32], "expect": "equivalent",
        "about": "y[i] = m[i] ? 0 : x[i] with m a bool tensor (ld.global.u8) (reference)",
        "checks": [
            ("y = torch.where(m, 0.0, x)", "verified", None),
            ("y = torch.where(m, x, 0.0)", "refuted", None),
        ]},
    ("masked_fill", "inverted"): {
        "block": [32], "expect": "refuted",
        "bug": "the mask's sense is inverted: x is kept where m is true",
        "about": "y[i] = m[i] ? x[i] : 0",
        "checks": [
            ("y = torch.where(m, 0.0, x)", "refuted", None),
            ("y = torch.where(m, x, 0.0)", "verified", None),
        ]},
    ("masked_fill", "branch_store"): {
        "block": [32], "expect": "equivalent",
        "about": "bool_mask as an if/else of stores on the mask byte",
        "checks": [
            ("y = torch.where(m, 0.0, x)", "verified", None),
        ]},
    ("f64_poly", "plain"): {
        "block": [32], "expect": "equivalent",
        "about": "y[i] = 0.5 * x[i] * x[i] + x[i] in double (reference)",
        "checks": [
            ("y = 0.5 * x * x + x", "verified", None),
            ("y = 0.5 * x * x - x", "refuted", None),
        ]},
    ("f64_poly", "minus"): {
        "block": [32], "expect": "refuted",
        "bug": "0.5 x^2 - x: the linear term's sign flipped",
        "about": "plain with - x",
        "checks": [
            ("y = 0.5 * x * x + x", "refuted", None),
        ]},
    ("f64_poly", "tenth"): {
        "block": [32], "expect": "refuted",
        "bug": "0.1 x^2 + x: the quadratic coefficient is 0.1, not 0.5",
        "about": "plain with the double constant 0.1 (not an f32): the spec's decimals are "
                 "rounded to the launch's float64",
        "checks": [
            ("y = 0.1 * x * x + x", "verified", None),
            ("y = 0.5 * x * x + x", "refuted", None),
        ]},
    ("f64_poly", "vec2"): {
        "block": [32], "expect": "equivalent",
        "about": "plain, two elements per thread through double2 (ld/st.global.v2.f64)",
        "checks": [
            ("y = 0.5 * x * x + x", "verified", None),
        ]},
    ("int_add", "widen"): {
        "block": [32], "expect": "equivalent",
        "about": "y[i] = (int)a[i] + (int)b[i] over int16 inputs and an int32 output "
                 "(reference)",
        "checks": [
            ("y = a + b", "verified", None),
            ("y = a - b", "refuted", None),
        ]},
    ("int_add", "difference"): {
        "block": [32], "expect": "refuted",
        "bug": "a - b instead of a + b",
        "about": "widen with a subtraction",
        "checks": [
            ("y = a + b", "refuted", None),
            ("y = a - b", "verified", None),
        ]},
    ("f16_affine", "plain"): {
        "block": [32], "expect": "equivalent",
        "about": "y[i] = half(2 * float(x[i]) + 1) over float16 tensors (reference)",
        "checks": [
            ("y = 2 * x + 1", "verified", None),
            ("y = 2 * x - 1", "refuted", None),
        ]},
    ("f16_affine", "swapped_pair"): {
        "block": [32], "expect": "refuted",
        "bug": "reads x[i ^ 1]: neighbouring elements swapped",
        "about": "plain at the index i ^ 1",
        "checks": [
            ("y = 2 * x + 1", "refuted", None),
        ]},
    ("atomic_typed", "sum_count"): {
        "block": [32], "expect": "equivalent",
        "about": "atomicAdd of doubles into a float64 y[0] and of 1 into a uint64 c[0] "
                 "(atom.global.add.f64/.u64 on 8-byte elements) (reference)",
        "checks": [
            ("y = x.sum(0, keepdim=True)\nc = torch.ones_like(x).sum(0, keepdim=True)",
             "verified", None),
        ]},
    ("atomic_typed", "skip_last"): {
        "block": [32], "expect": "refuted",
        "bug": "i < n - 1: the last element is neither added nor counted",
        "about": "sum_count with the bound off by one",
        "checks": [
            ("y = x.sum(0, keepdim=True)\nc = torch.ones_like(x).sum(0, keepdim=True)",
             "refuted", None),
        ]},
    ("byte_copy", "per_byte"): {
        "block": [32], "expect": "equivalent",
        "about": "thread j copies byte j of x to y (ld/st.global.u8): each element is "
                 "assembled from four threads' bytes (reference)",
        "checks": [
            ("y = x", "verified", None),
            ("y = 2 * x", "refuted", None),
        ]},
    ("byte_copy", "shifted"): {
        "block": [32], "expect": "refuted",
        "bug": "reads four bytes further on: y[i] = x[i + 1], and 0 for the last element",
        "about": "per_byte reading byte j + 4",
        "checks": [
            ("y = x", "refuted", None),
        ]},
    ("byte_copy", "swapped"): {
        "block": [32], "expect": "unknown",
        "reason": "from bytes of different values or of another type",
        "about": "per_byte copying byte j ^ 1: each element of y is x's element with the "
                 "bytes of its halves swapped, a bit-level mix",
        "checks": [
            ("y = x", "unknown", None),
        ]},
    ("byte_copy", "halves"): {
        "block": [32], "expect": "equivalent",
        "about": "one thread per element copies it as two 16-bit halves (ld/st.global.u16)",
        "checks": [
            ("y = x", "verified", None),
        ]},
    ("byte_flags", "adjacent"): {
        "block": [32], "expect": "equivalent",
        "about": "y[i] = x[i] > 0 into a bool tensor: four threads write the four bytes of "
                 "one word, which is no race (reference)",
        "checks": [
            ("y = torch.where(x > 0, 1, 0)", "verified", None),
        ]},
    ("byte_flags", "same_byte"): {
        "block": [32], "expect": "race",
        "race": "threads 2k and 2k+1 both store byte y[k] (st.global.u8) with nothing "
                "ordering them",
        "about": "adjacent with the index halved"},
})


# f64 code, traps, WARP_SZ and __constant__ tables (issue 19, item 6).
def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


FAMILIES.update({
    "gelu64": dict(_ELEMENTWISE,
                   spec="y = torch.nn.functional.gelu(x)",
                   reference=lambda ins, sz: {"y": _gelu(ins["x"])},
                   reference_variant="erf"),
    "trap": dict(_ELEMENTWISE,
                 spec="y = torch.relu(x)",
                 reference=lambda ins, sz: {"y": np.maximum(ins["x"], 0.0)},
                 reference_variant="checked"),
    "const_table": dict(_ELEMENTWISE,
                        spec="y = 1 + x / 2 + x * x / 4 + x * x * x / 8",
                        reference=lambda ins, sz: {
                            "y": 1 + ins["x"] / 2 + ins["x"] ** 2 / 4 + ins["x"] ** 3 / 8},
                        reference_variant="poly"),
})
# A float kernel argument given by value (issue 19, item 8): the launch's 1e-5 is
# rounded to f32 as the host passes it, like the spec's decimal.
FAMILIES.update({
    "eps_param": dict(_ELEMENTWISE,
                      params=_ELEMENTWISE["params"] + [("eps", {"value": 1e-5})],
                      spec="y = x / torch.sqrt(x * x + 1e-5)",
                      reference=lambda ins, sz: {"y": ins["x"] / np.sqrt(ins["x"] ** 2 + 1e-5)},
                      reference_variant="inside"),
})
VARIANTS.update({
    ("eps_param", "inside"): {
        "block": [32], "expect": "equivalent",
        "about": "x / sqrt(x^2 + eps), eps = 1e-5 a float argument (reference)",
        "checks": [("y = x / torch.sqrt(x * x + 1e-5)", "verified", None),
                   ("y = x / torch.sqrt(x * x + 1e-4)", "refuted", None)]},
    ("eps_param", "outside"): {
        "block": [32], "expect": "refuted", "equiv": "inside",
        "bug": "eps is added outside the square root: x / (|x| + eps)",
        "about": "x / (sqrt(x^2) + eps)",
        "checks": [("y = x / torch.sqrt(x * x + 1e-5)", "refuted", None)]},
})
VARIANTS.update({
    ("gelu64", "erf"): {
        "block": [32], "expect": "equivalent",
        "about": "exact GELU in double precision (NVRTC's double erf; mov.b64 {lo, hi} operands)",
        "checks": [
            ("y = torch.nn.functional.gelu(x)", "verified", None),
            ("y = F.gelu(x, approximate='tanh')", "refuted", None),
        ]},
    ("gelu64", "tanh"): {
        "block": [32], "expect": "refuted", "equiv": "erf",
        "bug": "the tanh approximation differs from exact GELU by up to 4.7e-4 (near x = 2.7)",
        "about": "GELU with the tanh approximation, in double precision (NVRTC's double tanh)",
        "checks": [
            ("y = torch.nn.functional.gelu(x)", "refuted", None),
            ("y = F.gelu(x, approximate='tanh')", "verified",
             "the spec's decimals are rounded to f32 (the tensors' type) but the kernel's "
             "constants are doubles: close but different constants"),
        ]},
    ("trap", "checked"): {
        "block": [32], "expect": "equivalent",
        "about": "relu behind a launch check (blockDim.x % warpSize != 0 traps): WARP_SZ, an unreachable trap",
        "checks": [("y = torch.relu(x)", "verified", None)]},
    ("trap", "wrong_check"): {
        "block": [32], "expect": "trap", "equiv": "checked",
        "trap": "blockDim.x != 2 * warpSize holds for block = 32: every thread reaches the trap",
        "about": "relu behind a launch check that fails on this launch"},
    ("trap", "data_trap"): {
        "block": [32], "expect": "trap", "equiv": "checked",
        "trap": "an input below -1 reaches the trap",
        "about": "relu with an assertion on the data (x < -1 traps)"},
    ("const_table", "poly"): {
        "block": [32], "expect": "equivalent",
        "about": "a cubic with its coefficients in a __constant__ table with an initialiser",
        "checks": [("y = 1 + x / 2 + x * x / 4 + x * x * x / 8", "verified", None)]},
    ("const_table", "wrong_coef"): {
        "block": [32], "expect": "refuted", "equiv": "poly",
        "bug": "the x^2 coefficient in the table is 1/3, not 1/4",
        "about": "the cubic with one wrong coefficient in its __constant__ table",
        "checks": [("y = 1 + x / 2 + x * x / 4 + x * x * x / 8", "refuted", None)]},
})

# Block-scoped labels and registers in inline asm (issue 41, item 6): ptxas resolves a
# branch to the label of the innermost enclosing `{ }` block that declares it, and a
# register declared in a block shadows an outer one. The expected 33 is read off the
# kernels (see their comments); `sass` is what nvdisasm must show once ptxas assembles
# the PTX (checked below when the Triton wheel's ptxas is at hand).
FAMILIES.update({
    "scoped_labels": dict(_ELEMENTWISE,
                          spec="y = x + 33",
                          reference=lambda ins, sz: {"y": ins["x"] + 33.0},
                          reference_variant="blocks"),
})
VARIANTS.update({
    ("scoped_labels", "blocks"): {
        "block": [32], "expect": "equivalent", "sass": "FADD R7, R2, 33 ;",
        "about": "two copies of one inline-asm block, each declaring P1, t and DONE: "
                 "max(max(30, 10) + 1, 32) + 1 = 33 (function-wide labels: 31)",
        "checks": [("y = x + 33", "verified", None),
                   ("y = x + 31", "refuted", None)]},
    ("scoped_labels", "nested"): {
        "block": [32], "expect": "equivalent", "sass": "FADD R7, R2, 33 ;",
        "about": "an inline-asm block whose nested block redeclares label X and predicate "
                 "q: 33 (the inner branch to the outer X: 13; the inner q leaking: 133)",
        "checks": [("y = x + 33", "verified", None),
                   ("y = x + 13", "refuted", None),
                   ("y = x + 133", "refuted", None)]},
})



# Issue 16's scale benchmarks: the SGEMM tutorial series on the whole 128 x 128 output
# with K a launch size, a row sum written with cooperative groups, and a
# FlashAttention-1 style kernel against a naive one.  The SGEMM variants choose their
# own block and grid (a per-variant `grid`); benchmarks/scale.py times `lift equiv`
# and `lift race` on them for K = 32 .. 512.
_SGEMM_GRID16 = ["cdiv(N, 16)", "cdiv(M, 16)"]
_SGEMM_GRID128 = ["cdiv(N, 128)", "cdiv(M, 128)"]
FAMILIES.update({
    "sgemm": {
        "spec": "C = A @ B",
        # the C signature of the matmul family's kernels
        "params": FAMILIES["matmul"]["params"],
        "grid": _SGEMM_GRID16,
        "instances": [
            {"name": "k16", "sizes": {"M": 128, "N": 128, "K": 16}},
            {"name": "k32", "sizes": {"M": 128, "N": 128, "K": 32}},
        ],
        "note": "M = N = 128 (any multiple of 128), K a multiple of 16; the benchmark "
                "sizes K = 32 .. 512 are given with --size K=...",
        "reference": lambda ins, sz: {"C": ins["A"] @ ins["B"]},
        "reference_variant": "naive",
    },
    "reduce_cg": {
        "spec": "out = torch.sum(x, dim=-1)",
        "params": _ROWSUM_PARAMS,
        "grid": ["B"],
        "instances": [
            {"name": "two_ctas", "sizes": {"B": 2, "N": 128}},
            {"name": "three_ctas", "sizes": {"B": 3, "N": 128}},
        ],
        "note": "N must be 128: each CTA sums one row of 128 floats.",
        "reference": lambda ins, sz: {"out": ins["x"].sum(axis=1)},
        "reference_variant": "block_tree",
    },
    "flash_attn": {
        "spec": "o = torch.softmax(q @ k.T * 0.125, dim=-1) @ v",
        "params": [
            ("Q", {"tensor": "q", "shape": ["N", "D"], "role": "in"}),
            ("K", {"tensor": "k", "shape": ["N", "D"], "role": "in"}),
            ("V", {"tensor": "v", "shape": ["N", "D"], "role": "in"}),
            ("O", {"tensor": "o", "shape": ["N", "D"], "role": "out"}),
            ("N", "N"),
        ],
        "grid": ["cdiv(N, 32)"],
        "instances": [
            {"name": "n32", "sizes": {"N": 32, "D": 64}},
            {"name": "n64", "sizes": {"N": 64, "D": 64}},
            {"name": "n128", "sizes": {"N": 128, "D": 64}},
        ],
        "note": "D must be 64 (the kernels' register rows; 1/sqrt(D) = 0.125) and N a "
                "multiple of 32; the benchmark size is N = 128.",
        "reference": lambda ins, sz: _attention_outputs(ins["q"], ins["k"], ins["v"]),
        "reference_variant": "naive",
    },
})


def _attention(q, k, v):
    return _softmax(q @ k.T * 0.125) @ v


def _attention_outputs(q, k, v):
    """o, and the row max m and row sum l = sum_j e^(s_j - m) that the FA1 kernels leave
    in global memory."""
    s = q @ k.T * 0.125
    m = s.max(axis=1)
    return {"o": _attention(q, k, v), "m": m, "l": np.exp(s - m[:, None]).sum(axis=1)}


# The public minimal FA1 kernels keep each row's running max and sum in global memory
# across key tiles: two more outputs after the family's parameters.
_FA1_PARAMS = [
    ("Q", {"tensor": "q", "shape": ["N", "D"], "role": "in"}),
    ("K", {"tensor": "k", "shape": ["N", "D"], "role": "in"}),
    ("V", {"tensor": "v", "shape": ["N", "D"], "role": "in"}),
    ("O", {"tensor": "o", "shape": ["N", "D"], "role": "out"}),
    ("N", "N"),
    ("l", {"tensor": "l", "shape": ["N"], "role": "out"}),
    ("m", {"tensor": "m", "shape": ["N"], "role": "out"}),
]


VARIANTS.update({
    ("sgemm", "naive"): {
        "block": [16, 16], "grid": ["cdiv(M, 16)", "cdiv(N, 16)"], "expect": "equivalent",
        "about": "one thread per C element, threadIdx.x walks rows (uncoalesced) (reference)"},
    ("sgemm", "coalesced"): {
        "block": [256], "expect": "equivalent",
        "about": "1-D block of 256 per 16 x 16 tile, consecutive threads on consecutive "
                 "columns (NVRTC merges the column index with a bfi.b32)"},
    ("sgemm", "coalesced_offsets"): {
        "block": [256], "expect": "equivalent",
        "about": "coalesced with the block offsets in the base pointers (no bfi.b32)"},
    ("sgemm", "smem_tiled"): {
        "block": [256], "expect": "equivalent",
        "about": "16 x 16 shared-memory tiles of A and B, two __syncthreads per K step"},
    ("sgemm", "blocktile_1d"): {
        "block": [512], "grid": ["cdiv(N, 64)", "cdiv(M, 64)"], "expect": "equivalent",
        "about": "64 x 64 tile per block, BK = 8, TM = 8 results per thread (1-D block tiling)"},
    ("sgemm", "blocktile_1d_wrong_bound"): {
        "block": [512], "grid": ["cdiv(N, 64)", "cdiv(M, 64)"], "expect": "refuted",
        "bug": "inner loop d < BK - 1: the products of k = 7, 15, ... are dropped",
        "about": "blocktile_1d with the inner tile bound off by one"},
    ("sgemm", "blocktile_2d"): {
        "block": [256], "grid": _SGEMM_GRID128, "expect": "equivalent",
        "about": "one block of 256 threads per 128 x 128 tile, BK = 8, 8 x 8 results per "
                 "thread (2-D block tiling)"},
    ("sgemm", "blocktile_2d_no_sync"): {
        "block": [256], "grid": _SGEMM_GRID128, "expect": "race",
        "race": "no __syncthreads after the products: the stores of the next K slice into "
                "As / Bs race with other threads' reads of this slice",
        "about": "blocktile_2d without the second __syncthreads of each K step"},
    ("sgemm", "vectorized"): {
        "block": [256], "grid": _SGEMM_GRID128, "expect": "equivalent",
        "about": "blocktile_2d with float4 loads (A stored transposed in shared memory), "
                 "float4 shared stores of B and float4 stores of C"},
    ("sgemm", "warptile"): {
        "block": [128], "grid": _SGEMM_GRID128, "expect": "equivalent",
        "about": "4 warps per 128 x 128 tile, 64 x 64 warp tiles in 4 sub-tiles, 8 x 4 per "
                 "lane per sub-tile, BK = 16, float4 loads and stores"},
    ("reduce_cg", "block_tree"): {
        "block": [128], "expect": "equivalent",
        "about": "shared-memory tree, sequential addressing, cg::thread_block::sync (reference)"},
    ("reduce_cg", "tile_shfl_down"): {
        "block": [128], "expect": "equivalent",
        "about": "tiled_partition<32>, thread_block_tile<32>::shfl_down per tile, tile sums "
                 "through shared memory, block.sync()"},
    ("reduce_cg", "cg_reduce"): {
        "block": [128], "expect": "equivalent",
        "about": "cg::reduce(tile, v, cg::plus<float>()) per tile, then on tile 0"},
    ("reduce_cg", "two_per_thread"): {
        "block": [64], "expect": "equivalent",
        "about": "64 threads add x[i] + x[i + 64] while loading, cg::reduce per tile"},
    ("reduce_cg", "missing_sync"): {
        "block": [128], "expect": "race",
        "race": "lane 0 of tile 1 stores partial[1] and lane 1 of tile 0 loads it with no "
                "block.sync() between",
        "about": "tile_shfl_down without the block.sync() before tile 0 reads the partials"},
    ("reduce_cg", "wrong_offset"): {
        "block": [128], "expect": "refuted",
        "bug": "first shfl_down offset 8 instead of 16: each tile sums only lanes 0 .. 15",
        "about": "tile_shfl_down starting its shuffles at offset 8"},
    ("flash_attn", "naive"): {
        "block": [32], "expect": "equivalent",
        "about": "one thread per query row: max, sum of exp, weighted sum of V, three passes "
                 "over global memory (reference)"},
    ("flash_attn", "flash1"): {
        "block": [32], "expect": "equivalent",
        "about": "FlashAttention-1: 32 query rows per block, K/V tiles of 32 rows in shared "
                 "memory, running max from -INFINITY, running sum, output rescaled per tile"},
    ("flash_attn", "flash2"): {
        "block": [32], "expect": "equivalent",
        "about": "flash1's tiling with FlashAttention-2's unnormalised accumulator: o = a o + "
                 "P V, l = a l + sum p, divided by l once at the end"},
    ("flash_attn", "max_init_zero"): {
        "block": [32], "expect": "equivalent",
        "about": "flash1 with the running max started at 0: equal over the reals (lift's "
                 "semantics); differs in f32 only where a row's scores all underflow e^(s - 0)"},
    ("flash_attn", "no_rescale"): {
        "block": [32], "expect": "refuted",
        "bug": "the old output is not rescaled by e^(m - m') when the running max grows",
        "about": "flash1 without the factor e^(m - m') on the old output"},
    ("flash_attn", "unscaled"): {
        "block": [32], "expect": "refuted",
        "bug": "the scores are not scaled by 1 / sqrt(D): softmax(Q K^T) V",
        "about": "flash1 without the factor 0.125 on the scores"},
    # FA1 as the public minimal implementations write it (issue 46 item 4): one CTA,
    # one thread per query row, m and l in global memory, O re-divided every tile.
    ("flash_attn", "fa1_minimal"): {
        "block": [32], "grid": [1], "params": _FA1_PARAMS, "expect": "equivalent",
        "about": "FA1 as the minimal implementations write it: one CTA, one thread per query "
                 "row, K/V tiles in shared memory, m and l in global memory across key "
                 "tiles, O = (1 / l') (l e^(m - m') O + e^(mt - m') P V) every tile"},
    ("flash_attn", "fa1_prescaled"): {
        "block": [32], "grid": [1], "params": _FA1_PARAMS, "expect": "equivalent",
        "about": "fa1_minimal with the tile's probabilities formed at the new max "
                 "(rescale before adding): O = (l e^(m - m') O + P V) / l'"},
    ("flash_attn", "fa1_coeffs"): {
        "block": [32], "grid": [1], "params": _FA1_PARAMS, "expect": "equivalent",
        "about": "fa1_minimal with the rescale and division folded into two per-row "
                 "coefficients: O = c_o O + c_p P V"},
    ("flash_attn", "fa1_expf"): {
        "block": [32], "grid": [1], "params": _FA1_PARAMS, "expect": "equivalent",
        "about": "fa1_minimal with the accurate expf and `/ l'`"},
    ("flash_attn", "fa1_end_division"): {
        "block": [32], "grid": [1], "params": _FA1_PARAMS, "expect": "equivalent",
        "about": "fa1_minimal with O unnormalised across key tiles (O = e^(m - m') O + "
                 "e^(mt - m') P V) and divided by l once, at the end"},
    ("flash_attn", "fa1_no_rescale"): {
        "block": [32], "grid": [1], "params": _FA1_PARAMS, "expect": "refuted",
        "bug": "the old output is not rescaled by e^(m - m') when the running max grows "
               "(equal at N = 32, one key tile)",
        "about": "fa1_minimal without the factor e^(m - m') on the old output"},
    ("flash_attn", "fa1_max_init_per_tile"): {
        "block": [32], "grid": [1], "params": _FA1_PARAMS, "expect": "refuted",
        "bug": "the running max is restarted at -INFINITY every key tile instead of read "
               "from m: each tile's softmax replaces the earlier ones (equal at N = 32)",
        "about": "fa1_minimal with the running max initialised inside the key loop"},
    ("flash_attn", "fa1_l_not_rescaled"): {
        "block": [32], "grid": [1], "params": _FA1_PARAMS, "expect": "refuted",
        "bug": "l' = l + e^(mt - m') lt: the running sum is not rescaled by e^(m - m') when "
               "the max grows (equal at N = 32)",
        "about": "fa1_minimal without the factor e^(m - m') on the running sum"},
    ("flash_attn", "missing_sync"): {
        "block": [32], "expect": "race",
        "race": "no __syncthreads at the end of a key tile: thread t stores Ks[t * 64 + d] "
                "for the next tile while another thread reads it for this tile",
        "about": "flash1 without the barrier before the next tile overwrites Ks / Vs"},
})


# Gathers (issue 19 item 3, issue 12 item 4): loads at addresses computed from loaded
# integers. The index tensors declare their values in the launch (`values`), and the
# inputs draw labels from them (ignore_index -100 included for cross-entropy).
def _labels(rng, shp, dtype, hi, ignore=None):
    if not dtype.startswith("int"):
        return rng.uniform(-2.0, 2.0, size=shp).astype(dtype)
    t = rng.integers(0, hi, size=shp)
    if ignore is not None and t.size > 1:
        t[1] = ignore  # one ignored row
    return t.astype(dtype)


def _gather_row(ins):
    x, t = ins["x"], ins["t"].astype(np.int64)
    return x[np.arange(x.shape[0]), t]


def _cross_entropy(ins):
    x, t = ins["x"], ins["t"].astype(np.int64)
    m = x.max(axis=1)
    lse = m + np.log(np.exp(x - m[:, None]).sum(axis=1))
    keep = t != -100
    picked = x[np.arange(x.shape[0]), np.where(keep, t, 0)]
    return np.where(keep, lse - picked, 0.0)


FAMILIES.update({
    "gather_row": {
        "spec": "y = torch.gather(x, 1, t.unsqueeze(1)).squeeze(1)",
        "params": [
            ("x", {"tensor": "x", "shape": ["M", "N"], "role": "in"}),
            ("t", {"tensor": "t", "shape": ["M"], "role": "in", "dtype": "int64",
                   "values": "0..N"}),
            ("y", {"tensor": "y", "shape": ["M"], "role": "out"}),
            ("m", "M"),
            ("n", "N"),
        ],
        "grid": ["cdiv(M, 32)"],
        "instances": [
            {"name": "m4n8", "sizes": {"M": 4, "N": 8}},
            {"name": "m5n3", "sizes": {"M": 5, "N": 3}},
        ],
        "note": "any M, N; t[r] in 0..N (the launch's `values`).",
        "inputs": lambda rng, shp, dtype: _labels(rng, shp, dtype, shp[0] and 3),
        "reference": lambda ins, sz: {"y": _gather_row(ins)},
        "reference_variant": "row",
    },
    "embedding": {
        "spec": "out = F.embedding(ids, w)",
        "params": [
            ("ids", {"tensor": "ids", "shape": ["L"], "role": "in", "dtype": "int64",
                     "values": "0..V"}),
            ("w", {"tensor": "w", "shape": ["V", "D"], "role": "in"}),
            ("out", {"tensor": "out", "shape": ["L", "D"], "role": "out"}),
            ("l", "L"),
            ("d", "D"),
        ],
        "grid": ["cdiv(L * D, 32)"],
        "instances": [
            {"name": "l3v5d4", "sizes": {"L": 3, "V": 5, "D": 4}},
            {"name": "l6v4d3", "sizes": {"L": 6, "V": 4, "D": 3}},
        ],
        "note": "any L, V, D; ids in 0..V (the launch's `values`).",
        "inputs": lambda rng, shp, dtype: _labels(rng, shp, dtype, 4),
        "reference": lambda ins, sz: {"out": ins["w"][ins["ids"].astype(np.int64)]},
        "reference_variant": "lookup",
    },
    "cross_entropy": {
        "spec": "loss = F.cross_entropy(x, t, reduction='none')",
        "params": [
            ("x", {"tensor": "x", "shape": ["M", "N"], "role": "in"}),
            ("t", {"tensor": "t", "shape": ["M"], "role": "in", "dtype": "int64",
                   "values": ["0..N", -100]}),
            ("loss", {"tensor": "loss", "shape": ["M"], "role": "out"}),
            ("n", "N"),
            ("ignore_index", -100),
        ],
        "grid": ["M"],
        "instances": [
            {"name": "m4n8", "sizes": {"M": 4, "N": 8}},
            {"name": "m3n5", "sizes": {"M": 3, "N": 5}},
        ],
        "note": "one CTA of 32 threads per row, any N; t[r] in 0..N or -100 (ignore_index, "
                "the launch's `values`); the reference inputs ignore row 1.",
        "inputs": lambda rng, shp, dtype: _labels(rng, shp, dtype, 5, ignore=-100),
        "reference": lambda ins, sz: {"loss": _cross_entropy(ins)},
        "reference_variant": "ce",
    },
})

VARIANTS.update({
    ("gather_row", "row"): {
        "block": [32], "expect": "equivalent",
        "about": "y[r] = x[r * n + t[r]], t int64 (reference)",
        "checks": [
            ("y = torch.gather(x, 1, t.unsqueeze(1)).squeeze(1)", "verified", None),
            ("y = x[torch.arange(M), t]", "verified", None),
            ("y = -F.nll_loss(x, t, reduction='none')", "verified", None),
            ("y = x[torch.arange(M), N - 1 - t]", "refuted", None),
        ]},
    ("gather_row", "off_by_one"): {
        "block": [32], "expect": "oob",
        "oob": "a label n - 1 in the last row reads one element past the end of x",
        "about": "row with x[r * n + t[r] + 1]"},
    ("gather_row", "scatter"): {
        "block": [32], "expect": "unknown",
        "reason": "a scatter",
        "about": "y[t[r]] = x[r, 0]: a store at a data-dependent address, UNKNOWN naming it"},
    ("embedding", "lookup"): {
        "block": [32], "expect": "equivalent",
        "about": "out[i, j] = w[ids[i] * d + j] (reference)",
        "checks": [
            ("out = F.embedding(ids, w)", "verified", None),
            ("out = w[ids]", "verified", None),
        ]},
    ("embedding", "wrong_stride"): {
        "block": [32], "expect": "refuted",
        "bug": "the table's row stride is d - 1: w[ids[i] * (d - 1) + j]",
        "about": "lookup with the row stride off by one",
        "checks": [
            ("out = F.embedding(ids, w)", "refuted", None),
        ]},
    ("cross_entropy", "ce"): {
        "block": [32], "expect": "equivalent",
        "about": "log-softmax by shared-memory trees, then lse - x[r, t[r]], 0 for ignored "
                 "rows (reference)",
        "checks": [
            ("loss = F.cross_entropy(x, t, reduction='none')", "verified", None),
            ("loss = F.cross_entropy(x, t, ignore_index=-100, reduction='none')", "verified",
             None),
            ("loss = F.cross_entropy(x, t, reduction='none', label_smoothing=0.1)", "refuted",
             None),
        ]},
    ("cross_entropy", "ignore_not_zeroed"): {
        "block": [32], "expect": "refuted",
        "bug": "ignore_index not honoured: an ignored row's loss is lse, not 0",
        "about": "ce with the label range-checked for the load but ignored rows not zeroed",
        "checks": [
            ("loss = F.cross_entropy(x, t, reduction='none')", "refuted", None),
        ]},
    ("cross_entropy", "unchecked_label"): {
        "block": [32], "expect": "oob",
        "oob": "an ignored row's label -100 is used as a column: x[r, -100] lies outside x",
        "about": "ce without the ignore_index test"},
})

# Device-function calls (issue 19, item 4; src/ptx/calls.rs, tests/it/ptx_calls.rs): a
# __noinline__ function and its twin, a function pointer picked by the data, a
# __device__ table of function pointers indexed by an argument, mutual recursion (an
# error naming the cycle); and -G builds (NVRTC's unoptimised code: calls to device
# functions and libm kept, locals on the stack) of existing variants, which must get
# the optimised builds' verdicts. A variant with `source` is compiled from that
# variant's .cu (entry renamed; the copy is written as its own .cu) with `options`.
FAMILIES.update({
    "calls": dict(_ELEMENTWISE,
                  spec="y = torch.nn.functional.silu(x)",
                  reference=lambda ins, sz: {"y": ins["x"] / (1 + np.exp(-ins["x"]))},
                  reference_variant="noinline_silu"),
    "fn_table": dict(_ELEMENTWISE,
                     params=_ELEMENTWISE["params"][:2] + [("op", 1), ("n", "N")],
                     spec="y = -x",
                     reference=lambda ins, sz: {"y": -ins["x"]},
                     reference_variant="by_param"),
})
VARIANTS.update({
    ("calls", "noinline_silu"): {
        "block": [32], "expect": "equivalent",
        "about": "x * sigm(x) with sigm a __noinline__ device function (a .param call) (reference)",
        "checks": [
            ("y = torch.nn.functional.silu(x)", "verified", None),
            ("y = torch.sigmoid(x)", "refuted", None),
        ]},
    ("calls", "noinline_twin"): {
        "block": [32], "expect": "refuted", "equiv": "noinline_silu",
        "bug": "the device function returns sigmoid(x) + 0.25: x * (sigmoid(x) + 0.25)",
        "about": "x * sigm(x) with sigm off by the constant 0.25",
        "checks": [
            ("y = torch.nn.functional.silu(x)", "refuted", None),
            ("y = x * (torch.sigmoid(x) + 0.25)", "verified", None),
        ]},
    ("calls", "fn_by_data"): {
        "block": [32], "expect": "refuted", "equiv": "noinline_silu",
        "bug": "a different op: leaky relu with slope 0.5, through a data-chosen pointer",
        "about": "y = f(x) with f = x > 0 ? keep : halve, a function pointer picked by the data",
        "checks": [
            ("y = torch.nn.functional.leaky_relu(x, 0.5)", "verified", None),
            ("y = torch.nn.functional.leaky_relu(x, 0.25)", "refuted", None),
        ]},
    ("calls", "recursive"): {
        "block": [32], "expect": "error",
        "error": "recursion: _Z8even_sumPKfi -> _Z7odd_sumPKfi -> _Z8even_sumPKfi",
        "about": "mutually recursive __noinline__ functions (even_sum, odd_sum)",
        "checks": []},
    ("fn_table", "by_param"): {
        "block": [32], "expect": "equivalent",
        "about": "ops[op](x) through a __device__ table {sq, neg}, op = 1 from the launch (reference)",
        "checks": [
            ("y = -x", "verified", None),
            ("y = x * x", "refuted", None),
        ]},
    ("fn_table", "wrong_entry"): {
        "block": [32], "expect": "refuted", "equiv": "by_param",
        "bug": "the table is {neg, sq}: op = 1 calls sq",
        "about": "ops[op](x) with the table's entries swapped",
        "checks": [
            ("y = -x", "refuted", None),
            ("y = x * x", "verified", None),
        ]},
})


def _debug_build(family, variant):
    v = dict(VARIANTS[(family, variant)])
    v["about"] = (f"{variant} built with -G (unoptimised: device and libm calls kept, "
                  f"locals on the stack): {v['about']}")
    v["source"], v["options"] = variant, ["-G"]
    if v["expect"] == "equivalent":
        v["equiv"] = variant
    return v


VARIANTS.update({(f, f"{v}_g"): _debug_build(f, v) for f, v in [
    ("relu", "ifelse"), ("relu", "leaky_twin"), ("sigmoid", "neg_exp"),
    ("softmax", "naive_smem"), ("reduce", "sequential"),
    # issue 19's named kernels: int64 argmax, cross-entropy's gather, an atomic-sum
    # reduction, the spin lock with and without its lock, the double GELU.
    ("argmax", "first"), ("argmax", "last_on_ties"), ("cross_entropy", "ce"),
    ("cross_entropy", "ignore_not_zeroed"), ("atomic_rowsum", "partial"),
    ("atomic_rowsum", "missing_tail"), ("atomic_lock", "spin_lock"), ("atomic_lock", "no_lock"),
    ("gelu64", "erf"), ("gelu64", "tanh")]})


def variants_of(family):
    return [v for (f, v) in VARIANTS if f == family]


def params_of(family, variant):
    """The variant's parameters: its own `params` where it declares them (they may add
    outputs to the family's), else the family's."""
    return VARIANTS[(family, variant)].get("params", FAMILIES[family]["params"])


def entry_name(family, variant):
    return f"{family}_{variant}"


# ----------------------------------------------------------------------------
# NVRTC through ctypes
# ----------------------------------------------------------------------------

_NVRTC = None


def nvrtc():
    global _NVRTC
    if _NVRTC is None:
        import nvidia.cuda_nvrtc  # the wheel's namespace package
        libdir = os.path.join(list(nvidia.cuda_nvrtc.__path__)[0], "lib")
        _NVRTC = ctypes.CDLL(os.path.join(libdir, "libnvrtc.so.12"))
        _NVRTC.nvrtcGetErrorString.restype = ctypes.c_char_p
    return _NVRTC


def nvrtc_version():
    lib = nvrtc()
    major, minor = ctypes.c_int(), ctypes.c_int()
    lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return f"{major.value}.{minor.value}"


def _check(rc, what):
    if rc != 0:
        raise RuntimeError(f"{what}: {nvrtc().nvrtcGetErrorString(rc).decode()}")


def compile_cuda(source, name, options):
    """Compile CUDA C++ source text to PTX; `name` is the program (file) name."""
    lib = nvrtc()
    prog = ctypes.c_void_p()
    _check(lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(),
                                  0, None, None), "nvrtcCreateProgram")
    try:
        opts = [o.encode() for o in options]
        arr = (ctypes.c_char_p * len(opts))(*opts)
        rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        log = log.value.decode()
        if rc != 0:
            raise SystemExit(f"{name}: NVRTC failed:\n{log}")
        if log.strip():
            print(f"{name}: NVRTC log:\n{log}", file=sys.stderr)
        _check(lib.nvrtcGetPTXSize(prog, ctypes.byref(size)), "nvrtcGetPTXSize")
        buf = ctypes.create_string_buffer(size.value)
        _check(lib.nvrtcGetPTX(prog, buf), "nvrtcGetPTX")
        return buf.value.decode()
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def compile_variant(family, variant):
    var = VARIANTS.get((family, variant), {})
    rel = f"ptx/{family}/{variant}.cu"
    if var.get("source"):
        src = f"ptx/{family}/{var['source']}.cu"
        with open(src) as f:
            text = f.read()
        text = text.replace(entry_name(family, var["source"]), entry_name(family, variant))
        write_text(rel, f"// Generated by ptx/generate.py from {src} (entry renamed), "
                        f"compiled with {' '.join(var['options'])}.\n" + text)
    with open(rel) as f:
        source = f.read()
    options = NVRTC_OPTIONS + var.get("options", [])
    if "#include" in source:
        options = options + [f"-I{cuda_include()}"]
    if "cooperative_groups" in source:
        options = options + [f"-I{cccl_include()}"]
    ptx = compile_cuda(source, rel, options)
    again = compile_cuda(source, rel, options)
    if ptx != again:
        raise SystemExit(f"{rel}: NVRTC output is not deterministic")
    # NVRTC writes `.file 1 "<cwd>/<name>"`; make it repo-relative
    ptx = ptx.replace(f'"{ROOT}/ptx/', '"ptx/')
    # CUDA headers inlined with -lineinfo: name them relative to the wheel's site-packages
    if "#include" in source:
        ptx = ptx.replace(f'"{cuda_include()}/', '"nvidia/cuda_runtime/include/')
    if "cooperative_groups" in source:
        ptx = ptx.replace(f'"{cccl_include()}/', '"nvidia/cuda_cccl/include/')
    if ROOT in ptx or re.search(r'\.file\s+\d+\s+"/', ptx):
        raise SystemExit(f"{rel}: absolute path left in the PTX")
    return ptx


def ptx_entries(ptx):
    """[(entry name, [param names])] of the .entry directives."""
    res = []
    for m in re.finditer(r"\.entry\s+(\w+)\s*\(([^)]*)\)", ptx):
        # `.param .align 8 .b8 name[24]`: a struct passed by value
        params = re.findall(r"(\w+)(?:\[\d+\])?\s*,?\s*$", m.group(2), flags=re.M)
        params = [p for p in params if p]
        res.append((m.group(1), params))
    return res


# Structs passed by value (issue 19, item 6): NVRTC's `.param .b8 p[bytes]`, whose fields
# the launch binds by byte offset (`p = { fields = { 0 = ..., 8 = ... } }`).
FAMILIES.update({
    "struct_clamp": dict(_ELEMENTWISE,
                         params=[_ELEMENTWISE["params"][0], _ELEMENTWISE["params"][1],
                                 ("p", {"fields": {0: {"value": -0.5}, 4: {"value": 0.75}}}),
                                 _ELEMENTWISE["params"][2]],
                         spec="y = torch.clamp(x, -0.5, 0.75)",
                         reference=lambda ins, sz: {"y": np.clip(ins["x"], -0.5, 0.75)},
                         reference_variant="clamp"),
    "struct_args": dict(_ELEMENTWISE,
                        params=[("a", {"fields": {
                            0: {"tensor": "x", "shape": ["N"], "role": "in"},
                            8: {"tensor": "y", "shape": ["N"], "role": "out"},
                            16: {"value": 0.5},
                            20: "N"}})],
                        spec="y = 0.5 * x",
                        reference=lambda ins, sz: {"y": 0.5 * ins["x"]},
                        reference_variant="scale"),
})
VARIANTS.update({
    ("struct_clamp", "clamp"): {
        "block": [32], "expect": "equivalent",
        "about": "clamp(x, p.lo, p.hi) with the bounds in a struct passed by value (reference)",
        "checks": [("y = torch.clamp(x, -0.5, 0.75)", "verified", None),
                   ("y = torch.clamp(x, -0.5, 0.5)", "refuted", None)]},
    ("struct_clamp", "swapped"): {
        "block": [32], "expect": "refuted", "equiv": "clamp",
        "bug": "the struct's two fields are used the wrong way round: every element is p.lo",
        "about": "clamp with p.lo and p.hi swapped",
        "checks": [("y = torch.clamp(x, -0.5, 0.75)", "refuted", None)]},
    ("struct_args", "scale"): {
        "block": [32], "expect": "equivalent",
        "about": "y = scale * x, every argument (tensor pointers too) a field of one struct (reference)",
        "checks": [("y = 0.5 * x", "verified", None), ("y = 0.25 * x", "refuted", None)]},
    ("struct_args", "past_end"): {
        "block": [32], "expect": "oob",
        "oob": "`i <= a.n`: thread n reads x[n], one element past the end",
        "about": "scale with the bound check off by one"},
})


# ----------------------------------------------------------------------------
# TOML writing (small, just what the fixtures need)
# ----------------------------------------------------------------------------

def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(v)


HEADER = "# Generated by ptx/generate.py from {src}; edit the source or generate.py and regenerate.\n"


def launch_toml(family, variant, params):
    fam, var = FAMILIES[family], VARIANTS[(family, variant)]
    lines = [HEADER.format(src=f"ptx/{family}/{variant}.cu"),
             f"block = {toml_value(var['block'])}\n",
             f"grid = {toml_value(var.get('grid', fam['grid']))}\n",
             f"sizes = {toml_value(fam['instances'][0]['sizes'])}\n",
             "\n[args]\n"]
    for pname, (cname, a) in zip(params, params_of(family, variant)):
        lines.append(f"{pname} = {toml_value(a)}  # {cname}\n")
    return "".join(lines)


def fixture_toml(family, variant, entry):
    fam, var = FAMILIES[family], VARIANTS[(family, variant)]
    ref = fam["reference_variant"]
    lines = [HEADER.format(src=f"ptx/{family}/{variant}.cu"),
             f"family = {toml_value(family)}\n",
             f"variant = {toml_value(variant)}\n",
             f"entry = {toml_value(entry)}\n",
             f"source = {toml_value(f'ptx/{family}/{variant}.cu')}\n",
             f"about = {toml_value(var['about'])}\n",
             f"spec = {toml_value(fam['spec'])}\n",
             f"expect = {toml_value(var['expect'])}\n",
             f"equiv = {toml_value(var.get('equiv', ref))}\n"]
    if variant == ref:
        lines.append("reference = true\n")
    if var["expect"] == "race":
        lines.append(f"race = {toml_value(var['race'])}\n")
    if var["expect"] == "refuted":
        lines.append(f"bug = {toml_value(var['bug'])}\n")
    if var["expect"] == "deadlock":
        lines.append(f"deadlock = {toml_value(var['deadlock'])}\n")
    if var["expect"] == "trap":
        lines.append(f"trap = {toml_value(var['trap'])}\n")
    if var["expect"] == "oob":
        lines.append(f"oob = {toml_value(var['oob'])}\n")
    if var.get("pending"):
        lines.append(f"pending = {toml_value(var['pending'])}  # until then UNKNOWN\n")
    if var["expect"] in ("unwritten", "error"):
        lines.append(f"error = {toml_value(var['error'])}\n")
    if var["expect"] == "unknown":
        lines.append(f"reason = {toml_value(var['reason'])}  # in lift's UNKNOWN message\n")
    lines.append(f"note = {toml_value(fam['note'])}\n")
    lines.append('ref = "ref"  # reference data: ref/<instance>/ in this folder\n')
    for spec, verdict, pending in var.get("checks", []):
        lines.append("\n[[check]]  # `lift check <variant>.ptx --spec SPEC` gives VERDICT\n")
        lines.append(f"spec = {toml_value(spec)}\n")
        lines.append(f"verdict = {toml_value(verdict)}\n")
        if pending:
            lines.append(f"pending = {toml_value(pending)}\n")
    for inst in fam["instances"]:
        lines.append("\n[[instance]]\n")
        lines.append(f"name = {toml_value(inst['name'])}\n")
        lines.append(f"sizes = {toml_value(inst['sizes'])}\n")
    return "".join(lines)


# ----------------------------------------------------------------------------
# reference data
# ----------------------------------------------------------------------------

def eval_size(expr, sizes):
    if isinstance(expr, int):
        return expr
    env = {"__builtins__": {}, "cdiv": lambda a, b: -(-a // b), "min": min, "max": max}
    env.update(sizes)
    return eval(expr, env)  # trusted: our own metadata


def make_input(fam, rng, shp, dtype):
    """Random input data of a launch dtype (floats uniform in [-2, 2])."""
    if "inputs" in fam:
        return fam["inputs"](rng, shp, dtype)
    if dtype == "bool":
        return rng.uniform(size=shp) < 0.5
    if dtype.startswith(("int", "uint")):
        lo = 0 if dtype.startswith("uint") else -5
        return rng.integers(lo, 6, size=shp).astype(dtype)
    return rng.uniform(-2.0, 2.0, size=shp).astype(dtype)


def write_refs(family):
    fam = FAMILIES[family]
    ref_dir = os.path.join(HERE, family, "ref")
    if os.path.isdir(ref_dir):
        shutil.rmtree(ref_dir)
    for inst in fam["instances"]:
        d = os.path.join(ref_dir, inst["name"])
        os.makedirs(os.path.join(d, "expected"))
        rng = np.random.default_rng(zlib.crc32(f"ptx/{family}/{inst['name']}".encode()))
        inputs, outs = {}, {}
        # A struct parameter's fields are arguments too.
        # A variant may add outputs of its own (flash attention's m and l in global
        # memory); the family's reference computes them too.
        every = fam["params"] + [p for v in variants_of(family)
                                 for p in params_of(family, v) if p not in fam["params"]]
        flat = [f for _, a in every
                for f in (a["fields"].values() if isinstance(a, dict) and "fields" in a else [a])]
        for a in flat:
            if isinstance(a, dict) and "tensor" in a:
                shp = tuple(eval_size(s, inst["sizes"]) for s in a["shape"])
                if a["role"] == "out":
                    outs[a["tensor"]] = shp
                else:
                    inputs[a["tensor"]] = make_input(fam, rng, shp, a.get("dtype", "float32"))
        for t, arr in inputs.items():
            np.save(os.path.join(d, f"{t}.npy"), arr)
        exp = fam["reference"]({k: v.astype(np.float64) for k, v in inputs.items()}, inst["sizes"])
        assert set(exp) == set(outs), (family, sorted(exp), sorted(outs))
        for t, arr in exp.items():
            arr = np.ascontiguousarray(np.asarray(arr, dtype=np.float64))
            assert arr.shape == outs[t], (family, t, arr.shape, outs[t])
            np.save(os.path.join(d, "expected", f"{t}.npy"), arr)


# ----------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------

def write_text(path, text):
    with open(path, "w", newline="\n") as f:
        f.write(text)


def generate(family):
    fam = FAMILIES[family]
    assert (family, fam["reference_variant"]) in VARIANTS
    for variant in variants_of(family):
        var = VARIANTS[(family, variant)]
        assert var["expect"] in ("equivalent", "refuted", "race", "unwritten", "unknown",
                                 "deadlock", "trap", "oob", "error"), \
            var["expect"]
        assert var["expect"] != "unknown" or var.get("reason"), (family, variant)
        assert var["expect"] not in ("unwritten", "error") or var.get("error"), (family, variant)
        assert var["expect"] != "race" or var.get("race"), (family, variant)
        assert var["expect"] != "refuted" or var.get("bug"), (family, variant)
        ptx = compile_variant(family, variant)
        entries = ptx_entries(ptx)
        entry = entry_name(family, variant)
        if [e for e, _ in entries] != [entry]:
            raise SystemExit(f"ptx/{family}/{variant}.ptx: entries {entries}, want [{entry}]")
        params = entries[0][1]
        declared = params_of(family, variant)
        if params != [f"{entry}_param_{i}" for i in range(len(declared))]:
            raise SystemExit(f"ptx/{family}/{variant}.ptx: parameters {params} do not match "
                             f"{[c for c, _ in declared]}")
        if var.get("sass"):
            check_sass(f"ptx/{family}/{variant}.ptx", ptx, var["sass"])
        base = os.path.join(HERE, family, variant)
        write_text(base + ".ptx", ptx)
        write_text(base + ".launch.toml", launch_toml(family, variant, params))
        write_text(base + ".fixture.toml", fixture_toml(family, variant, entry))
        print(f"generated ptx/{family}/{variant}.ptx")
    write_refs(family)


# ptxas and nvdisasm ship in the Triton wheel of .venv-gen (CPU-only tools).
TRITON_BIN = os.path.join(ROOT, ".venv-gen", "lib", "python3.11", "site-packages", "triton",
                          "backends", "nvidia", "bin")


def check_sass(name, ptx, want):
    """Assemble `ptx` for sm_80 with ptxas and require nvdisasm's listing to contain
    `want`: the value the fixture expects, as the GPU's own assembler compiles it."""
    import subprocess
    import tempfile
    ptxas = os.path.join(TRITON_BIN, "ptxas")
    if not os.path.exists(ptxas):
        print(f"{name}: no ptxas at {TRITON_BIN}; SASS not checked", file=sys.stderr)
        return
    with tempfile.TemporaryDirectory() as tmp:
        src, cubin = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        subprocess.check_call([ptxas, "-arch=sm_80", src, "-o", cubin])
        sass = subprocess.run([os.path.join(TRITON_BIN, "nvdisasm"), "-c", cubin],
                              capture_output=True, text=True, check=True).stdout
    if want not in sass:
        raise SystemExit(f"{name}: nvdisasm does not show {want!r}:\n{sass}")


# `opcode` of every instruction line: optional predicate guard, then the
# dotted mnemonic; directives (.reg, .loc, ...), labels and braces are skipped
_INSN = re.compile(r"^\s*(?:@!?%\w+\s+)?([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*)\b")


def mnemonics(paths):
    found = set()
    for p in paths:
        with open(p) as f:
            for line in f:
                line = line.split("//")[0]
                if not line.strip() or line.lstrip().startswith((".", "$", "{", "}", ")")):
                    continue
                m = _INSN.match(line)
                if m and not line.rstrip().endswith(":"):
                    found.add(m.group(1))
    return sorted(found)


def main(argv):
    show = None
    for a in argv:
        if a.startswith("--mnemonics"):
            show = a.split("=", 1)[1] if "=" in a else "cuda"
    fams = [a for a in argv if not a.startswith("--")] or list(FAMILIES)
    unknown = [f for f in fams if f not in FAMILIES]
    if unknown:
        raise SystemExit(f"unknown families: {unknown} (known: {list(FAMILIES)})")
    print(f"NVRTC {nvrtc_version()}, options {' '.join(NVRTC_OPTIONS)}")
    for family in fams:
        generate(family)
    if show:
        paths = [os.path.join(HERE, f, f"{v}.ptx") for (f, v) in VARIANTS]
        if show == "all":
            tdir = os.path.join(ROOT, "triton_ir")
            paths += sorted(os.path.join(tdir, d, "kernel.ptx") for d in os.listdir(tdir)
                            if os.path.isfile(os.path.join(tdir, d, "kernel.ptx")))
        for m in mnemonics(paths):
            print(m)


if __name__ == "__main__":
    main(sys.argv[1:])
