#!/usr/bin/env python3
"""Rebuild lift's fixtures of scans and recurrences (issue 42): `tl.cumsum` along a row
(one block, and blocks carrying the running total), the linear recurrence
h[t] = a[t]·h[t-1] + x[t] (a loop over t, and `tl.associative_scan` of affine maps),
online log-softmax.

Usage (from anywhere): `.venv-gen/bin/python triton_ir/scans/generate.py [NAME ...]`

Compiles each kernel of `kernels.py` as the suite's are (`triton_ir/generate.py`,
through `triton_ir/fixture_gen.py`): Triton 3.9, `GPUTarget("cuda", 80, 32)`,
`TRITON_DEFAULT_FP_FUSION=0`, a fresh cache, the source compiled under its
repository-relative name. Writes per fixture `triton_ir/scans/<name>/`: `kernel.ttir`,
`kernel.ptx`, `kernel.launch.toml`, `fixture.toml` (spec, expected verdict per
instance, and for a twin whose bug shows only at other sizes those sizes), and
`ref/<inst>/` float32 inputs with `expected/` float64 outputs of a NumPy reference
written here independently of lift: `np.cumsum`, the recurrence as a Python loop,
log-softmax in two passes. These fixtures live one level down so the suite's walkers
(`tests/common`) do not take them; `tests/it/scans.rs` walks them.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fixture_gen as G  # noqa: E402  (before numpy/triton: it sets Triton's environment)
import numpy as np  # noqa: E402

K = G.load_kernels("scans", "lift_scans_kernels")


def _cumsum(ins, sz):
    return {"y": np.cumsum(ins["x"], axis=1)}


def _recurrence(h0):
    def ref(ins, sz):
        a, x = ins["a"], ins["x"]
        h = np.empty_like(x)
        state = np.full(x.shape[0], h0)
        for t in range(x.shape[1]):
            state = a[:, t] * state + x[:, t]
            h[:, t] = state
        return {"h": h}
    return ref


def _log_softmax(ins, sz):
    x = ins["x"]
    m = x.max(axis=1, keepdims=True)
    return {"y": x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True))}


ROWS_ONE_BLOCK = {
    "signature": {"y_ptr": "*fp32", "x_ptr": "*fp32", "N": "i32", "BLOCK": "constexpr"},
    "constexprs": {"BLOCK": 16},
    "grid": ["M"],
    "args": [
        ("y_ptr", {"tensor": "y", "shape": ["M", "N"], "role": "out"}),
        ("x_ptr", {"tensor": "x", "shape": ["M", "N"]}),
        ("N", "N"),
    ],
    "instances": [{"name": "m3n10", "sizes": {"M": 3, "N": 10}},
                  {"name": "m2n16", "sizes": {"M": 2, "N": 16}}],
}

ROWS_BLOCKED = dict(
    ROWS_ONE_BLOCK, constexprs={"BLOCK": 4},
    # three blocks, the last one ragged; and two full blocks
    instances=[{"name": "m3n10", "sizes": {"M": 3, "N": 10}},
               {"name": "m2n8", "sizes": {"M": 2, "N": 8}}])

# a twin whose bug needs a second block: its instances fit in one, where it is right
ONE_BLOCK_ONLY = {
    "instances": [{"name": "m3n4", "sizes": {"M": 3, "N": 4}},
                  {"name": "m2n3", "sizes": {"M": 2, "N": 3}}],
    "bug_sizes": {"M": 2, "N": 9},
}

CUMSUM = {"spec": "y = torch.cumsum(x, dim=-1)", "all_sizes": True, "reference": _cumsum}

RECUR_ARGS = [
    ("h_ptr", {"tensor": "h", "shape": ["M", "T"], "role": "out"}),
    ("a_ptr", {"tensor": "a", "shape": ["M", "T"]}),
    ("x_ptr", {"tensor": "x", "shape": ["M", "T"]}),
    ("T", "T"),
]
RECUR_LOOP = {
    "signature": {"h_ptr": "*fp32", "a_ptr": "*fp32", "x_ptr": "*fp32", "T": "i32"},
    "constexprs": {},
    "grid": ["M"],
    "args": RECUR_ARGS,
    "instances": [{"name": "m3t5", "sizes": {"M": 3, "T": 5}},
                  {"name": "m2t4", "sizes": {"M": 2, "T": 4}}],
    "spec": None,
    "reference": _recurrence(0.0),
}
RECUR_SCAN = dict(
    RECUR_LOOP,
    signature={"h_ptr": "*fp32", "a_ptr": "*fp32", "x_ptr": "*fp32", "T": "i32",
               "BLOCK": "constexpr"},
    constexprs={"BLOCK": 8},
    instances=[{"name": "m3t5", "sizes": {"M": 3, "T": 5}},
               {"name": "m2t8", "sizes": {"M": 2, "T": 8}}])

LOG_SOFTMAX = dict(ROWS_BLOCKED, spec="y = torch.log_softmax(x, dim=-1)", all_sizes=True,
                   reference=_log_softmax)

# `expect`: the verdict at each instance, in order.
FIXTURES = {
    "cumsum_rows": dict(ROWS_ONE_BLOCK, **CUMSUM, kernel="cumsum_rows_kernel",
                        expect=["verified", "verified"]),
    "cumsum_rows_exclusive": dict(
        ROWS_ONE_BLOCK, **dict(CUMSUM, all_sizes=False), kernel="cumsum_rows_exclusive_kernel",
        expect=["refuted", "refuted"],
        bug="the exclusive scan (elements before j) where the inclusive one is meant"),
    "cumsum_rows_reverse": dict(
        ROWS_ONE_BLOCK, **dict(CUMSUM, all_sizes=False), kernel="cumsum_rows_reverse_kernel",
        expect=["refuted", "refuted"], bug="a suffix sum (reverse=True) for the prefix sum"),
    "cumsum_looped": dict(ROWS_BLOCKED, **CUMSUM, kernel="cumsum_looped_kernel",
                          expect=["verified", "verified"]),
    "cumsum_looped_nocarry": dict(
        ROWS_BLOCKED, **dict(CUMSUM, all_sizes=False), **ONE_BLOCK_ONLY,
        kernel="cumsum_looped_nocarry_kernel",
        expect=["verified", "verified"],
        bug="the running total of earlier blocks is never added: wrong once N > BLOCK"),
    "cumsum_looped_pad": dict(ROWS_BLOCKED, **CUMSUM, kernel="cumsum_looped_pad_kernel",
                              expect=["verified", "verified"]),
    "cumsum_looped_overwrite": dict(
        ROWS_BLOCKED, **dict(CUMSUM, all_sizes=False), kernel="cumsum_looped_overwrite_kernel",
        instances=[{"name": "m3n8", "sizes": {"M": 3, "N": 8}},
                   {"name": "m2n6", "sizes": {"M": 2, "N": 6}}],
        bug_sizes={"M": 2, "N": 10}, expect=["verified", "verified"],
        bug="the total is overwritten by the last block's sum: wrong once N > 2 BLOCK"),
    "recurrence_loop": dict(RECUR_LOOP, all_sizes=True, kernel="recurrence_loop_kernel",
                            expect=["verified", "verified"]),
    "recurrence_loop_init": dict(
        RECUR_LOOP, kernel="recurrence_loop_init_kernel", expect=["refuted", "refuted"],
        bug="the state starts at 1, not 0"),
    "recurrence_loop_reset": dict(
        RECUR_LOOP, kernel="recurrence_loop_reset_kernel",
        signature=dict(RECUR_LOOP["signature"], CHUNK="constexpr"), constexprs={"CHUNK": 8},
        all_sizes=False, bug_sizes={"M": 2, "T": 10}, expect=["verified", "verified"],
        bug="the state is reset at every chunk of 8 steps: wrong once T > 8"),
    "recurrence_scan": dict(RECUR_SCAN, all_sizes=True, kernel="recurrence_scan_kernel",
                            expect=["verified", "verified"]),
    "recurrence_scan_swapped": dict(
        RECUR_SCAN, kernel="recurrence_scan_swapped_kernel",
        expect=["refuted", "refuted"],
        bug="the affine maps composed in the wrong order: h[t] = A[t-1]·x[t] + h[t-1]"),
    "log_softmax_online": dict(LOG_SOFTMAX, kernel="log_softmax_online_kernel",
                               expect=["verified", "verified"]),
    "log_softmax_online_norescale": dict(
        LOG_SOFTMAX, **ONE_BLOCK_ONLY, kernel="log_softmax_online_norescale_kernel",
        all_sizes=False, expect=["verified", "verified"],
        bug="the sum is not rescaled when a later block raises the max: wrong once N > BLOCK"),
}


def inputs(fx, sz, rng):
    return G.uniform_inputs(fx, sz, rng)


if __name__ == "__main__":
    for name in sys.argv[1:] or FIXTURES:
        fx = FIXTURES[name]
        G.generate("scans", K, name, fx, inputs)
        if "bug_sizes" in fx:
            # a top-level key, so before the first [[instance]] table
            path = os.path.join(G.ROOT, "triton_ir", "scans", name, "fixture.toml")
            with open(path) as f:
                text = f.read()
            head, sep, rest = text.partition("\n[[instance]]")
            G.write(path, f"{head}bug_sizes = {G.toml_value(fx['bug_sizes'])}"
                          f"  # the bug shows here (more than one block)\n{sep}{rest}")
