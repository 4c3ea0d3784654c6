#!/usr/bin/env python3
"""Differential data for lift's spec library: every op and keyword, evaluated by PyTorch.

Usage (PyTorch CPU and NumPy from pip: `pip install torch numpy`):

    python3 tests/torch_diff/generate.py

For every case below, the spec text (lift's spec language is a subset of Python) is
executed by real PyTorch on float64 tensors, and the script writes

    data/<id>/in_<name>.npy     the inputs (float64; class-index targets as float64 too)
    data/<id>/out_<name>.npy    PyTorch's outputs (float64; booleans as 0/1)
    index.json                  [{id, spec, inputs, outputs, sizes}] and, for specs that
                                lift must refuse, {id, spec, error}: either PyTorch
                                accepts them but their meaning is outside what lift can
                                express (a narrowing dtype conversion, an unsupported
                                argument), and lift's error must contain `error`; or
                                PyTorch refuses them too (`torch_error`, its message)

`tests/torch_diff.rs` instantiates lift's terms for each spec and evaluates them at the
same inputs (no Python at test time): NaN must be NaN, ±inf the same infinity, finite
values close. It also fails when an op or keyword of the library appears in no spec
here, so an op added to the library needs a case here.

Inputs cover each op's regions: 0, ±0, ±1, both sides of every threshold (softplus's
20 and a threshold of 1, leaky_relu/elu at 0, hardtanh's bounds), magnitudes up to 1000
(beyond where exp overflows f32 at 88.7 and f64 at 709.8), ±inf and NaN where PyTorch
defines the result, ties in max/min, rows of -inf, constant and all-zero rows
(normalize's and layer_norm's eps), tiny-variance rows.

Where lift's reading of an op over the reals cannot give PyTorch's IEEE value, the
inputs leave that corner out, and the comment at the case says which and why:
`remainder`/`fmod`/trunc division by ±inf and floor division by or of ±inf (lift
computes `a - b*floor(a/b)`, which is NaN or ±inf there; PyTorch's fmod-based code gives
`a` or NaN); logsumexp of a row whose max is ±inf (PyTorch shifts by 0 there; lift's
term would need a comparison with ±inf, which decide cannot read yet); a real (non-integer)
exponent of -inf (lift's `exp(k·log x)` is NaN there, PyTorch's `pow` gives `pow(inf, k)`;
the same missing comparison). Nothing else is left out.

Determinism: random values come from numpy.random.default_rng(<fixed seed>); two runs
give identical files.
"""
import ast
import json
import math
import os
import shutil
import warnings

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")

nan, inf = float("nan"), float("inf")
RNG = np.random.default_rng(20240518)

# One vector for the unary elementwise ops: every region at once.
SPECIAL = [nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1e-3, -1e-3,
           0.7, 3.7, -2.6, 5.0, 6.0, 6.5, 19.9, 20.0, 20.1, 30.0, -30.0, 88.0, 89.0,
           100.0, -100.0, 710.0, 1000.0, -1000.0]
SPECIAL += list(RNG.uniform(-5, 5, 9))
X = np.array(SPECIAL)
# Positive only (where a case's parameters need it).
XPOS = np.array([1e-3, 0.5, 1.0, 2.0, 3.7, 20.0, 100.0, 1000.0])
# Every special value but -inf (real exponents of a negative infinity: see the case).
XREAL = np.array([v for v in SPECIAL if v != -inf])

# Binary ops: every pair of these.
PAIR = [nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 3.0, 7.0, -7.0, 100.0]
BX = np.array([a for a in PAIR for _ in PAIR])
BY = np.array([b for _ in PAIR for b in PAIR])
# Division-like ops whose IEEE value at a ±inf divisor lift cannot give (see above).
FIN = [v for v in PAIR if v == v and abs(v) != inf]
DX = np.array([a for a in PAIR for _ in FIN])
DY = np.array([b for _ in PAIR for b in FIN])
FX = np.array([a for a in FIN for _ in FIN])
FY = np.array([b for _ in FIN for b in FIN])

# Reductions: rows that each stress one region, 5 columns.
ROWS = np.array([
    list(RNG.uniform(-3, 3, 5)),
    [1.0, 2.0, 3.0, 4.0, 5.0],
    [2.0, 2.0, 2.0, 2.0, 2.0],           # ties; zero variance
    [-inf, -inf, -inf, -inf, -inf],      # logsumexp -> -inf, softmax -> NaN
    [inf, 0.0, 1.0, -1.0, 2.0],
    [nan, 0.0, 1.0, 2.0, 3.0],
    [0.0, 0.0, 0.0, 0.0, 0.0],           # normalize's eps: 0 / max(0, eps) = 0
    [1.0, 1.0 + 1e-4, 1.0 - 1e-4, 1.0, 1.0],  # variance below layer_norm's eps
    [1e-13, 0.0, -2e-13, 0.0, 0.0],      # norm below normalize's eps
    [100.0, -100.0, 50.0, 0.0, 1.0],
    [1000.0, 999.0, -1000.0, 0.0, 1.0],  # exp overflows without the max shift
    [-3.0, 5.0, 5.0, -3.0, 0.5],         # ties at the max and the min
])
FROWS = ROWS[[0, 1, 2, 6, 7, 8, 9, 11]]  # finite rows
W5 = RNG.uniform(-2, 2, 5)
B5 = RNG.uniform(-2, 2, 5)


def rnd(*shape, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, shape)


# (spec, inputs, extra): inputs maps names to arrays; extra may hold `sizes` (Python
# ints the spec names), `long` (inputs PyTorch needs as int64: class indices) and
# `error` (lift must refuse the spec with a message containing this text).
CASES = []


def case(spec, error=None, sizes=None, long=(), **inputs):
    CASES.append({"spec": spec, "inputs": inputs, "sizes": sizes or {}, "long": list(long),
                  "error": error})


