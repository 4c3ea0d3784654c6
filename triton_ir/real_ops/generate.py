#!/usr/bin/env python3
"""Rebuild lift's fixtures of real kernels' ops (issue 42: `tt.split`/`tt.join`, the
Philox of `tl.rand` (`tt.mulhiui`), libdevice `llrint`, `tl.atomic_add` (split-K, and a
row sum added per column block), a persistent kernel's grid-strided tiles, the grouped
matmul's tile order).

Usage (from anywhere): `.venv-gen/bin/python triton_ir/real_ops/generate.py [NAME ...]`

Compiles each kernel of `kernels.py` as the suite's are (`triton_ir/generate.py`):
Triton 3.9, `GPUTarget("cuda", 80, 32)`, `TRITON_DEFAULT_FP_FUSION=0`, a fresh cache,
the source compiled under its repository-relative name. Writes per fixture
`triton_ir/real_ops/<name>/`: `kernel.ttir`, `kernel.ptx`, `kernel.launch.toml`,
`fixture.toml` (spec, expected verdict per instance), and `ref/<inst>/` float32 inputs
with `expected/` float64 outputs of a NumPy reference written here independently of
lift: the rotation of pairs, Philox4x32-10 as Triton's `tl.rand` defines it
(`triton/language/random.py`), NumPy's `rint` (half to even). The quantiser's inputs
include exact ties (x / s = k + 1/2, positive and negative), where rint and
floor(x + 1/2) differ; `a @ b` (plus C's initial value for split-K), `2x + 1` and
`y + x.sum(1)`. These
fixtures live one level down so the suite's walkers
(`tests/common`) do not take them; `tests/it/real_ops.rs` walks them.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fixture_gen as G  # noqa: E402  (before numpy/triton: it sets Triton's environment)
import numpy as np  # noqa: E402

K = G.load_kernels("real_ops", "lift_real_ops_kernels")



def _rotary(ins, sz):
    x, c, s = ins["x"], ins["cos"], ins["sin"]
    x0, x1 = x[:, 0::2], x[:, 1::2]
    out = np.empty_like(x)
    out[:, 0::2] = x0 * c - x1 * s
    out[:, 1::2] = x0 * s + x1 * c
    return {"out": out}


M32 = 0xFFFFFFFF


def philox_rand(seed, offsets):
    """`tl.rand(seed, offsets)` of Triton 3.9 (`random.py`): Philox4x32 with 10 rounds
    of counter (offset, 0, 0, 0) and key (seed lo, seed hi), the first word read as an
    int32, folded to non-negative (`x < 0 ? -x - 1 : x`) and scaled by 4.6566127342e-10
    in float32."""
    out = []
    for off in offsets:
        c0, c1, c2, c3 = int(off) & M32, 0, 0, 0
        k0, k1 = seed & M32, (seed >> 32) & M32
        for _ in range(10):
            p0, p1 = 0xD2511F53 * c0, 0xCD9E8D57 * c2
            c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & M32, p1 & M32, \
                ((p0 >> 32) ^ c3 ^ k1) & M32, p0 & M32
            k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
        x = c0 - (1 << 32) if c0 >= 1 << 31 else c0
        x = -x - 1 if x < 0 else x
        out.append(np.float32(x) * np.float32(4.6566127342e-10))
    return np.array(out, dtype=np.float32)


def _philox_kat():
    """Random123's known answers for Philox4x32-10 (counter, key -> first word), so the
    reference above is Philox before it is compared with anything lift computes."""
    def first_word(c, k):
        c0, c1, c2, c3 = c
        k0, k1 = k
        for _ in range(10):
            p0, p1 = 0xD2511F53 * c0, 0xCD9E8D57 * c2
            c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & M32, p1 & M32, \
                ((p0 >> 32) ^ c3 ^ k1) & M32, p0 & M32
            k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
        return c0
    assert first_word((0, 0, 0, 0), (0, 0)) == 0x6627E8D5
    assert first_word((M32,) * 4, (M32, M32)) == 0x408F276D
    assert first_word((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
                      (0xA4093822, 0x299F31D0)) == 0xD16CFE09


_philox_kat()
SEED, P = 1234, 0.25


def _dropout(scale):
    def ref(ins, sz):
        r = philox_rand(SEED, range(sz["N"]))
        return {"out": np.where(r > np.float32(P), ins["x"] * scale, 0.0)}
    return ref


def _quant(ins, sz):
    return {"q": np.rint(np.clip(ins["x"] / ins["s"][:, None], -127, 127))}


ROT = {
    "signature": {"out_ptr": "*fp32", "x_ptr": "*fp32", "cos_ptr": "*fp32", "sin_ptr": "*fp32",
                  "HALF": "constexpr"},
    "constexprs": {"HALF": 4},
    "grid": ["M"],
    "args": [
        ("out_ptr", {"tensor": "out", "shape": ["M", 8], "role": "out"}),
        ("x_ptr", {"tensor": "x", "shape": ["M", 8]}),
        ("cos_ptr", {"tensor": "cos", "shape": ["M", 4]}),
        ("sin_ptr", {"tensor": "sin", "shape": ["M", 4]}),
    ],
    "instances": [{"name": "m3", "sizes": {"M": 3}}, {"name": "m5", "sizes": {"M": 5}}],
    # the pairs as a [M, 4, 2] view and slices of it: read for every size (a slice
    # step `0::2` and integer indexing are read on the instance only)
    "spec": "xr = x.reshape(x.shape[0], 4, 2); c = cos[:, :, None]; s = sin[:, :, None]; "
            "a = xr[:, :, 0:1]; b = xr[:, :, 1:2]; "
            "out = torch.cat([a * c - b * s, a * s + b * c], dim=-1).reshape(x.shape)",
    "all_sizes": True,
    "reference": _rotary,
}

DROP = {
    "signature": {"out_ptr": "*fp32", "x_ptr": "*fp32", "n": "i32", "p": "fp32", "seed": "i32",
                  "BLOCK": "constexpr"},
    "constexprs": {"BLOCK": 4},
    "grid": ["cdiv(N, 4)"],
    "args": [
        ("out_ptr", {"tensor": "out", "shape": ["N"], "role": "out"}),
        ("x_ptr", {"tensor": "x", "shape": ["N"]}),
        ("n", "N"),
        ("p", {"value": P}),
        ("seed", SEED),
    ],
    "instances": [{"name": "n10", "sizes": {"N": 10}}, {"name": "n16", "sizes": {"N": 16}}],
    # `tl.rand` is Triton's random stream (an extension of the spec language beyond
    # PyTorch, docs/semantics.md): the named function `rand(seed, offset)`, read at the
    # instance and for every size (the kernel's Philox proved to be it, per element)
    "spec": "out = torch.where(tl.rand(seed, torch.arange(x.shape[0])) > p, x / (1 - p), 0.0)",
    "all_sizes": True,
    "reference": _dropout(1 / (1 - P)),
}

QUANT = {
    "signature": {"q_ptr": "*i8", "x_ptr": "*fp32", "scale_ptr": "*fp32", "N": "i32",
                  "BLOCK_N": "constexpr"},
    "constexprs": {"BLOCK_N": 4},
    "grid": ["M"],
    "args": [
        ("q_ptr", {"tensor": "q", "shape": ["M", "N"], "role": "out"}),
        ("x_ptr", {"tensor": "x", "shape": ["M", "N"]}),
        ("scale_ptr", {"tensor": "s", "shape": ["M"]}),
        ("N", "N"),
    ],
    "instances": [{"name": "m3n6", "sizes": {"M": 3, "N": 6}},
                  {"name": "m2n9", "sizes": {"M": 2, "N": 9}}],
    "spec": "q = torch.round(torch.clamp(x / s[:, None], -127, 127))",
    "all_sizes": True,
    "reference": _quant,
    "ties": True,
}

def _splitk(ins, sz):
    return {"c": ins["c"] + ins["a"] @ ins["b"]}


def _axpb(ins, sz):
    return {"y": 2.0 * ins["x"] + 1.0}


def _matmul(ins, sz):
    return {"c": ins["a"] @ ins["b"]}


MM_SIG = {"c_ptr": "*fp32", "a_ptr": "*fp32", "b_ptr": "*fp32", "M": "i32", "N": "i32",
          "K": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}

SPLITK = {
    "signature": dict(MM_SIG, SPLIT_K="constexpr"),
    "constexprs": {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16, "SPLIT_K": 2},
    "grid": ["cdiv(M, 16)", "cdiv(N, 16)", 2],
    "args": [
        # C holds what the caller put there (zeros, or a bias): the kernel adds to it
        ("c_ptr", {"tensor": "c", "shape": ["M", "N"], "role": "inout"}),
        ("a_ptr", {"tensor": "a", "shape": ["M", "K"]}),
        ("b_ptr", {"tensor": "b", "shape": ["K", "N"]}),
        ("M", "M"), ("N", "N"), ("K", "K"),
    ],
    # K = 48: program z = 0 adds K blocks 0 and 2, z = 1 block 1 (the twin drops block 2)
    "instances": [{"name": "m16n16k64", "sizes": {"M": 16, "N": 16, "K": 64}},
                  {"name": "m20n17k48", "sizes": {"M": 20, "N": 17, "K": 48}}],
    "spec": "c = c + a @ b",
    "reference": _splitk,
}

PERSIST = {
    "signature": {"y_ptr": "*fp32", "x_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
    "constexprs": {"BLOCK": 4},
    # a persistent launch: three programs, whatever the size
    "grid": [3],
    "args": [
        ("y_ptr", {"tensor": "y", "shape": ["N"], "role": "out"}),
        ("x_ptr", {"tensor": "x", "shape": ["N"]}),
        ("n", "N"),
    ],
    # 5 and 8 tiles: more tiles than programs, the last one ragged
    "instances": [{"name": "n17", "sizes": {"N": 17}}, {"name": "n29", "sizes": {"N": 29}}],
    "spec": "y = 2 * x + 1",
    "all_sizes": True,
    "reference": _axpb,
}

GROUPED = {
    "signature": dict(MM_SIG, GROUP_M="constexpr"),
    "constexprs": {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16, "GROUP_M": 2},
    "grid": ["cdiv(M, 16) * cdiv(N, 16)"],
    "args": [
        ("c_ptr", {"tensor": "c", "shape": ["M", "N"], "role": "out"}),
        ("a_ptr", {"tensor": "a", "shape": ["M", "K"]}),
        ("b_ptr", {"tensor": "b", "shape": ["K", "N"]}),
        ("M", "M"), ("N", "N"), ("K", "K"),
    ],
    # three rows of tiles in groups of two: the last group is one row high
    "instances": [{"name": "m48n32k16", "sizes": {"M": 48, "N": 32, "K": 16}},
                  {"name": "m40n20k20", "sizes": {"M": 40, "N": 20, "K": 20}}],
    "spec": "c = a @ b",
    "reference": _matmul,
}

# `expect`: the verdict at each instance, in order.
FIXTURES = {
    "rotary_interleaved": dict(ROT, kernel="rotary_interleaved_kernel",
                               expect=["verified", "verified"]),
    "rotary_interleaved_swap": dict(
        ROT, all_sizes=False, kernel="rotary_interleaved_swap_kernel", expect=["refuted", "refuted"],
        bug="rotates each pair by -angle (the sine's sign on the wrong term)"),
    "dropout": dict(DROP, kernel="dropout_kernel", expect=["verified", "verified"]),
    "dropout_scale": dict(
        DROP, all_sizes=False, kernel="dropout_scale_kernel", expect=["refuted", "refuted"],
        reference=_dropout(1 / (1 - P)),
        bug="kept values scaled by 1/p, not 1/(1-p)"),
    "dropout_offset": dict(
        DROP, all_sizes=False, kernel="dropout_offset_kernel", expect=["refuted", "refuted"],
        bug="the random stream read at offset + 1: each element keeps by its neighbour's number"),
    # right on one program (N <= 4): the launch's N = 4 agrees, and the all-sizes step
    # must find a size of several programs where it does not; N = 10 does not agree
    "dropout_block": dict(
        DROP, all_sizes=False, kernel="dropout_block_kernel", expect=["elsewhere", "refuted"],
        instances=[{"name": "n4", "sizes": {"N": 4}}, {"name": "n10", "sizes": {"N": 10}}],
        bug="program pid's random offsets start at pid * 2, not pid * BLOCK"),
    "quant_rows": dict(QUANT, kernel="quant_rows_kernel", expect=["verified", "verified"]),
    "quant_rows_floor": dict(
        QUANT, all_sizes=False, kernel="quant_rows_floor_kernel", expect=["refuted", "refuted"],
        bug="floor(x/s + 1/2) for rint: ties round up, not to even"),
    "matmul_splitk": dict(SPLITK, kernel="matmul_splitk_kernel", all_sizes=True,
                          expect=["verified", "verified"]),
    "matmul_splitk_skip": dict(
        SPLITK, kernel="matmul_splitk_skip_kernel", expect=["refuted", "refuted"],
        bug="the K loop stops one block early: the last K slice is never added"),
    "persistent_axpb": dict(PERSIST, kernel="persistent_axpb_kernel",
                            expect=["verified", "verified"]),
    "persistent_axpb_stride": dict(
        PERSIST, all_sizes=False, kernel="persistent_axpb_stride_kernel", expect=["refuted", "refuted"],
        bug="strides by num_programs + 1: some tiles are never done"),
    # right wherever N is a multiple of BLOCK (both instances); every size proof must
    # find a ragged N where the last tile is never done
    "persistent_axpb_floor": dict(
        PERSIST, all_sizes=False, kernel="persistent_axpb_floor_kernel", expect=["elsewhere", "elsewhere"],
        instances=[{"name": "n16", "sizes": {"N": 16}}, {"name": "n24", "sizes": {"N": 24}}],
        bug="n_tiles = n // BLOCK: a ragged last tile is never done (not at N = 16, 24)"),
    # right on the launch's grid of 3 programs for every N (VERIFIED for all N there);
    # tests/it/real_ops.rs relaunches it on 2 programs, where tiles are missed
    "persistent_axpb_three": dict(
        PERSIST, kernel="persistent_axpb_three_kernel", expect=["verified", "verified"],
        bug="strides by the constant 3, not tl.num_programs(0): wrong on any grid but 3"),
    # every size: the program -> tile map proved a bijection onto the tile grid
    "matmul_grouped": dict(GROUPED, all_sizes=True, kernel="matmul_grouped_kernel",
                           expect=["verified", "verified"]),
    "matmul_grouped_nomin": dict(
        GROUPED, kernel="matmul_grouped_nomin_kernel", expect=["refuted", "refuted"],
        bug="the last group's height is GROUP_M, not min(rows left, GROUP_M): tiles missed"),
    # right wherever K is a multiple of BLOCK_K * SPLIT_K = 32 (both instances); the
    # all-sizes step must find a K with a remainder that no program adds
    "matmul_splitk_rem": dict(
        SPLITK, kernel="matmul_splitk_rem_kernel", expect=["elsewhere", "elsewhere"],
        instances=[{"name": "m16n16k64", "sizes": {"M": 16, "N": 16, "K": 64}},
                   {"name": "m20n17k32", "sizes": {"M": 20, "N": 17, "K": 32}}],
        bug="the K loop stops at K - K % 32: a K remainder is never added (not at K = 32, 64)"),
    # right wherever the tile rows are a multiple of GROUP_M = 2 (M = 32, 64: every group
    # full); every size proof must find an odd number of tile rows
    "matmul_grouped_pidn": dict(
        GROUPED, kernel="matmul_grouped_pidn_kernel", expect=["elsewhere", "elsewhere"],
        instances=[{"name": "m32n32k16", "sizes": {"M": 32, "N": 32, "K": 16}},
                   {"name": "m64n20k20", "sizes": {"M": 64, "N": 20, "K": 20}}],
        bug="pid_n divides by GROUP_M, not the group's height: a short last group "
            "(odd tile rows) does one tile twice and misses another"),
}


def _rowsum(ins, sz):
    return {"y": ins["y"] + ins["x"].sum(axis=1)}


ROWSUM = {
    "signature": {"y_ptr": "*fp32", "x_ptr": "*fp32", "N": "i32", "BLOCK": "constexpr"},
    "constexprs": {"BLOCK": 4},
    "grid": ["M"],
    "args": [
        # y holds what the caller put there: each block's sum is added to it
        ("y_ptr", {"tensor": "y", "shape": ["M"], "role": "inout"}),
        ("x_ptr", {"tensor": "x", "shape": ["M", "N"]}),
        ("N", "N"),
    ],
    "instances": [{"name": "m3n10", "sizes": {"M": 3, "N": 10}},
                  {"name": "m2n8", "sizes": {"M": 2, "N": 8}}],
    "spec": "y = y + torch.sum(x, dim=1)",
    "reference": _rowsum,
}

FIXTURES.update({
    # an atomic add inside a loop: proved on the instance; the all-sizes step says at
    # once that it does not read it (tests/it/real_ops.rs)
    "rowsum_atomic": dict(ROWSUM, kernel="rowsum_atomic_kernel", expect=["verified", "verified"]),
    "rowsum_atomic_skip": dict(
        ROWSUM, kernel="rowsum_atomic_skip_kernel", expect=["refuted", "refuted"],
        bug="the loop starts at the second block: the first block is never added"),
})


# Persistent kernels on a size-dependent grid, `min(NUM_SMS, cdiv(n, BLOCK))` with
# NUM_SMS = 132: the all-sizes proof takes the grid's two regimes (132 programs striding,
# one tile per program) in turn (tests/it/persistent_grid.rs).
PERSIST_SMS = dict(PERSIST, grid=["min(132, cdiv(N, 4))"],
                   # 5 tiles on 5 programs; 136 tiles on 132 programs, 4 in a second round
                   instances=[{"name": "n17", "sizes": {"N": 17}},
                              {"name": "n541", "sizes": {"N": 541}}])

FIXTURES.update({
    "persistent_axpb_sms": dict(PERSIST_SMS, kernel="persistent_axpb_kernel",
                                expect=["verified", "verified"]),
    # right wherever the grid divides the tile count (both instances: 5 tiles on 5
    # programs, 264 on 132); every size proof must find more than 132 tiles that 132
    # does not divide
    "persistent_axpb_rounds": dict(
        PERSIST_SMS, all_sizes=False, kernel="persistent_axpb_rounds_kernel",
        expect=["elsewhere", "elsewhere"],
        instances=[{"name": "n17", "sizes": {"N": 17}},
                   {"name": "n1056", "sizes": {"N": 1056}}],
        bug="only n_tiles // num_programs whole rounds: a last partial round of tiles is "
            "never done (not where the grid divides the tiles)"),
})


# ---- Atomics beyond float add, and locks (their kernels end kernels.py): a row sum
# and layer-norm backward's partial sums accumulated under a spin lock (correct:
# VERIFIED on the instance; without the lock: RACE), a global absolute maximum by
# `tl.atomic_max` and its twin without `abs`, integer atomic min and max.
# `zeroed`: int32 tensors the caller zeroes (locks, counts: `values = [0]`); `ints`:
# int32 inputs drawn from a range. tests/it/triton_atomics.rs walks these.

def _rowsum_lock(ins, sz):
    return {"y": ins["y"] + ins["x"].sum(axis=1), "lock": ins["lock"]}


def _colsum_groups(ins, sz):
    x = ins["x"]
    dw = np.stack([x[g::2].sum(axis=0) for g in range(2)])
    return {"dw": dw, "lock": np.array([0, 0, 1, 1])}


def _absmax(ins, sz):
    return {"amax": np.maximum(ins["amax"], np.abs(ins["x"]).max())}


def _min_max(ins, sz):
    t = ins["t"]
    return {"lo": np.minimum(ins["lo"], t.min()), "hi": np.maximum(ins["hi"], t.max())}


LOCK_ROWSUM = {
    "signature": {"y_ptr": "*fp32", "x_ptr": "*fp32", "lock_ptr": "*i32", "N": "i32",
                  "BLOCK": "constexpr"},
    "constexprs": {"BLOCK": 4},
    # program (row, j) adds column block j of the row
    "grid": ["M", "cdiv(N, 4)"],
    "args": [
        ("y_ptr", {"tensor": "y", "shape": ["M"], "role": "inout"}),
        ("x_ptr", {"tensor": "x", "shape": ["M", "N"]}),
        # one lock per row, zeroed by the caller
        ("lock_ptr", {"tensor": "lock", "shape": ["M"], "role": "inout", "values": [0]}),
        ("N", "N"),
    ],
    "instances": [{"name": "m3n10", "sizes": {"M": 3, "N": 10}},
                  {"name": "m2n8", "sizes": {"M": 2, "N": 8}}],
    "spec": "y = y + torch.sum(x, dim=1)",
    "reference": _rowsum_lock,
    "zeroed": ["lock"],
}

LOCK_GROUPS = {
    "signature": {"dw_ptr": "*fp32", "x_ptr": "*fp32", "lock_ptr": "*i32", "N": "i32",
                  "GROUP": "constexpr", "BLOCK_N": "constexpr"},
    "constexprs": {"GROUP": 2, "BLOCK_N": 8},
    "grid": ["M"],
    "args": [
        ("dw_ptr", {"tensor": "dw", "shape": [2, "N"], "role": "out"}),
        ("x_ptr", {"tensor": "x", "shape": ["M", "N"]}),
        # GROUP locks, then GROUP counts, zeroed by the caller
        ("lock_ptr", {"tensor": "lock", "shape": [4], "role": "inout", "values": [0]}),
        ("N", "N"),
    ],
    "instances": [{"name": "m6n5", "sizes": {"M": 6, "N": 5}},
                  {"name": "m4n8", "sizes": {"M": 4, "N": 8}}],
    "spec": "dw = x.reshape(-1, 2, x.shape[1]).sum(0)",
    "reference": _colsum_groups,
    "zeroed": ["lock"],
}

ABSMAX = {
    "signature": {"amax_ptr": "*fp32", "x_ptr": "*fp32", "N": "i32", "BLOCK": "constexpr"},
    "constexprs": {"BLOCK": 4},
    "grid": ["cdiv(N, 4)"],
    "args": [
        # what the caller put there (zero, or a running amax): each block's max folds in
        ("amax_ptr", {"tensor": "amax", "shape": [1], "role": "inout"}),
        ("x_ptr", {"tensor": "x", "shape": ["N"]}),
        ("N", "N"),
    ],
    # whole blocks: a ragged block's masked lanes (other=0.0) add a 0 to the max, and
    # max(0, |x|, ...) = max(|x|, ...) is not decided yet (UNKNOWN at N = 10)
    "instances": [{"name": "n8", "sizes": {"N": 8}}, {"name": "n16", "sizes": {"N": 16}}],
    "spec": "amax = torch.maximum(amax, torch.max(torch.abs(x)))",
    "reference": _absmax,
}

MINMAX = {
    "signature": {"lo_ptr": "*i32", "hi_ptr": "*i32", "t_ptr": "*i32", "N": "i32",
                  "BLOCK": "constexpr"},
    "constexprs": {"BLOCK": 4},
    "grid": ["cdiv(N, 4)"],
    "args": [
        ("lo_ptr", {"tensor": "lo", "shape": [1], "role": "inout"}),
        ("hi_ptr", {"tensor": "hi", "shape": [1], "role": "inout"}),
        ("t_ptr", {"tensor": "t", "shape": ["N"]}),
        ("N", "N"),
    ],
    "instances": [{"name": "n10", "sizes": {"N": 10}}, {"name": "n16", "sizes": {"N": 16}}],
    "spec": None,
    "reference": _min_max,
    "ints": {"t": (-1000, 1000), "lo": (-1000, 1000), "hi": (-1000, 1000)},
}

FIXTURES.update({
    "rowsum_lock": dict(LOCK_ROWSUM, kernel="rowsum_lock_kernel", expect=["verified", "verified"]),
    "rowsum_nolock": dict(
        LOCK_ROWSUM, kernel="rowsum_nolock_kernel", expect=["race", "race"],
        bug="no lock: the programs of a row load, add and store y[row] unordered"),
    "colsum_groups": dict(LOCK_GROUPS, kernel="colsum_groups_kernel",
                          expect=["verified", "verified"]),
    "colsum_groups_nolock": dict(
        LOCK_GROUPS, kernel="colsum_groups_nolock_kernel", expect=["race", "race"],
        bug="no lock: the rows of a group read and write its count and partial row unordered"),
    "absmax": dict(ABSMAX, kernel="absmax_kernel", expect=["verified", "verified"]),
    "absmax_noabs": dict(
        ABSMAX, kernel="absmax_noabs_kernel", expect=["refuted", "refuted"],
        reference=lambda ins, sz: {"amax": np.maximum(ins["amax"], ins["x"].max())},
        bug="the block's max without abs: a large negative element is missed"),
    "min_max_int": dict(MINMAX, kernel="min_max_int_kernel", expect=["verified", "verified"]),
    "rowsum_lock_leak": dict(
        LOCK_ROWSUM, kernel="rowsum_lock_leak_kernel", expect=["deadlock", "deadlock"],
        bug="the lock is never given back: the row's second program spins forever"),
    "rowsum_lock_decay": dict(
        LOCK_ROWSUM, kernel="rowsum_lock_decay_kernel", expect=["unknown", "unknown"],
        bug="y = y / 2 + s under the lock: the total depends on the order of the programs"),
})


def inputs(fx, sz, rng):
    """One instance's inputs: float32 uniform on [-2, 2); for the quantiser,
    power-of-two scales and exact ties k + 1/2 (positive, negative, even and odd k)
    beside random values, so rint and floor(x + 1/2) differ."""
    ins = G.uniform_inputs(fx, sz, rng)
    for t in fx.get("zeroed", []):
        ins[t] = np.zeros_like(ins[t], dtype=np.int32)
    for t, (lo, hi) in fx.get("ints", {}).items():
        ins[t] = rng.integers(lo, hi, size=ins[t].shape).astype(np.int32)
    if fx.get("ties"):
        s = 2.0 ** rng.integers(-2, 3, size=ins["s"].shape)
        ins["s"] = s.astype(np.float32)
        q = rng.uniform(-130, 130, size=ins["x"].shape)
        ties = np.array([2.5, -1.5, 0.5, -2.5, 3.5, -0.5])
        q.flat[:len(ties)] = ties[:q.size]
        ins["x"] = (q * s[:, None]).astype(np.float32)
    return ins


if __name__ == "__main__":
    for name in sys.argv[1:] or FIXTURES:
        G.generate("real_ops", K, name, FIXTURES[name], inputs)
