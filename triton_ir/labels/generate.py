#!/usr/bin/env python3
"""Rebuild lift's Triton label fixtures (issue 42: element types from the IR).

Usage (from anywhere): `.venv-gen/bin/python triton_ir/labels/generate.py [NAME ...]`

Compiles each kernel of `kernels.py` as the suite's are (`triton_ir/generate.py`):
Triton 3.9, `GPUTarget("cuda", 80, 32)`, `TRITON_DEFAULT_FP_FUSION=0`, a fresh cache,
the source compiled under its repository-relative name. Writes per fixture
`triton_ir/labels/<name>/`: `kernel.ttir`, `kernel.ptx`, `kernel.launch.toml` (the label
tensor declares its `values` and no `dtype`: the kernel's `*i64` pointer types it),
`fixture.toml` (spec, expected verdict per instance), and `ref/<inst>/` inputs (float32,
int64 labels drawn from the declared values, ignore_index included, a label 0 included)
with `expected/` float64 outputs of a NumPy reference. These fixtures live one level
down so the suite's walkers (`tests/common`) do not take them; `tests/it/labels.rs` walks
them.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fixture_gen as G  # noqa: E402  (before numpy/triton: it sets Triton's environment)
import numpy as np  # noqa: E402

K = G.load_kernels("labels", "lift_label_kernels")


def _lse(x):
    m = x.max(axis=1)
    return m + np.log(np.exp(x - m[:, None]).sum(axis=1))


def _picked(x, t):
    keep = t != -100
    return keep, x[np.arange(x.shape[0]), np.where(keep, t, 0)]


def _ce(ins, sz):
    keep, picked = _picked(ins["x"], ins["t"].astype(np.int64))
    return {"loss": np.where(keep, _lse(ins["x"]) - picked, 0.0)}


def _nll(ins, sz):
    keep, picked = _picked(ins["logp"], ins["t"].astype(np.int64))
    return {"loss": np.where(keep, -picked, 0.0)}


CE = {
    "signature": {"loss_ptr": "*fp32", "X_ptr": "*fp32", "X_stride": "i32", "Y_ptr": "*i64",
                  "n_cols": "i32", "ignore_index": "i32", "BLOCK_SIZE": "constexpr"},
    "constexprs": {"BLOCK_SIZE": 4},
    "grid": ["M"],
    "args": [
        ("loss_ptr", {"tensor": "loss", "shape": ["M"], "role": "out"}),
        ("X_ptr", {"tensor": "x", "shape": ["M", "N"]}),
        ("X_stride", "N"),
        ("Y_ptr", {"tensor": "t", "shape": ["M"], "values": ["0..N", -100]}),
        ("n_cols", "N"),
        ("ignore_index", -100),
    ],
    # N == BLOCK_SIZE first: the vocabulary is one chunk there
    "instances": [{"name": "m3n4", "sizes": {"M": 3, "N": 4}},
                  {"name": "m4n10", "sizes": {"M": 4, "N": 10}}],
    "labels": {"t": ("N", -100)},
    "spec": "loss = F.cross_entropy(x, t, ignore_index=-100, reduction='none')",
    "reference": _ce,
}

NLL = {
    "signature": {"loss_ptr": "*fp32", "logp_ptr": "*fp32", "stride": "i32", "t_ptr": "*i64",
                  "ignore_index": "i32"},
    "constexprs": {},
    "grid": ["M"],
    "args": [
        ("loss_ptr", {"tensor": "loss", "shape": ["M"], "role": "out"}),
        ("logp_ptr", {"tensor": "logp", "shape": ["M", "N"]}),
        ("stride", "N"),
        ("t_ptr", {"tensor": "t", "shape": ["M"], "values": ["0..N", -100]}),
        ("ignore_index", -100),
    ],
    "instances": [{"name": "m4n5", "sizes": {"M": 4, "N": 5}},
                  {"name": "m3n3", "sizes": {"M": 3, "N": 3}}],
    "labels": {"t": ("N", -100)},
    "spec": "loss = F.nll_loss(logp, t, ignore_index=-100, reduction='none')",
    "reference": _nll,
}

EMB = {
    "signature": {"out_ptr": "*fp32", "ids_ptr": "*i64", "w_ptr": "*fp32", "D": "i32",
                  "BLOCK_D": "constexpr"},
    "constexprs": {"BLOCK_D": 4},
    "grid": ["L"],
    "args": [
        ("out_ptr", {"tensor": "out", "shape": ["L", "D"], "role": "out"}),
        ("ids_ptr", {"tensor": "ids", "shape": ["L"], "values": "0..V"}),
        ("w_ptr", {"tensor": "w", "shape": ["V", "D"]}),
        ("D", "D"),
    ],
    # D == BLOCK_D first: the table's rows are BLOCK_D apart there
    "instances": [{"name": "l3v5d4", "sizes": {"L": 3, "V": 5, "D": 4}},
                  {"name": "l4v3d6", "sizes": {"L": 4, "V": 3, "D": 6}}],
    "labels": {"ids": ("V", None)},
    "spec": "out = F.embedding(ids, w)",
    "reference": lambda ins, sz: {"out": ins["w"][ins["ids"].astype(np.int64)]},
}

DEQ = {
    "signature": {"y_ptr": "*fp32", "q_ptr": "*i8", "scale_ptr": "*fp32", "n_cols": "i32",
                  "BLOCK_N": "constexpr"},
    "constexprs": {"BLOCK_N": 4},
    "grid": ["M"],
    "args": [
        ("y_ptr", {"tensor": "y", "shape": ["M", "N"], "role": "out"}),
        ("q_ptr", {"tensor": "q", "shape": ["M", "N"]}),
        ("scale_ptr", {"tensor": "s", "shape": ["M"]}),
        ("n_cols", "N"),
    ],
    "instances": [{"name": "m3n6", "sizes": {"M": 3, "N": 6}},
                  {"name": "m2n9", "sizes": {"M": 2, "N": 9}}],
    "labels": {},
    "codes": {"q": (-128, 128)},
    "spec": "y = q.float() * s[:, None]",
    "reference": lambda ins, sz: {"y": ins["q"] * ins["s"][:, None]},
}

# `expect`: the verdict at each instance, in order (a twin is right at the first);
# "oob": an access outside a tensor (exit 1, OUT OF BOUNDS).
FIXTURES = {
    "cross_entropy": dict(CE, kernel="cross_entropy_kernel", expect=["verified", "verified"],
                          all_sizes=True),
    "cross_entropy_one_chunk": dict(
        CE, kernel="cross_entropy_one_chunk_kernel", expect=["verified", "refuted"],
        bug="only the first BLOCK_SIZE columns enter the log-sum-exp"),
    "nll_loss": dict(NLL, kernel="nll_loss_kernel", expect=["verified", "verified"],
                     all_sizes=True),
    "nll_loss_label0": dict(
        NLL, kernel="nll_loss_label0_kernel", expect=["refuted", "refuted"],
        bug="a row labelled 0 is taken for ignored (t > 0 for t != ignore_index)"),
    "embedding": dict(EMB, kernel="embedding_kernel", expect=["verified", "verified"],
                      all_sizes=True),
    "embedding_block_stride": dict(
        EMB, kernel="embedding_block_stride_kernel", expect=["verified", "refuted"],
        bug="the table's rows are taken BLOCK_D apart, not D"),
    # two whole blocks at the launch's instance (D == 8), a ragged tail at the second
    "embedding_whole_blocks": dict(
        EMB, kernel="embedding_whole_blocks_kernel", expect=["verified", "refuted"],
        instances=[{"name": "l3v5d8", "sizes": {"L": 3, "V": 5, "D": 8}},
                   EMB["instances"][1]],
        bug="the loop covers whole blocks only: a ragged tail of each row is never written"),
    # M > N at the second instance, its last row ignored: the placeholder leaves logp
    "nll_loss_ignore_diag": dict(
        NLL, kernel="nll_loss_ignore_diag_kernel", expect=["verified", "oob"],
        instances=[NLL["instances"][0], {"name": "m5n3", "sizes": {"M": 5, "N": 3}}],
        ignored_rows=[1, -1],
        bug="an ignored row reads logp[row, row], outside the tensor once M > N"),
    "nll_loss_rows": dict(
        NLL, kernel="nll_loss_rows_kernel", expect=["verified", "verified"],
        signature=dict(NLL["signature"], n_rows="i32", BLOCK_M="constexpr"),
        constexprs={"BLOCK_M": 2}, grid=["cdiv(M, 2)"],
        args=NLL["args"][:4] + [("n_rows", "M"), ("ignore_index", -100)],
        options="--masked-load zero"),
    "nll_loss_rows_unmasked": dict(
        NLL, kernel="nll_loss_rows_unmasked_kernel", expect=["verified", "oob"],
        signature=dict(NLL["signature"], n_rows="i32", BLOCK_M="constexpr"),
        constexprs={"BLOCK_M": 2}, grid=["cdiv(M, 2)"],
        args=NLL["args"][:4] + [("n_rows", "M"), ("ignore_index", -100)],
        bug="the label and logp loads are not masked: a ragged last block reads past t"),
    "dequant_rows": dict(DEQ, kernel="dequant_rows_kernel", expect=["verified", "verified"],
                         all_sizes=True),
    "dequant_rows_unsigned": dict(
        DEQ, kernel="dequant_rows_unsigned_kernel", expect=["refuted", "refuted"],
        bug="negative int8 codes read as unsigned bytes (-1 as 255)"),
}


def inputs(fx, sz, rng):
    """One instance's inputs, drawn in argument order: labels (the first 0, the second
    the ignored index where there is one), int8 codes (the first negative), and float32
    uniform on [-2, 2) for the rest."""
    ins = {}
    for _, a in fx["args"]:
        if not (isinstance(a, dict) and "tensor" in a) or a.get("role") == "out":
            continue
        shp = G.shape_of(a["shape"], sz)
        if a["tensor"] in fx["labels"]:
            hi, ignore = fx["labels"][a["tensor"]]
            t = rng.integers(0, sz[hi], size=shp)
            t[0] = 0
            if ignore is not None and t.size > 1:
                for r in fx.get("ignored_rows", [1]):
                    t[r] = ignore
            ins[a["tensor"]] = t.astype(np.int64)
        elif a["tensor"] in fx.get("codes", {}):
            lo, hi = fx["codes"][a["tensor"]]
            t = rng.integers(lo, hi, size=shp)
            t.flat[0] = -1  # a negative code
            ins[a["tensor"]] = t.astype(np.int8)
        else:
            ins[a["tensor"]] = rng.uniform(-2.0, 2.0, size=shp).astype(np.float32)
    return ins


if __name__ == "__main__":
    for name in sys.argv[1:] or FIXTURES:
        G.generate("labels", K, name, FIXTURES[name], inputs)