# ---- unary elementwise ------------------------------------------------------------
for f in ["abs", "absolute", "neg", "negative", "exp", "exp2", "expm1", "log", "log2",
          "log1p", "sqrt", "rsqrt", "reciprocal", "square", "sin", "cos", "tanh", "erf",
          "floor", "ceil", "sign", "sigmoid", "relu"]:
    case(f"y = torch.{f}(x)", x=X)
case("y = x.abs() + x.exp().neg()", x=X)
case("y = torch.special.expit(x)", x=X)
case("y = torch.special.erf(x)", x=X)
case("y = -x", x=X)

# ---- activations, every keyword, both sides of every threshold ---------------------
case("y = F.relu(x, inplace=False)", x=X)
case("y = F.relu6(x)", x=X)
case("y = F.relu6(x, inplace=False)", x=X)
case("y = F.leaky_relu(x)", x=X)
case("y = F.leaky_relu(x, 0.2)", x=X)
case("y = F.leaky_relu(x, negative_slope=-1.5, inplace=False)", x=X)
case("y = F.gelu(x)", x=X)
case("y = F.gelu(x, approximate='none')", x=X)
case("y = F.gelu(x, approximate='tanh')", x=X)
case("y = F.silu(x)", x=X)
case("y = torch.nn.functional.softplus(x)", x=X)
case("y = F.softplus(x, beta=2)", x=X)
case("y = F.softplus(x, beta=0.5, threshold=1)", x=X)
case("y = F.softplus(x, 1, 5)", x=X)
case("y = F.softplus(x, threshold=30.0)", x=X)
case("y = F.elu(x)", x=X)
case("y = F.elu(x, alpha=0.5, inplace=False)", x=X)
case("y = F.elu(x, 2.0)", x=X)
case("y = F.hardtanh(x)", x=X)
case("y = F.hardtanh(x, min_val=-0.5, max_val=0.25, inplace=False)", x=X)
case("y = F.hardtanh(x, -2, 2)", x=X)
case("y = F.hardtanh(x, 1.0, 1.0)", x=X)
case("y = torch.clamp(x, min=-1, max=2)", x=X)
case("y = torch.clamp(x, -1)", x=X)
case("y = torch.clamp(x, max=0.5)", x=X)
case("y = torch.clamp(x, min=2, max=1)", x=X)  # min > max: max everywhere (NaN stays)
case("y = torch.clip(x, 0, 6)", x=X)
case("y = torch.clamp(x, min=lo, max=hi)", x=rnd(3, 4), lo=rnd(4), hi=rnd(3, 1, lo=0, hi=3))
case("y = F.glu(x)", x=rnd(3, 4))
case("y = F.glu(x, dim=0)", x=rnd(4, 3))

# ---- pow ----------------------------------------------------------------------------
for e in ["0", "1", "2", "3", "-1", "-2", "0.5", "-0.5", "2.0"]:
    case(f"y = torch.pow(x, {e})", x=X)
case("y = torch.pow(x, exponent=3)", x=X)
case("y = x ** 2 + 2 ** x", x=X)
case("y = torch.pow(2, x)", x=X)

# ---- binary elementwise, broadcasting ------------------------------------------------
for f in ["maximum", "minimum", "add", "sub", "subtract", "mul", "multiply", "div",
          "divide", "true_divide", "gt", "lt", "ge", "le", "eq", "ne", "greater", "less",
          "greater_equal", "less_equal", "not_equal"]:
    case(f"z = torch.{f}(x, y)", x=BX, y=BY)
case("z = torch.mul(x, other=y); w = torch.maximum(input=x, other=y)", x=BX, y=BY)
case("z = torch.gt(x, other=y); w = torch.div(x, other=y)", x=BX, y=BY)
case("z = torch.add(x, y, alpha=2)", x=BX, y=BY)
case("z = torch.sub(x, other=y, alpha=-0.5)", x=BX, y=BY)
case("z = x + y; w = x - y; v = x * y; u = x / y", x=BX, y=BY)
case("z = (x > y) & (y >= 0); w = (x < 0) | (y == 1); v = ~(x != y)", x=BX, y=BY)
case("z = torch.div(x, y, rounding_mode=None)", x=BX, y=BY)
# floor and trunc division, remainder, fmod: finite divisors only; floor division also
# finite dividends (see the docstring).
case("z = torch.div(x, y, rounding_mode='floor')", x=FX, y=FY)
case("z = torch.div(x, y, rounding_mode='trunc')", x=DX, y=DY)
case("z = torch.floor_divide(x, y); w = x // y", x=FX, y=FY)
case("z = torch.floor_divide(x, other=y)", x=FX, y=FY)
case("z = torch.remainder(x, y); w = x % y", x=DX, y=DY)
case("z = torch.fmod(x, y)", x=DX, y=DY)
case("z = x + y", x=rnd(2, 3), y=rnd(3))
case("z = x * y - 1", x=rnd(2, 1, 3), y=rnd(4, 1))
case("z = torch.where(x > 0, x, y); w = torch.where(y < x, input=y, other=x)", x=BX, y=BY)
case("z = torch.where(c > 0.5, x, 0.0)", c=rnd(3, 1, lo=0, hi=1), x=rnd(3, 4))
case("z = torch.where(x > 20, x, torch.log(1 + torch.exp(x)))", x=X)
case("z = torch.max(x, y); w = torch.min(x, y)", x=BX, y=BY)

# ---- reductions -----------------------------------------------------------------------
for f in ["sum", "mean", "prod", "amax", "amin", "logsumexp"]:
    # logsumexp: not the rows whose max is ±inf (see the docstring).
    rows = ROWS[[0, 1, 2, 5, 6, 7, 8, 9, 10, 11]] if f == "logsumexp" else ROWS
    case(f"y = torch.{f}(x, dim=1)", x=rows)
    case(f"y = torch.{f}(x, dim=-1, keepdim=True)", x=rows)
    case(f"y = x.{f}(0)", x=FROWS)
case("y = torch.sum(x); m = torch.mean(x); p = x.prod()", x=FROWS[:3])
case("y = torch.sum(x, dim=(0, 1), keepdim=True, dtype=torch.float64)", x=FROWS)
case("y = torch.mean(x, axis=1, keepdims=True)", x=FROWS)
case("y = torch.amax(x, dim=(0, 2))", x=rnd(3, 4, 2))
case("y = torch.max(x); z = torch.min(x)", x=ROWS[[0, 5]])
case("y = torch.max(x, dim=1).values; z = torch.min(x, 1, keepdim=True)[0]", x=ROWS)
case("y = torch.max(x, 0)[0]", x=FROWS)
for f in ["var", "std"]:
    case(f"y = torch.{f}(x, dim=1)", x=ROWS)
    case(f"y = torch.{f}(x, dim=1, unbiased=False)", x=ROWS)
    case(f"y = torch.{f}(x, 1, True, True)", x=FROWS)
    case(f"y = torch.{f}(x, dim=-1, correction=0, keepdim=True)", x=FROWS)
    case(f"y = torch.{f}(x, dim=1, correction=2)", x=FROWS)
    case(f"y = torch.{f}(x, dim=1, correction=5)", x=FROWS)  # N - correction = 0
    case(f"y = torch.{f}(x, dim=1, correction=7)", x=FROWS)  # clamped to 0
    case(f"y = torch.{f}(x)", x=FROWS)
    case(f"y = x.{f}(0, keepdim=True)", x=rnd(1, 3))  # one element, correction 1: 0/0
for f in ["softmax", "log_softmax"]:
    case(f"y = torch.{f}(x, dim=-1)", x=ROWS)
    case(f"y = F.{f}(x, dim=0, dtype=torch.float64)", x=FROWS)
    case(f"y = x.{f}(1)", x=FROWS)

# ---- normalizations ---------------------------------------------------------------------
case("y = F.layer_norm(x, (N,))", x=ROWS, sizes={"N": 5})
case("y = F.layer_norm(x, (N,), w, b)", x=ROWS, w=W5, b=B5, sizes={"N": 5})
case("y = F.layer_norm(x, normalized_shape=[5], weight=w, bias=None, eps=0.1)", x=FROWS, w=W5)
case("y = F.layer_norm(x, (2, 5), eps=1e-3)", x=rnd(3, 2, 5))
case("y = F.rms_norm(x, (N,))", x=ROWS, sizes={"N": 5})
case("y = F.rms_norm(x, [5], w, eps=1e-6)", x=FROWS, w=W5)
case("y = F.rms_norm(x, normalized_shape=(5,), weight=None, eps=0.5)", x=FROWS)
case("y = F.normalize(x)", x=ROWS)
case("y = F.normalize(x, dim=0)", x=FROWS.T.copy())
case("y = F.normalize(x, p=2, dim=-1, eps=1e-3)", x=FROWS)
case("y = F.normalize(x, 1, 1, 1e-12)", x=ROWS)
case("y = F.normalize(x, p=2.0, dim=1)", x=FROWS)

# ---- losses -----------------------------------------------------------------------------
T = np.array([0, 4, 2, 1, 3, 4, 0, 2.0])
TI = T.copy()
TI[[2, 5]] = -100  # PyTorch's default ignore_index
TJ = T.copy()
TJ[3] = 7
CE_X = np.concatenate([FROWS[:6], rnd(2, 5)])
case("l = F.cross_entropy(input=x, target=t)", x=CE_X, t=T, long=["t"])
case("l = F.cross_entropy(x, t)", x=CE_X, t=TI, long=["t"])
case("l = F.cross_entropy(x, t, reduction='none')", x=CE_X, t=TI, long=["t"])
case("l = F.cross_entropy(x, t, reduction='sum')", x=CE_X, t=TI, long=["t"])
case("l = F.cross_entropy(x, t, ignore_index=7, reduction='none')", x=CE_X, t=TJ, long=["t"])
case("l = F.cross_entropy(x, t, label_smoothing=0.1)", x=CE_X, t=TI, long=["t"])
case("l = F.cross_entropy(x, t, label_smoothing=0.25, reduction='none')", x=CE_X, t=TI,
     long=["t"])
case("l = F.cross_entropy(x, t, None, None, -100, None, 'sum', 0.0)", x=CE_X, t=T, long=["t"])
case("l = F.cross_entropy(x, t)", x=CE_X[:2], t=np.array([-100, -100.0]), long=["t"])  # 0/0

# ---- linear algebra ---------------------------------------------------------------------
case("c = torch.matmul(a, b); d = a @ b", a=rnd(3, 4), b=rnd(4, 2))
case("c = torch.matmul(v, b); d = a @ v2; e = v2 @ v2", v=rnd(4), a=rnd(3, 4), b=rnd(4, 2),
     v2=rnd(4))
case("c = torch.matmul(a, b)", a=rnd(2, 1, 3, 4), b=rnd(3, 4, 2))
case("c = torch.mm(a, b); d = torch.matmul(a, other=b)", a=rnd(3, 4), b=rnd(4, 2))
case("c = torch.bmm(a, b)", a=rnd(2, 3, 4), b=rnd(2, 4, 2))
case("y = F.linear(x, w)", x=rnd(3, 4), w=rnd(2, 4))
case("y = F.linear(x, w, b)", x=rnd(3, 4), w=rnd(2, 4), b=rnd(2))
case("y = F.linear(x, weight=w, bias=b); z = F.linear(x, v)", x=rnd(3, 4), w=rnd(1, 4), b=rnd(1),
     v=rnd(4))

# ---- layout -----------------------------------------------------------------------------
L = rnd(2, 3, 4)
case("y = torch.transpose(x, 0, 2); z = x.transpose(dim0=1, dim1=-1)", x=L)
case("y = torch.t(m); z = m.t(); w = m.T; v = x.mT", m=rnd(3, 4), x=L)
case("y = x.permute(2, 0, 1); z = torch.permute(x, (1, 2, 0)); w = x.permute(dims=[0, 2, 1])",
     x=L)
case("y = x.reshape(4, 6); z = torch.reshape(x, (-1, 2)); w = x.view(2, 12); v = x.view(-1)",
     x=L)
case("y = torch.flatten(x); z = x.flatten(1); w = x.flatten(start_dim=0, end_dim=1)", x=L)
case("y = x.unsqueeze(0); z = torch.unsqueeze(x, dim=-1)", x=L)
case("y = x.squeeze(); z = torch.squeeze(x, 0); w = x.squeeze(dim=2)", x=rnd(1, 3, 1))
case("y = m.expand(2, 3, 4); z = m.expand(2, -1, -1); w = v.expand(size=(3, 4))",
     m=rnd(3, 4), v=rnd(1, 4))
case("a, b = torch.chunk(x, 2); c, d = x.chunk(chunks=2, dim=-1)", x=rnd(4, 6))
case("a, b, c = torch.chunk(x, 3, 1)", x=rnd(2, 7))
case("a, b = torch.split(x, 2); c, d = x.split([1, 5], dim=1); e, f = torch.split(x, split_size_or_sections=3, dim=1); g, h = x.split(split_size=2)",
     x=rnd(4, 6))
case("y = torch.cat([a, b]); z = torch.cat((a, b), dim=1); w = torch.concat([a, a], 0); "
     "v = torch.concatenate([b, b], dim=-1)", a=rnd(2, 3), b=rnd(2, 3))
case("y = torch.cat(tensors=[a, b], dim=1)", a=rnd(2, 3), b=rnd(2, 1))
case("y = torch.stack([a, b]); z = torch.stack((a, b), dim=2); w = torch.stack(tensors=[a, a], dim=-1)",
     a=rnd(2, 3), b=rnd(2, 3))
case("y = x.contiguous(); z = x.clone(); w = x.detach(); v = x.double(); "
     "u = x.to(torch.float64); s = x.to(dtype=torch.double); r = x.to('cpu')", x=rnd(2, 3))
case("y = x * x.size(1) + x.size()[0] + x.dim() + x.shape[1] + x.ndim", x=rnd(2, 3))
case("y = x[:, 1:3] + x[0, None, ::2].sum() + x[..., -1:]", x=rnd(3, 4))

# ---- creation ---------------------------------------------------------------------------
case("y = torch.zeros(2, 3) + x; z = torch.ones((2, 3)) * x; w = torch.full((2, 3), 0.5) - x; "
     "v = torch.zeros(2, 3, dtype=torch.float64, device='cpu') + torch.ones(3)", x=rnd(2, 3))
case("y = torch.full(size=(2, 1), fill_value=-3) + x", x=rnd(2, 3))
case("y = torch.zeros_like(x) + 1; z = torch.ones_like(x); w = torch.full_like(x, 2.5); "
     "v = torch.full_like(x, fill_value=-1, dtype=torch.float64) + torch.ones_like(x, dtype=torch.float64)",
     x=rnd(2, 3))

# ---- more activations ------------------------------------------------------------------
for f in ["selu", "hardsigmoid", "hardswish", "mish", "softsign", "logsigmoid"]:
    case(f"y = F.{f}(x)", x=X)
case("y = F.selu(x, inplace=False) + torch.selu(x); z = F.hardsigmoid(x, inplace=False); "
     "w = F.hardswish(x, inplace=False); v = F.mish(x, inplace=False)", x=X)

# ---- scans, flips, diagonals, triangles ---------------------------------------------------
M4 = rnd(4, 4)
M4[0, 3], M4[3, 0], M4[1, 2] = inf, nan, -inf  # tril/triu write 0 there, not 0 * x
case("y = torch.cumsum(x, dim=1); z = x.cumsum(0); w = torch.cumprod(x, -1); v = x.cumprod(dim=0)",
     x=ROWS)
case("y = torch.cumsum(x, dim=-2, dtype=torch.float64); z = torch.cumprod(x, 2, dtype=torch.float64)",
     x=rnd(2, 3, 4))
case("y = torch.flip(x, [0, 2]); z = x.flip(1); w = torch.flip(x, dims=(-1,)); v = x.flip(0, 1)", x=L)
case("y = torch.diag(v); z = torch.diag(v, 1); w = torch.diag(v, diagonal=-2); a = torch.diag(m); "
     "b = torch.diag(m, 1); c = m.diag(-1); d = torch.diag(m, diagonal=-2)", v=rnd(3), m=rnd(3, 4))
case("y = torch.tril(m); z = torch.triu(m, 1); w = m.tril(diagonal=-1); v = torch.triu(m, diagonal=2); "
     "u = torch.tril(x, 1)", m=M4, x=rnd(2, 3, 4))

# ---- argmax/argmin: ties take the first index. Not rows holding NaN: lift's term reads
# the row's max (NaN) and no element equals it, where PyTorch returns the first NaN's index
# (spec inputs are reals, and `x != x` is false for a real x).
AROWS = ROWS[[0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11]]
case("y = torch.argmax(x, dim=1); z = x.argmin(1); w = torch.argmax(x, dim=0, keepdim=True); "
     "v = torch.argmin(x, dim=-1, keepdim=True); u = torch.argmax(x); s = x.argmin(); "
     "r = torch.argmax(x, keepdim=True)", x=AROWS)
case("y = torch.argmax(x, 1) * 1.0; z = x.argmin(dim=2)", x=rnd(2, 3, 4))

# ---- norms ----------------------------------------------------------------------------------
case("y = torch.norm(x); z = torch.norm(x, dim=1); w = torch.norm(x, p=1, dim=1, keepdim=True); "
     "v = torch.norm(x, torch.inf, 1); u = torch.norm(x, p=-math.inf, dim=0); "
     "s = torch.norm(x, p=0, dim=1); r = x.norm(dim=(0, 1)); q = torch.norm(x, p='fro', dim=1, "
     "dtype=torch.float64)", x=ROWS)
case("y = torch.linalg.vector_norm(x); z = torch.linalg.vector_norm(x, ord=1, dim=1); "
     "w = torch.linalg.vector_norm(x, ord=math.inf, dim=-1, keepdim=True); "
     "v = torch.linalg.vector_norm(x, 2, (0, 1), dtype=torch.float64); "
     "u = torch.linalg.vector_norm(x, ord=0, dim=0)", x=ROWS)
case("y = torch.norm(x, dim=(0, 2)); z = torch.linalg.vector_norm(x, ord=-math.inf, dim=(1, 2))",
     x=rnd(2, 3, 4))
case("y = F.normalize(x, p=math.inf); z = F.normalize(x, p=1.0, dim=0)", x=ROWS)
case("y = torch.norm(x, p=3)", error="`p`", x=FROWS)
case("y = torch.norm(x, p='nuc')", error="`p`", x=FROWS)
case("y = torch.linalg.vector_norm(x, ord=0.5)", error="`ord`", x=FROWS)
case("y = torch.norm(x, p='fro', dim=(0, 1, 2))", error="", x=rnd(2, 3, 4))  # PyTorch refuses

# ---- pooling --------------------------------------------------------------------------------
P1 = rnd(2, 3, 7)
P1[0, 0, 3], P1[1, 2, 0], P1[0, 1, 6] = nan, inf, -inf
P2 = rnd(2, 2, 5, 6)
P2[0, 0, 1, 1], P2[1, 1, 4, 5], P2[1, 0, 0, 2] = nan, inf, -inf
case("y = F.max_pool1d(x, 2); z = F.max_pool1d(x, kernel_size=3, stride=2, padding=1); "
     "w = F.max_pool1d(x, 2, stride=1, dilation=2, ceil_mode=True); "
     "v = F.max_pool1d(x, 3, 2, 1, 1, True, return_indices=False); u = F.max_pool1d(x[0], 2)", x=P1)
case("y = F.max_pool1d(x, 2, ceil_mode=True); z = F.avg_pool1d(x, 2, ceil_mode=True); "
     "w = F.avg_pool1d(x, 2, ceil_mode=True, count_include_pad=False); "
     "v = F.avg_pool1d(x, 3, 2, padding=1, ceil_mode=True); "
     "u = F.avg_pool1d(x, 3, 2, padding=1, ceil_mode=True, count_include_pad=False)", x=P1)
case("y = F.avg_pool1d(x, 3); z = F.avg_pool1d(x, kernel_size=3, stride=1, padding=1); "
     "w = F.avg_pool1d(x, 3, 2, 1, count_include_pad=False); v = F.avg_pool1d(x[1], (2,), stride=None)",
     x=P1)
case("y = F.max_pool2d(x, 2); z = F.max_pool2d(x, (2, 3), stride=(1, 2), padding=(1, 1)); "
     "w = F.max_pool2d(x, 3, stride=2, padding=1, dilation=(1, 2), ceil_mode=True); "
     "v = F.max_pool2d(u, 2)", x=P2, u=rnd(2, 5, 6))
case("y = F.avg_pool2d(x, 2); z = F.avg_pool2d(x, (3, 2), stride=(2, 1), padding=(1, 0), ceil_mode=True); "
     "w = F.avg_pool2d(x, 3, 2, 1, count_include_pad=False); v = F.avg_pool2d(x, 2, divisor_override=3); "
     "s = F.avg_pool2d(u, kernel_size=2, stride=None)", x=P2, u=rnd(2, 5, 6))
case("y = F.max_pool1d(x, 2, return_indices=True)[0]", error="return_indices", x=P1)
case("y = F.max_pool2d(x, 2, 2, 0, 1, False, True)[1]", error="return_indices", x=P2)

# ---- convolution ----------------------------------------------------------------------------
case("y = F.conv1d(x, w); z = F.conv1d(x, w, b, stride=2, padding=1); "
     "v = F.conv1d(x, w, bias=b, dilation=2, padding='same'); u = F.conv1d(x, w, padding='valid')",
     x=rnd(2, 3, 8), w=rnd(4, 3, 3), b=rnd(4))
case("y = F.conv1d(x, w, groups=2); z = F.conv1d(x[0], w, None, 1, 2, 1, 2); "
     "v = F.conv1d(x, weight=w, stride=(2,), groups=2)", x=rnd(2, 4, 6), w=rnd(6, 2, 3))
case("y = F.conv2d(x, w); z = F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(1, 2)); "
     "v = F.conv2d(x, weight=w, bias=b, padding='same'); u = F.conv2d(x[1], w, groups=1)",
     x=rnd(2, 3, 5, 6), w=rnd(4, 3, 3, 2), b=rnd(4))
case("y = F.conv2d(x, w, groups=3, stride=2)", x=rnd(1, 6, 5, 5), w=rnd(3, 2, 3, 3))

# ---- regression and embedding losses -------------------------------------------------------
KT = rnd(3, 4, lo=0, hi=1)
KT[0, 1], KT[2, 3] = 0.0, 0.0  # xlogy(0, 0) = 0
HT = np.array([1, -1, 1, -1, 0, 2, 1, -1.0])
case("a = F.mse_loss(x, y, reduction='none'); b = F.l1_loss(x, y, reduction='none'); "
     "c = F.smooth_l1_loss(x, y, reduction='none'); d = F.huber_loss(x, y, reduction='none'); "
     "e = F.smooth_l1_loss(x, y, reduction='none', beta=0.5); "
     "f = F.huber_loss(x, y, reduction='none', delta=2.5); "
     "g = F.smooth_l1_loss(x, y, reduction='none', beta=0)", x=BX, y=BY)
case("a = F.mse_loss(x, y); b = F.l1_loss(input=x, target=y, reduction='sum'); "
     "c = F.smooth_l1_loss(x, y, beta=2.0); d = F.huber_loss(x, y, 'sum', 0.5); "
     "e = F.mse_loss(x, y, size_average=False); f = F.l1_loss(x, y, reduce=False); "
     "g = F.smooth_l1_loss(x, y, size_average=True, reduce=True); "
     "h = F.smooth_l1_loss(x, target=y, size_average=False, reduce=False)", x=rnd(3, 4), y=rnd(3, 4))
case("a = F.mse_loss(x, y, weight=w); b = F.l1_loss(x, y, reduction='sum', weight=w); "
     "c = F.huber_loss(x, target=y, weight=w); d = F.mse_loss(x, y, reduction='none', weight=w); "
     "e = F.huber_loss(x, y, reduction='none', delta=0.3, weight=w); f = F.l1_loss(x, y, weight=w)",
     x=rnd(3, 4), y=rnd(3, 4), w=rnd(3, 4, lo=0, hi=1))
case("a = F.mse_loss(x, y); b = F.l1_loss(x, y, reduction='none')", x=rnd(3, 4), y=rnd(4))
case("a = F.kl_div(x, t, reduction='none'); b = F.kl_div(x, t, reduction='batchmean'); "
     "c = F.kl_div(x, t); d = F.kl_div(x, t, reduction='sum'); "
     "e = F.kl_div(x, u, reduction='batchmean', log_target=True); "
     "f = F.kl_div(input=x, target=t, size_average=False); g = F.kl_div(x, t, reduce=False)",
     x=rnd(3, 4), t=KT, u=rnd(3, 4))
case("a = F.cosine_similarity(x, y); b = F.cosine_similarity(x, y, dim=0); "
     "c = F.cosine_similarity(x1=x, x2=z, dim=-1, eps=0.5); d = F.cosine_similarity(x, zero)",
     x=rnd(3, 4), y=rnd(3, 4), z=rnd(4), zero=np.zeros((3, 4)))
case("a = F.hinge_embedding_loss(x, t); b = F.hinge_embedding_loss(x, t, margin=0.5, reduction='none'); "
     "c = F.hinge_embedding_loss(x, target=t, reduction='sum'); "
     "d = F.hinge_embedding_loss(x, t, size_average=False); e = F.hinge_embedding_loss(x, t, reduce=False)",
     x=rnd(8, lo=-3, hi=3), t=HT)
case("a = F.triplet_margin_loss(x, y, z); "
     "b = F.triplet_margin_loss(x, positive=y, negative=z, margin=0.5, p=1, eps=0.0, swap=True, "
     "reduction='none'); c = F.triplet_margin_loss(x, y, z, p=math.inf, reduction='sum'); "
     "d = F.triplet_margin_loss(x[0], y[0], z[0], swap=True); "
     "e = F.triplet_margin_loss(x, y, z, size_average=False); f = F.triplet_margin_loss(x, y, z, reduce=False)",
     x=rnd(4, 5), y=rnd(4, 5), z=rnd(4, 5))
case("l = F.triplet_margin_loss(x, y, z, p=3)", error="`p`", x=rnd(4, 5), y=rnd(4, 5), z=rnd(4, 5))
case("l = F.mse_loss(x, y, reduction='batchmean')", error="", x=rnd(3), y=rnd(3))
case("l = F.mse_loss(x, y, weight=w)", error="", x=rnd(3), y=rnd(3), w=rnd(4))

# ---- Python's math: constants and functions of one number ----------------------------------
case("y = x * math.pi + math.sqrt(2) - math.log(3.0) + math.e * math.exp(0.5) + torch.pi + "
     "math.tau + math.fabs(-2) + math.floor(2.5) + torch.e; z = torch.clamp(x, max=math.inf); "
     "w = x + math.nan; v = x * math.inf + torch.inf", x=rnd(5))
case("y = math.sqrt(x)", error="", x=rnd(3))  # PyTorch refuses: not one number
case("y = math.gamma(2.0) * x", error="math.gamma", x=rnd(3))

# ---- conversions lift must refuse: they round, and specs are exact -----------------------
# (The Rust test instantiates at float64; `.float()` then narrows.)
case("y = x.float()", error="float32", x=X)
case("y = x.half()", error="float16", x=X)
case("y = x.bfloat16()", error="bfloat16", x=X)
case("y = x.to(torch.float16)", error="float16", x=X)
case("y = torch.sum(x, dtype=torch.float32)", error="float32", x=X)

# ---- bool tensors: `+` is or, `*` is and; a float conversion makes them numbers ---------
case("z = (x > 0) + (y > 0); w = (x > 0) * (y < 1); v = (x > 0) + 1; u = (x > 0) * 2.5; "
     "s = torch.sum(x > 0); r = (x > 0).double().mean(); q = (x > 0).to(torch.float64) * 3",
     x=BX, y=BY)

# ---- specs PyTorch itself refuses: lift must refuse them too ------------------------------
REFUSED = [
    ("y = F.hardtanh(x, 1.0, -1.0)", dict(x=X)),
    ("y = torch.mean(x > 0)", dict(x=X)),
    ("y = (x > 0) - (x < 1)", dict(x=X)),
    ("y = -(x > 0)", dict(x=X)),
]
for spec, inputs in REFUSED:
    case(spec, error="", **inputs)

# ---- arguments lift cannot honour ---------------------------------------------------------
case("l = F.cross_entropy(x, t, weight=w)", error="weight", x=CE_X, t=T, w=W5, long=["t"])
case("l = F.cross_entropy(x, t, size_average=False)", error="size_average", x=CE_X, t=T,
     long=["t"])
case("l = F.cross_entropy(x, t, reduce=False)", error="reduce", x=CE_X, t=T, long=["t"])
case("y = F.normalize(x, p=3)", error="`p`", x=FROWS)
# A real exponent is exp(k·log x): NaN below 0, 0 or inf at 0, as PyTorch. At -inf PyTorch
# gives pow(inf, k) where log(-inf) is NaN: lift cannot compare with -inf (see above), so
# XREAL leaves that corner out.
case("y = torch.pow(x, 1.5)", x=XREAL)

# ---- gathers: integer indices given as data (issue 12 item 4) ----------------------------
# Appended last so that the cases above keep their ids and data.
GX = rnd(4, 5)
GT = np.array([3, 0, 4, 1.0])
GTN = np.array([3, -100, 4, -100.0])
GI = np.array([[1, 0, 4], [2, 2, 0], [4, 3, 1], [0, 1, 2.0]])
GIDS = np.array([[1, 0], [3, 3.0]])
GW = rnd(4, 3)
case("y = torch.gather(x, 1, i)", x=GX, i=GI, long=["i"])
case("y = torch.gather(input=x, dim=0, index=j, sparse_grad=False)", x=GX,
     j=np.array([[3, 0, 1, 2, 0], [1, 1, 2, 3, 3.0]]), long=["j"])
case("y = torch.gather(x, 1, t.unsqueeze(1)).squeeze(1)", x=GX, t=GT, long=["t"])
case("y = x[torch.arange(4), t]", x=GX, t=GT, long=["t"])
case("y = x[torch.arange(start=0, end=4, step=1, dtype=None, device=None), t]", x=GX, t=GT,
     long=["t"])
case("y = x[t]", x=GX, t=np.array([3, 0, -1, 2.0]), long=["t"])
case("y = x[t, 2]", x=GX, t=np.array([-4, 1, 3.0]), long=["t"])
case("y = torch.arange(2, 9, 3) * x", x=rnd(3))
case("y = F.embedding(ids, w)", ids=GIDS, w=GW, long=["ids"])
case("y = F.embedding(input=ids, weight=w, padding_idx=0, norm_type=2.0, "
     "scale_grad_by_freq=False, sparse=False)", ids=GIDS, w=GW, long=["ids"])
case("y = w[ids]", ids=GIDS, w=GW, long=["ids"])
case("y = F.embedding(ids, w, max_norm=1.0)", error="max_norm", ids=GIDS, w=GW, long=["ids"])
case("l = F.nll_loss(x, t)", x=GX, t=GT, long=["t"])
case("l = F.nll_loss(input=x, target=t, ignore_index=1, reduction='none')", x=GX,
     t=np.array([3, 1, 4, 1.0]), long=["t"])
case("l = F.nll_loss(x, t, reduction='sum')", x=GX, t=GT, long=["t"])
case("l = F.nll_loss(F.log_softmax(x, dim=1), t, ignore_index=-100, reduction='mean')", x=GX,
     t=GTN, long=["t"])
case("l = F.nll_loss(x, t, weight=w)", error="weight", x=GX, t=GT, w=rnd(5), long=["t"])
case("l = F.nll_loss(x, t, size_average=False)", error="size_average", x=GX, t=GT, long=["t"])
case("l = F.nll_loss(x, t, reduce=False)", error="reduce", x=GX, t=GT, long=["t"])
case("l = F.cross_entropy(x, t, reduction='none')", x=GX, t=GTN, long=["t"])

# ---- real exponents (issue 20: cbrt as people write it in torch) --------------------------
case("y = torch.sign(x) * torch.abs(x) ** (1/3)", x=X)
case("y = x ** -0.75", x=XREAL)
case("y = torch.pow(x, 2.5)", x=XREAL)

# ---- masks as attention writes them (issue 12 items 2, 5): masked_fill, float('-inf'),
# bool and integer dtypes. Appended last so that the cases above keep their ids and data.
MF = rnd(3, 4)
MM = np.array([[1, 0, 0, 1], [0, 0, 1, 1], [1, 1, 1, 0.0]])
case("y = x.masked_fill(x > 1, float('-inf')); z = torch.masked_fill(x, m.bool(), 0.5); "
     "w = x.masked_fill(torch.ones(3, 4, dtype=torch.bool).triu(1), -1e9); "
     "v = x.masked_fill(mask=(m > 0)[0], value=float('inf')); "
     "u = torch.softmax(x.masked_fill(torch.ones(3, 4, dtype=torch.bool).triu(1), float('-inf')), dim=-1)",
     x=MF, m=MM)
case("y = x + float('inf'); z = x - float('-Infinity'); w = x * float('nan'); v = x + float(2); "
     "u = x + float('1e-3') + float(True)", x=rnd(2, 3))
# (inputs are finite reals to lift: the products take a finite `f`; the conversions
# read x's infinities and NaN, which bool conversion makes true)
case("y = torch.ones(3, 4, dtype=torch.bool).tril() * f; z = torch.full((3, 4), 2.5, dtype=torch.bool) * f; "
     "w = torch.arange(4, dtype=torch.int64) * f; v = (x > 0).long() + (x > 0).int() + (x > 0).to(torch.int32); "
     "u = x.to(torch.bool); s = torch.zeros_like(x, dtype=torch.bool) + (x > 0); "
     "r = torch.full_like(x, 3, dtype=torch.long) + torch.ones(4, dtype=torch.int32)",
     x=np.array([[0.0, 1.5, -2.0, inf], [-inf, nan, 0.25, -0.5], [3.0, 0.0, -1.0, 2.0]]), f=rnd(3, 4))
case("y = x.long()", error="truncates", x=rnd(2, 3))
case("y = x.to(torch.int64)", error="truncates", x=rnd(2, 3))
case("y = torch.full((2, 3), 2.5, dtype=torch.int64) + x", error="truncates", x=rnd(2, 3))
case("y = torch.sum(x, dtype=torch.int64)", error="dtype=torch.int64", x=rnd(2, 3))
case("y = x.masked_fill(m, 0.0)", error="", x=rnd(3, 4), m=MM)


# ----------------------------------------------------------------------------------------

def outputs_of(spec):
    """Assigned names not starting with `_`, in order of first assignment (lift's rule)."""
    names = []
    for stmt in ast.parse(spec).body:
        assert isinstance(stmt, ast.Assign), spec
        for tgt in stmt.targets:
            elts = tgt.elts if isinstance(tgt, ast.Tuple) else [tgt]
            for e in elts:
                if not e.id.startswith("_") and e.id not in names:
                    names.append(e.id)
    return names


def run(c):
    env = {"torch": torch, "F": F, "nn": torch.nn, "math": math}
    for name, arr in c["inputs"].items():
        dt = torch.int64 if name in c["long"] else torch.float64
        env[name] = torch.tensor(np.asarray(arr), dtype=dt)
    env.update(c["sizes"])
    exec(c["spec"], env)  # trusted: the specs above
    outs = {}
    for name in outputs_of(c["spec"]):
        v = env[name]
        v = v.to(torch.float64) if isinstance(v, torch.Tensor) else torch.tensor(float(v))
        outs[name] = np.array(v.numpy(), dtype=np.float64, order="C")  # 0-d stays 0-d
    return outs


# ---- fmax / fmin (after the cases above, so their ids stay) ---------------------------------
# IEEE maxNum/minNum: the operand that is not NaN, NaN only when both are. lift reads
# inputs as reals, where fmax is maximum; the NaNs of log and sqrt at negative x are where
# they differ (NaN inputs also reach the NaN-dropping node there).
case("z = torch.fmax(torch.log(x), y); w = torch.fmin(input=torch.sqrt(x), other=y)", x=BX, y=BY)

# ---- celu, shrinks, threshold, softmin (after fmax, so the ids above stay) -----------------
# Both sides of every threshold: ±lambd (0.5 by default, 1 given), the threshold 1, and 0.
SH = np.array([-inf, -3.0, -1.0, -0.75, -0.5, -0.25, -0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5,
               50.0, inf, nan])
case("y = F.celu(x); z = F.celu(x, alpha=0.5, inplace=False); w = torch.celu(x, 2.0)", x=X)
case("y = F.softshrink(x); z = F.softshrink(x, lambd=1.0); w = F.hardshrink(x); "
     "v = F.hardshrink(x, 1.0) + torch.hardshrink(x, lambd=0.25)", x=SH)
case("y = F.tanhshrink(x)", x=X)
case("y = F.threshold(x, 1.0, -2.0); z = F.threshold(x, threshold=0.0, value=0.5, inplace=False)",
     x=SH)
case("y = F.softmin(x, dim=-1); z = F.softmin(x, 0, dtype=torch.float64)", x=FROWS)
case("y = F.softshrink(x, -1.0)", error="", x=SH)
case("y = F.celu(x, alpha=0.0)", error="", x=X)

# ---- round, half to even (after the cases above, so their ids stay) -----------------
case("y = torch.round(x); z = x.round()", x=X)
case("y = torch.round(x)", x=np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, 1000.5, -3.7]))


def main():
    warnings.filterwarnings("ignore")  # var() with correction >= N warns, as intended
    if os.path.isdir(DATA):
        shutil.rmtree(DATA)
    index = []
    for i, c in enumerate(CASES):
        cid = f"{i:03d}"
        entry = {"id": cid, "spec": c["spec"]}
        if c["error"] == "":
            try:
                run(c)
            except Exception as e:  # noqa: BLE001 - any PyTorch error will do
                entry["error"] = ""
                entry["torch_error"] = str(e).splitlines()[0]
                entry["inputs"] = {k: list(np.shape(v)) for k, v in c["inputs"].items()}
                index.append(entry)
                continue
            raise SystemExit(f"PyTorch accepts `{c['spec']}`, listed as refused")
        outs = run(c)  # PyTorch accepts every other case, lift's refused ones included
        if c["error"]:
            entry["error"] = c["error"]
            entry["inputs"] = {k: list(np.shape(v)) for k, v in c["inputs"].items()}
            index.append(entry)
            continue
        d = os.path.join(DATA, cid)
        os.makedirs(d)
        for name, arr in c["inputs"].items():
            np.save(os.path.join(d, f"in_{name}.npy"), np.asarray(arr, dtype=np.float64))
        for name, arr in outs.items():
            np.save(os.path.join(d, f"out_{name}.npy"), arr)
        entry["inputs"] = {k: list(np.shape(v)) for k, v in c["inputs"].items()}
        entry["outputs"] = list(outs)
        entry["sizes"] = c["sizes"]
        index.append(entry)
    with open(os.path.join(HERE, "index.json"), "w", newline="\n") as f:
        json.dump({"torch": torch.__version__.split("+")[0], "cases": index}, f, indent=1)
        f.write("\n")
    print(f"{len(index)} cases, PyTorch {torch.__version__}")


if __name__ == "__main__":
    main()
