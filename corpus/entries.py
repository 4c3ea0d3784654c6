"""The corpus: which library kernels, on which launch, against which reference.

Each entry: `name`, `library` (a key of generate.LIBRARIES), `file` (inside the
library's package), `function`, `constexprs`, `args` (the launch entry of every other
parameter, as in kernel.launch.toml), `grid`, `instances`, `spec` (the PyTorch one-liner
the library's tests compare with), `reference_doc` (where that reference comes from),
`reference` (NumPy, float64) and optionally `domain` (input ranges).

A bug twin is made by `twin(base, name, old, new, bug)`: the base entry's kernel with
`old` replaced by `new` (once) in the library source; same launch, spec and data.
"""
import math
import re

import numpy as np

F32 = np.float32


def f32(v):
    """A constant as the kernel holds it (an f32 literal in the IR)."""
    return float(F32(v))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def silu(x):
    return x * sigmoid(x)


def gelu_tanh(x):
    c = f32(math.sqrt(2.0 / math.pi))
    return 0.5 * x * (1.0 + np.tanh(c * (x + f32(0.044715) * x ** 3)))


_erf = np.vectorize(math.erf)


def gelu_exact(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def rms(x, eps):
    return 1.0 / np.sqrt((x * x).mean(axis=-1) + eps)


def T(name, shape, role="in", **kw):
    return {"tensor": name, "shape": shape, "role": role, **kw}


ENTRIES = []


# n_cols is a constexpr here: the kernel is specialised to N = 6 (BLOCK_SIZE 8, so masked)
# and the launch says so (shapes [M, 6]): for any other N the kernel is not the op
FIXED_N = [{"name": "m4", "sizes": {"M": 4}}, {"name": "m3", "sizes": {"M": 3}}]


def _fix_n(a):
    """A launch entry with the size N replaced by the compiled-in 6."""
    if a == "N":
        return 6
    if isinstance(a, dict) and "shape" in a:
        return dict(a, shape=[6 if d == "N" else d for d in a["shape"]])
    return a


def entry(**e):
    if e.pop("fixed_n", False) or e["instances"] is FIXED_N:
        e["args"] = {k: _fix_n(a) for k, a in e["args"].items()}
        e["spec"] = e["spec"].replace("(N,)", "(6,)")
        e["grid"] = [re.sub(r"\bN\b", "6", g) for g in e["grid"]]
    e.setdefault("expect", "verified")
    e.setdefault("base", e["name"])
    ENTRIES.append(e)
    return e


def twin(base, name, old, new, bug):
    t = dict(base)
    t.update(name=name, expect="refuted", edit=(old, new), bug=bug, base=base["name"])
    ENTRIES.append(t)
    return t


TWO_SIZES = [{"name": "even", "sizes": {"M": 4, "N": 8}}, {"name": "ragged", "sizes": {"M": 3, "N": 5}}]
EPS_SIZES = [dict(i, scalars={"eps": 1e-6}) for i in TWO_SIZES]
LIGER_TESTS = "liger-kernel test/transformers/test_{}.py"

# ---------------------------------------------------------------------------
# liger-kernel: RMSNorm (test_rms_norm.py compares with LlamaRMSNorm / GemmaRMSNorm:
# x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) times w, or (1 + w))
# ---------------------------------------------------------------------------


def liger_rms_args(offset):
    return {
        "Y_ptr": T("y", ["M", "N"], "out"), "Y_row_stride": "N",
        "X_ptr": T("x", ["M", "N"]), "X_row_stride": "N",
        "W_ptr": T("w", ["N"]), "W_row_stride": 0,
        "RSTD_ptr": T("rstd", ["M"], "out"), "RSTD_row_stride": 1,
        "n_cols": "N", "eps": {"scalar": "eps"}, "offset": {"value": offset},
    }


RMS_SPEC = ("y = (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)) * {w}; "
            "rstd = torch.rsqrt(x.pow(2).mean(-1) + eps)")

rms_llama = entry(
    name="liger_rms_norm_llama", library="liger-kernel", file="liger_kernel/ops/rms_norm.py",
    function="_rms_norm_forward_kernel",
    constexprs={"casting_mode": 0, "elementwise_affine": True, "BLOCK_SIZE": 8},
    args=liger_rms_args(0.0), grid=["M"], instances=EPS_SIZES,
    spec=RMS_SPEC.format(w="w"), reference_doc=LIGER_TESTS.format("rms_norm") + " (LlamaRMSNorm)",
    reference=lambda i, s, c: {"y": i["x"] * rms(i["x"], c["eps"])[:, None] * i["w"],
                               "rstd": rms(i["x"], c["eps"])},
)

entry(
    name="liger_rms_norm_gemma", library="liger-kernel", file="liger_kernel/ops/rms_norm.py",
    function="_rms_norm_forward_kernel",
    constexprs={"casting_mode": 1, "elementwise_affine": True, "BLOCK_SIZE": 8},
    args=liger_rms_args(1.0), grid=["M"], instances=EPS_SIZES,
    spec=RMS_SPEC.format(w="(1 + w)"), reference_doc=LIGER_TESTS.format("rms_norm") + " (GemmaRMSNorm)",
    reference=lambda i, s, c: {"y": i["x"] * rms(i["x"], c["eps"])[:, None] * (1 + i["w"]),
                               "rstd": rms(i["x"], c["eps"])},
)

entry(
    name="liger_rms_norm_noaffine", library="liger-kernel", file="liger_kernel/ops/rms_norm.py",
    function="_rms_norm_forward_kernel",
    constexprs={"casting_mode": 0, "elementwise_affine": False, "BLOCK_SIZE": 8},
    args=liger_rms_args(0.0), grid=["M"], instances=EPS_SIZES,
    spec="y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps); rstd = torch.rsqrt(x.pow(2).mean(-1) + eps)",
    reference_doc=LIGER_TESTS.format("rms_norm") + " (elementwise_affine=False)",
    reference=lambda i, s, c: {"y": i["x"] * rms(i["x"], c["eps"])[:, None], "rstd": rms(i["x"], c["eps"])},
)

rms_block = entry(
    name="liger_rms_norm_block", library="liger-kernel", file="liger_kernel/ops/rms_norm.py",
    function="_block_rms_norm_forward_kernel",
    constexprs={"casting_mode": 0, "elementwise_affine": True, "BLOCK_SIZE": 8, "BLOCK_ROW": 2},
    args={**liger_rms_args(0.0), "n_rows": "M"}, grid=["cdiv(M, 2)"], instances=EPS_SIZES,
    spec=RMS_SPEC.format(w="w"), reference_doc=LIGER_TESTS.format("rms_norm") + " (LlamaRMSNorm, row blocks)",
    reference=lambda i, s, c: {"y": i["x"] * rms(i["x"], c["eps"])[:, None] * i["w"],
                               "rstd": rms(i["x"], c["eps"])},
)

# a row block as tall as it is wide: a reduction over the wrong axis still compiles
rms_block8 = entry(
    name="liger_rms_norm_block8", library="liger-kernel", file="liger_kernel/ops/rms_norm.py",
    function="_block_rms_norm_forward_kernel",
    constexprs={"casting_mode": 0, "elementwise_affine": True, "BLOCK_SIZE": 8, "BLOCK_ROW": 8},
    args={**liger_rms_args(0.0), "n_rows": "M"}, grid=["cdiv(M, 8)"], instances=EPS_SIZES,
    spec=RMS_SPEC.format(w="w"), reference_doc=LIGER_TESTS.format("rms_norm") + " (LlamaRMSNorm, 8-row blocks)",
    reference=lambda i, s, c: {"y": i["x"] * rms(i["x"], c["eps"])[:, None] * i["w"],
                               "rstd": rms(i["x"], c["eps"])},
)

# Not in the corpus: liger's multi-block softmax kernels (_softmax_multi_block_forward_kernel,
# _softmax_multi_block_backward_kernel) start with `tl.float32(-float("inf"))`, which
# Triton 3.9.0 rejects ("'dtype' object is not callable"), so they cannot be compiled here.
NOT_COMPILED = {
    "liger_kernel/ops/softmax.py:_softmax_multi_block_forward_kernel": "tl.float32(...) as a constructor: Triton 3.9.0 rejects it",
    "liger_kernel/ops/softmax.py:_softmax_multi_block_backward_kernel": "tl.float32(...) as a constructor: Triton 3.9.0 rejects it",
}

# ---------------------------------------------------------------------------
# liger-kernel: LayerNorm (test_layer_norm.py compares with torch.nn.LayerNorm)
# ---------------------------------------------------------------------------


def layer_norm_ref(x, w, b, eps):
    mean = x.mean(axis=-1)
    var = ((x - mean[:, None]) ** 2).mean(axis=-1)
    rstd = 1.0 / np.sqrt(var + eps)
    return (x - mean[:, None]) * rstd[:, None] * w + b, mean, rstd


def _ln(i, s, c):
    y, mean, rstd = layer_norm_ref(i["x"], i["w"], i["b"], c["eps"])
    return {"y": y, "mean": mean, "rstd": rstd}


LN_SPEC = ("y = torch.nn.functional.layer_norm(x, (N,), w, b, eps); mean = torch.mean(x, dim=-1); "
           "rstd = torch.rsqrt(torch.var(x, dim=-1, unbiased=False) + eps)")

liger_ln = entry(
    name="liger_layer_norm", library="liger-kernel", file="liger_kernel/ops/layer_norm.py",
    function="_layer_norm_forward_kernel", constexprs={"BLOCK_SIZE": 8},
    args={"Y_ptr": T("y", ["M", "N"], "out"), "Y_row_stride": "N", "X_ptr": T("x", ["M", "N"]),
          "X_row_stride": "N", "W_ptr": T("w", ["N"]), "W_row_stride": 0, "B_ptr": T("b", ["N"]),
          "B_row_stride": 0, "Mean_ptr": T("mean", ["M"], "out"), "Mean_row_stride": 1,
          "RSTD_ptr": T("rstd", ["M"], "out"), "RSTD_row_stride": 1, "n_cols": "N", "eps": {"scalar": "eps"}},
    grid=["M"], instances=EPS_SIZES, spec=LN_SPEC,
    reference_doc=LIGER_TESTS.format("layer_norm") + " (torch.nn.LayerNorm)", reference=_ln,
)

# ---------------------------------------------------------------------------
# liger-kernel: SwiGLU, GEGLU, ReLU^2 (test_swiglu.py: LlamaMLP's act_fn(gate) * up with
# act_fn = silu; test_geglu.py: gelu(approximate="tanh"); test_relu_squared.py)
# ---------------------------------------------------------------------------


swiglu = entry(
    name="liger_swiglu", library="liger-kernel", file="liger_kernel/ops/swiglu.py",
    function="_swiglu_forward_kernel", constexprs={"n_cols": 6, "BLOCK_SIZE": 8},
    args={"a_ptr": T("a", ["M", "N"]), "b_ptr": T("b", ["M", "N"]), "c_ptr": T("c", ["M", "N"], "out"),
          "stride": "N", "gate_multiplier": {"value": 1.0}},
    grid=["M"], instances=FIXED_N, spec="c = torch.nn.functional.silu(a) * b",
    reference_doc=LIGER_TESTS.format("swiglu") + " (LlamaMLP: act_fn(gate_proj(x)) * up_proj(x))",
    reference=lambda i, s, c: {"c": silu(i["a"]) * i["b"]},
)

entry(
    name="liger_swiglu_gate", library="liger-kernel", file="liger_kernel/ops/swiglu.py",
    function="_swiglu_forward_kernel", constexprs={"n_cols": 6, "BLOCK_SIZE": 8},
    args={"a_ptr": T("a", ["M", "N"]), "b_ptr": T("b", ["M", "N"]), "c_ptr": T("c", ["M", "N"], "out"),
          "stride": "N", "gate_multiplier": {"scalar": "g"}},
    grid=["M"], instances=[dict(i, scalars={"g": 0.5}) for i in FIXED_N], fixed_n=True,
    spec="c = torch.nn.functional.silu(a * g) * b",
    reference_doc=LIGER_TESTS.format("swiglu") + " (gate_multiplier: silu(g * gate) * up)",
    reference=lambda i, s, c: {"c": silu(i["a"] * c["g"]) * i["b"]},
)

entry(
    name="liger_swiglu_tiled", library="liger-kernel", file="liger_kernel/ops/swiglu.py",
    function="_swiglu_forward_kernel_tiled", constexprs={"BLOCK_SIZE": 4},
    args={"a_ptr": T("a", ["M", "N"]), "b_ptr": T("b", ["M", "N"]), "c_ptr": T("c", ["M", "N"], "out"),
          "stride": "N", "gate_multiplier": {"value": 1.0}, "n_cols": "N"},
    grid=["M", "cdiv(N, 4)"], instances=TWO_SIZES, spec="c = torch.nn.functional.silu(a) * b",
    reference_doc=LIGER_TESTS.format("swiglu") + " (column-tiled path)",
    reference=lambda i, s, c: {"c": silu(i["a"]) * i["b"]},
)

geglu = entry(
    name="liger_geglu", library="liger-kernel", file="liger_kernel/ops/geglu.py",
    function="_geglu_tanh_forward_kernel", constexprs={"n_cols": 6, "BLOCK_SIZE": 8},
    args={"a": T("a", ["M", "N"]), "b": T("b", ["M", "N"]), "c": T("c", ["M", "N"], "out"), "stride": "N"},
    grid=["M"], instances=FIXED_N, spec="c = torch.nn.functional.gelu(a, approximate='tanh') * b",
    reference_doc=LIGER_TESTS.format("geglu") + " (GemmaMLP: gelu_pytorch_tanh(gate) * up)",
    reference=lambda i, s, c: {"c": gelu_tanh(i["a"]) * i["b"]},
)

entry(
    name="liger_relu_squared", library="liger-kernel", file="liger_kernel/ops/relu_squared.py",
    function="_relu_squared_forward_kernel", constexprs={"n_cols": 6, "BLOCK_SIZE": 8},
    args={"Y_ptr": T("y", ["M", "N"], "out"), "Y_stride": "N", "X_ptr": T("x", ["M", "N"]), "X_stride": "N"},
    grid=["M"], instances=FIXED_N, spec="y = torch.relu(x) ** 2",
    reference_doc=LIGER_TESTS.format("relu_squared") + " (torch.relu(x).square())",
    reference=lambda i, s, c: {"y": np.maximum(i["x"], 0) ** 2},
)

entry(
    name="liger_relu_squared_bwd", library="liger-kernel", file="liger_kernel/ops/relu_squared.py",
    function="_relu_squared_backward_kernel", constexprs={"n_cols": 6, "BLOCK_SIZE": 8},
    args={"dX_ptr": T("dx", ["M", "N"], "out"), "dX_stride": "N", "dY_ptr": T("dy", ["M", "N"]),
          "dY_stride": "N", "X_ptr": T("x", ["M", "N"]), "X_stride": "N"},
    grid=["M"], instances=FIXED_N, spec="dx = dy * 2 * torch.relu(x)",
    reference_doc=LIGER_TESTS.format("relu_squared") + " (autograd of relu(x)^2: 2 relu(x) dy)",
    reference=lambda i, s, c: {"dx": i["dy"] * 2 * np.maximum(i["x"], 0)},
)

# ---------------------------------------------------------------------------
# liger-kernel: softmax (test_softmax.py compares with torch.softmax(x, dim=-1))
# ---------------------------------------------------------------------------

SM_ARGS = {"Y_ptr": T("y", ["M", "N"], "out"), "Y_row_stride": "N", "X_ptr": T("x", ["M", "N"]),
           "X_row_stride": "N", "n_cols": "N"}

softmax_single = entry(
    name="liger_softmax", library="liger-kernel", file="liger_kernel/ops/softmax.py",
    function="_softmax_single_block_forward_kernel", constexprs={"BLOCK_SIZE": 8},
    args=SM_ARGS, grid=["M"], instances=TWO_SIZES, spec="y = torch.softmax(x, dim=-1)",
    reference_doc=LIGER_TESTS.format("softmax"), reference=lambda i, s, c: {"y": softmax(i["x"])},
)

SMB_ARGS = {"dy_ptr": T("dy", ["M", "N"]), "dy_stride": "N", "y_ptr": T("y", ["M", "N"]), "y_stride": "N",
            "dx_ptr": T("dx", ["M", "N"], "out"), "dx_stride": "N", "n_cols": "N"}
SMB_SPEC = "dx = y * (dy - (dy * y).sum(-1, keepdim=True))"


def _smb(i, s, c):
    return {"dx": i["y"] * (i["dy"] - (i["dy"] * i["y"]).sum(axis=-1, keepdims=True))}


entry(
    name="liger_softmax_bwd", library="liger-kernel", file="liger_kernel/ops/softmax.py",
    function="_softmax_single_block_backward_kernel", constexprs={"BLOCK_SIZE": 8},
    args=SMB_ARGS, grid=["M"], instances=TWO_SIZES, spec=SMB_SPEC,
    reference_doc=LIGER_TESTS.format("softmax") + " (autograd: y * (dy - sum(dy * y)))", reference=_smb,
)

# ---------------------------------------------------------------------------
# liger-kernel: DyT (test_dyt.py: gamma * tanh(alpha * x) + beta)
# ---------------------------------------------------------------------------

DYT_ARGS = {"X": T("x", ["M", "N"]), "Y": T("y", ["M", "N"], "out"), "Alpha": T("alpha", [1]),
            "Gamma": T("gamma", ["N"]), "Beta": T("beta", ["N"])}

entry(
    name="liger_dyt", library="liger-kernel", file="liger_kernel/ops/dyt.py",
    function="_dyt_fwd_kernel", constexprs={"HAVE_BETA": True, "N": 6, "BLOCK_N": 4},
    args=DYT_ARGS, grid=["cdiv(N, 4)", "M"], instances=FIXED_N,
    spec="y = gamma * torch.tanh(alpha * x) + beta", reference_doc=LIGER_TESTS.format("dyt"),
    reference=lambda i, s, c: {"y": i["gamma"] * np.tanh(i["alpha"] * i["x"]) + i["beta"]},
)

entry(
    name="liger_dyt_nobeta", library="liger-kernel", file="liger_kernel/ops/dyt.py",
    function="_dyt_fwd_kernel", constexprs={"HAVE_BETA": False, "N": 6, "BLOCK_N": 4},
    args=DYT_ARGS, grid=["cdiv(N, 4)", "M"], instances=FIXED_N,
    spec="y = gamma * torch.tanh(alpha * x)", reference_doc=LIGER_TESTS.format("dyt") + " (beta=False)",
    reference=lambda i, s, c: {"y": i["gamma"] * np.tanh(i["alpha"] * i["x"])},
)

# ---------------------------------------------------------------------------
# liger-kernel: KL divergence (test_kl_div.py compares with torch.nn.KLDivLoss)
# ---------------------------------------------------------------------------

KL_ARGS = {"y_ptr": T("y", ["M", "N"]), "y_stride": "N", "gt_ptr": T("gt", ["M", "N"]), "gt_stride": "N",
           "loss_ptr": T("loss", ["M", "N"], "out"), "loss_stride": "N", "n_cols": "N", "eps": {"value": 1e-10}}

entry(
    name="liger_kl_div", library="liger-kernel", file="liger_kernel/ops/kl_div.py",
    function="_kldiv_kernel_forward", constexprs={"BLOCK_SIZE": 4, "reduction": 0, "log_target": False},
    args=KL_ARGS, grid=["M"], instances=TWO_SIZES, domain={"gt": (0.05, 1.0)},
    spec="loss = torch.nn.functional.kl_div(y, gt, reduction='none')",
    reference_doc=LIGER_TESTS.format("kl_div") + " (torch.nn.KLDivLoss(reduction='none'))",
    reference=lambda i, s, c: {"loss": i["gt"] * (np.log(i["gt"]) - i["y"])},
)

entry(
    name="liger_kl_div_log_target", library="liger-kernel", file="liger_kernel/ops/kl_div.py",
    function="_kldiv_kernel_forward", constexprs={"BLOCK_SIZE": 4, "reduction": 0, "log_target": True},
    args=KL_ARGS, grid=["M"], instances=TWO_SIZES,
    spec="loss = torch.nn.functional.kl_div(y, gt, reduction='none', log_target=True)",
    reference_doc=LIGER_TESTS.format("kl_div") + " (log_target=True)",
    reference=lambda i, s, c: {"loss": np.exp(i["gt"]) * (i["gt"] - i["y"])},
)

entry(
    name="liger_kl_div_sum", library="liger-kernel", file="liger_kernel/ops/kl_div.py",
    function="_kldiv_kernel_forward", constexprs={"BLOCK_SIZE": 4, "reduction": 1, "log_target": True},
    args=dict(KL_ARGS, loss_ptr=T("loss", ["M"], "out"), loss_stride=1), grid=["M"], instances=TWO_SIZES,
    spec="loss = torch.sum(torch.exp(gt) * (gt - y), dim=-1)",
    reference_doc=LIGER_TESTS.format("kl_div") + " (log_target=True, per-row sum the wrapper reduces)",
    reference=lambda i, s, c: {"loss": (np.exp(i["gt"]) * (i["gt"] - i["y"])).sum(axis=-1)},
)

# ---------------------------------------------------------------------------
# unsloth: SwiGLU / GEGLU on flat tensors (tests compare with F.silu(e) * g, F.gelu(e) * g)
# ---------------------------------------------------------------------------

UNSLOTH_TESTS = "unsloth kernels/{} (the HF MLP it replaces: {})"
FLAT = [{"name": "even", "sizes": {"n": 16}}, {"name": "ragged", "sizes": {"n": 13}}]
EGH = {"e": T("e", ["n"]), "g": T("g", ["n"]), "h": T("h", ["n"], "out"), "n_elements": "n"}

u_swiglu = entry(
    name="unsloth_swiglu", library="unsloth", file="unsloth/kernels/swiglu.py",
    function="_fg_kernel", constexprs={"BLOCK_SIZE": 8, "LONG_INDEXING": 0},
    args=EGH, grid=["cdiv(n, 8)"], instances=FLAT, spec="h = torch.nn.functional.silu(e) * g",
    reference_doc=UNSLOTH_TESTS.format("swiglu.py", "act_fn(gate) * up, act_fn = silu"),
    reference=lambda i, s, c: {"h": silu(i["e"]) * i["g"]},
)

entry(
    name="unsloth_swiglu_long", library="unsloth", file="unsloth/kernels/swiglu.py",
    function="_fg_kernel", constexprs={"BLOCK_SIZE": 8, "LONG_INDEXING": 1},
    args=EGH, grid=["cdiv(n, 8)"], instances=FLAT, spec="h = torch.nn.functional.silu(e) * g",
    reference_doc=UNSLOTH_TESTS.format("swiglu.py", "silu(gate) * up, 64-bit indexing"),
    reference=lambda i, s, c: {"h": silu(i["e"]) * i["g"]},
)

u_geglu_exact = entry(
    name="unsloth_geglu_exact", library="unsloth", file="unsloth/kernels/geglu.py",
    function="_exact_forward_kernel", constexprs={"BLOCK_SIZE": 8, "LONG_INDEXING": 0},
    args=EGH, grid=["cdiv(n, 8)"], instances=FLAT, spec="h = torch.nn.functional.gelu(e) * g",
    reference_doc=UNSLOTH_TESTS.format("geglu.py", "gelu(gate) * up"),
    reference=lambda i, s, c: {"h": gelu_exact(i["e"]) * i["g"]},
)

entry(
    name="unsloth_geglu_exact_long", library="unsloth", file="unsloth/kernels/geglu.py",
    function="_exact_forward_kernel", constexprs={"BLOCK_SIZE": 8, "LONG_INDEXING": 1},
    args=EGH, grid=["cdiv(n, 8)"], instances=FLAT, spec="h = torch.nn.functional.gelu(e) * g",
    reference_doc=UNSLOTH_TESTS.format("geglu.py", "gelu(gate) * up, 64-bit indexing"),
    reference=lambda i, s, c: {"h": gelu_exact(i["e"]) * i["g"]},
)

u_geglu_approx = entry(
    name="unsloth_geglu_approx", library="unsloth", file="unsloth/kernels/geglu.py",
    function="_approx_forward_kernel", constexprs={"BLOCK_SIZE": 8, "LONG_INDEXING": 0},
    args=EGH, grid=["cdiv(n, 8)"], instances=FLAT, spec="h = torch.nn.functional.gelu(e, approximate='tanh') * g",
    reference_doc=UNSLOTH_TESTS.format("geglu.py", "gelu_pytorch_tanh(gate) * up"),
    reference=lambda i, s, c: {"h": gelu_tanh(i["e"]) * i["g"]},
)

# ---------------------------------------------------------------------------
# unsloth: RMS LayerNorm, Gemma RMS LayerNorm, LayerNorm (n_cols, strides and eps are
# constexprs: the kernel is compiled for N = 6, eps = 1e-6)
# ---------------------------------------------------------------------------

U_RMS_ARGS = {"Y": T("y", ["M", "N"], "out"), "X": T("x", ["M", "N"]), "W": T("w", ["N"]),
              "r": T("r", ["M"], "out")}
U_RMS_CONST = {"Y_row_stride": 6, "X_row_stride": 6, "W_row_stride": 0, "r_row_stride": 1, "n_cols": 6,
               "eps": 1e-6, "LONG_INDEXING": 0, "BLOCK_SIZE": 8}
EPS6 = 1e-6

u_rms = entry(
    name="unsloth_rms_layernorm", library="unsloth", file="unsloth/kernels/rms_layernorm.py",
    function="_rms_layernorm_forward", constexprs=U_RMS_CONST, args=U_RMS_ARGS, grid=["M"],
    instances=FIXED_N,
    spec="y = (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)) * w; r = torch.rsqrt(x.pow(2).mean(-1) + 1e-6)",
    reference_doc=UNSLOTH_TESTS.format("rms_layernorm.py", "LlamaRMSNorm"),
    reference=lambda i, s, c: {"y": i["x"] * rms(i["x"], f32(EPS6))[:, None] * i["w"], "r": rms(i["x"], f32(EPS6))},
)

u_gemma = entry(
    name="unsloth_gemma_rms_layernorm", library="unsloth", file="unsloth/kernels/rms_layernorm.py",
    function="_gemma_rms_layernorm_forward", constexprs=U_RMS_CONST, args=U_RMS_ARGS, grid=["M"],
    instances=FIXED_N,
    spec="y = (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)) * (1 + w); r = torch.rsqrt(x.pow(2).mean(-1) + 1e-6)",
    reference_doc=UNSLOTH_TESTS.format("rms_layernorm.py", "GemmaRMSNorm: x * rsqrt(...) * (1 + w)"),
    reference=lambda i, s, c: {"y": i["x"] * rms(i["x"], f32(EPS6))[:, None] * (1 + i["w"]),
                               "r": rms(i["x"], f32(EPS6))},
)

U_LN_ARGS = {"Y": T("y", ["M", "N"], "out"), "X": T("x", ["M", "N"]), "W": T("w", ["N"]), "b": T("b", ["N"]),
             "r": T("r", ["M"], "out"), "mu": T("mu", ["M"], "out")}
U_LN_CONST = {"Y_row_stride": 6, "X_row_stride": 6, "n_cols": 6, "eps": 1e-5, "LONG_INDEXING": 0, "BLOCK_SIZE": 8}


def _uln(i, s, c, bias=True):
    y, mean, rstd = layer_norm_ref(i["x"], i["w"], i["b"] if bias else 0.0, f32(1e-5))
    return {"y": y, "mu": mean, "r": rstd}


u_ln = entry(
    name="unsloth_layernorm", library="unsloth", file="unsloth/kernels/layernorm.py",
    function="layernorm_forward", constexprs=dict(U_LN_CONST, HAS_BIAS=True), args=U_LN_ARGS, grid=["M"],
    instances=FIXED_N,
    spec=("y = torch.nn.functional.layer_norm(x, (N,), w, b, 1e-5); mu = torch.mean(x, dim=-1); "
          "r = torch.rsqrt(torch.var(x, dim=-1, unbiased=False) + 1e-5)"),
    reference_doc=UNSLOTH_TESTS.format("layernorm.py", "torch.nn.LayerNorm"), reference=_uln,
)

entry(
    name="unsloth_layernorm_nobias", library="unsloth", file="unsloth/kernels/layernorm.py",
    function="layernorm_forward", constexprs=dict(U_LN_CONST, HAS_BIAS=False), args=U_LN_ARGS, grid=["M"],
    instances=FIXED_N,
    spec=("y = torch.nn.functional.layer_norm(x, (N,), w, None, 1e-5); mu = torch.mean(x, dim=-1); "
          "r = torch.rsqrt(torch.var(x, dim=-1, unbiased=False) + 1e-5)"),
    reference_doc=UNSLOTH_TESTS.format("layernorm.py", "torch.nn.LayerNorm(bias=False)"),
    reference=lambda i, s, c: _uln(i, s, c, bias=False),
)

# ---------------------------------------------------------------------------
# bug twins: one textual edit of the library source each
# ---------------------------------------------------------------------------

twin(rms_llama, "liger_rms_norm_llama_noeps_bug",
     "    mean_square = tl.sum(X_row * X_row, axis=0) / n_cols\n    rstd = rsqrt(mean_square + eps)",
     "    mean_square = tl.sum(X_row * X_row, axis=0) / n_cols\n    rstd = rsqrt(mean_square)",
     "missing eps: rstd = rsqrt(mean_square)")
twin(rms_block8, "liger_rms_norm_block8_axis_bug",
     "mean_square = tl.sum(X_row * X_row, axis=1) / n_cols\n    rstd = rsqrt(mean_square + eps)\n\n    # We can save time by caching rms with minimal memory overhead\n    # because rms is much smaller compared to X_row, as rms is for each row.\n    # However, on the computation side, it can save 4 operations (*, sum, /, sqrt).\n    tl.store(RSTD_ptr + row_idx * RSTD_row_stride, rstd, row_mask)",
     "mean_square = tl.sum(X_row * X_row, axis=0) / n_cols\n    rstd = rsqrt(mean_square + eps)\n\n    # We can save time by caching rms with minimal memory overhead\n    # because rms is much smaller compared to X_row, as rms is for each row.\n    # However, on the computation side, it can save 4 operations (*, sum, /, sqrt).\n    tl.store(RSTD_ptr + row_idx * RSTD_row_stride, rstd, row_mask)",
     "wrong axis: the row block's mean square reduced over rows (axis=0), not columns")
twin(softmax_single, "liger_softmax_other_bug",
     'x = tl.load(X_ptr + row_id * X_row_stride + offs, mask=mask, other=-float("inf"), cache_modifier=".ca")\n    m = tl.max(x, axis=0)',
     'x = tl.load(X_ptr + row_id * X_row_stride + offs, mask=mask, other=0.0, cache_modifier=".ca")\n    m = tl.max(x, axis=0)',
     "wrong mask fill: masked-off lanes load 0 instead of -inf, so they enter the max and the sum")
twin(geglu, "liger_geglu_const_bug",
     "    tanh_arg = sqrt_2_over_pi * (a_row + 0.044715 * a_cubed)\n    tanh_result = tanh(tanh_arg)\n    geglu_a = 0.5 * a_row * (1 + tanh_result)\n    c_row",
     "    tanh_arg = sqrt_2_over_pi * (a_row + 0.44715 * a_cubed)\n    tanh_result = tanh(tanh_arg)\n    geglu_a = 0.5 * a_row * (1 + tanh_result)\n    c_row",
     "wrong constant: 0.44715 for 0.044715 in the tanh approximation")
twin(u_geglu_exact, "unsloth_geglu_exact_const_bug",
     "f_row = 0.5 * e_row * (tl.math.erf(tl.math.rsqrt(2.0) * e_row) + 1.0)",
     "f_row = 0.5 * e_row * (tl.math.erf(tl.math.rsqrt(3.0) * e_row) + 1.0)",
     "wrong constant: erf(x / sqrt(3)) for erf(x / sqrt(2))")
twin(u_gemma, "unsloth_gemma_rms_offset_bug",
     "output = normed * (W_row + 1.0)", "output = normed * W_row",
     "Gemma RMSNorm without its (1 + w) offset")
twin(u_ln, "unsloth_layernorm_mask_bug",
     "XX = tl.where(mask, X_row - mean_X, 0)", "XX = X_row - mean_X",
     "wrong mask: padded lanes (loaded as 0) enter the variance as (0 - mean)^2")
twin(liger_ln, "liger_layer_norm_eps_bug",
     "rstd = rsqrt(var + eps.to(tl.float32))", "rstd = rsqrt(var + 1e-5)",
     "eps argument ignored: a hard-coded 1e-5")
twin(swiglu, "liger_swiglu_act_bug",
     "    c_row = silu(a_row).cast(b_row.dtype) * b_row\n    tl.store(c_ptr + col_offsets, c_row, mask=mask)\n\n\n@triton.jit\ndef _swiglu_backward_kernel(",
     "    c_row = tl.sigmoid(a_row).cast(b_row.dtype) * b_row\n    tl.store(c_ptr + col_offsets, c_row, mask=mask)\n\n\n@triton.jit\ndef _swiglu_backward_kernel(",
     "wrong activation: sigmoid(gate) * up instead of silu(gate) * up")

# ---------------------------------------------------------------------------
# further configurations and backward kernels
# ---------------------------------------------------------------------------

entry(
    name="unsloth_geglu_approx_long", library="unsloth", file="unsloth/kernels/geglu.py",
    function="_approx_forward_kernel", constexprs={"BLOCK_SIZE": 8, "LONG_INDEXING": 1},
    args=EGH, grid=["cdiv(n, 8)"], instances=FLAT, spec="h = torch.nn.functional.gelu(e, approximate='tanh') * g",
    reference_doc=UNSLOTH_TESTS.format("geglu.py", "gelu_pytorch_tanh(gate) * up, 64-bit indexing"),
    reference=lambda i, s, c: {"h": gelu_tanh(i["e"]) * i["g"]},
)

entry(
    name="liger_rms_norm_none", library="liger-kernel", file="liger_kernel/ops/rms_norm.py",
    function="_rms_norm_forward_kernel",
    constexprs={"casting_mode": -1, "elementwise_affine": True, "BLOCK_SIZE": 8},
    args=liger_rms_args(0.0), grid=["M"], instances=EPS_SIZES,
    spec=RMS_SPEC.format(w="w"), reference_doc=LIGER_TESTS.format("rms_norm") + " (casting_mode='none')",
    reference=lambda i, s, c: {"y": i["x"] * rms(i["x"], c["eps"])[:, None] * i["w"],
                               "rstd": rms(i["x"], c["eps"])},
)

entry(
    name="liger_softmax_block16", library="liger-kernel", file="liger_kernel/ops/softmax.py",
    function="_softmax_single_block_forward_kernel", constexprs={"BLOCK_SIZE": 16},
    args=SM_ARGS, grid=["M"],
    instances=[{"name": "even", "sizes": {"M": 3, "N": 16}}, {"name": "ragged", "sizes": {"M": 2, "N": 11}}],
    spec="y = torch.softmax(x, dim=-1)", reference_doc=LIGER_TESTS.format("softmax") + " (BLOCK_SIZE 16)",
    reference=lambda i, s, c: {"y": softmax(i["x"])},
)


def _swiglu_bwd(i, s, c):
    a, b, dc = i["a"], i["b"], i["dc"]
    sg = sigmoid(a)
    return {"a": dc * (a * sg * (1 - sg) + sg) * b, "b": dc * a * sg}


entry(
    name="liger_swiglu_bwd", library="liger-kernel", file="liger_kernel/ops/swiglu.py",
    function="_swiglu_backward_kernel", constexprs={"n_cols": 6, "BLOCK_SIZE": 8},
    args={"dc_ptr": T("dc", ["M", "N"]), "a_ptr": T("a", ["M", "N"], "inout"), "b_ptr": T("b", ["M", "N"], "inout"),
          "stride": "N", "gate_multiplier": {"value": 1.0}},
    grid=["M"], instances=FIXED_N,
    # `_a`, `_b`: the values before the kernel overwrites them (temporaries start with _)
    spec=("_a = a; _b = b; a = dc * (torch.sigmoid(_a) * (1 + _a * (1 - torch.sigmoid(_a)))) * _b; "
          "b = dc * torch.nn.functional.silu(_a)"),
    reference_doc=LIGER_TESTS.format("swiglu") + " (autograd of silu(a) * b, written into a and b in place)",
    reference=_swiglu_bwd,
)


def _geglu_bwd(i, s, c):
    a, b, dc = i["a"], i["b"], i["dc"]
    k = f32(math.sqrt(2.0 / math.pi))
    z = k * (a + f32(0.044715) * a ** 3)
    t = np.tanh(z)
    dgelu = 0.5 * (1 + t) + 0.5 * a * (1 - t * t) * k * (1 + 3 * f32(0.044715) * a * a)
    return {"a": dc * b * dgelu, "b": dc * gelu_tanh(a)}


entry(
    name="liger_geglu_bwd", library="liger-kernel", file="liger_kernel/ops/geglu.py",
    function="_geglu_tanh_backward_kernel", constexprs={"n_cols": 6, "BLOCK_SIZE": 8},
    args={"dc": T("dc", ["M", "N"]), "a": T("a", ["M", "N"], "inout"), "b": T("b", ["M", "N"], "inout"),
          "stride": "N"},
    grid=["M"], instances=FIXED_N,
    spec=("_a = a; _b = b; a = dc * _b * (0.5 * (1 + torch.tanh(0.7978845608028654 * (_a + 0.044715 * _a ** 3)))"
          " + 0.5 * _a * (1 - torch.tanh(0.7978845608028654 * (_a + 0.044715 * _a ** 3)) ** 2) * 0.7978845608028654 * "
          "(1 + 3 * 0.044715 * _a ** 2)); b = dc * torch.nn.functional.gelu(_a, approximate='tanh')"),
    reference_doc=LIGER_TESTS.format("geglu") + " (autograd of gelu_tanh(a) * b, written into a and b in place)",
    reference=_geglu_bwd,
)

# ---------------------------------------------------------------------------
# liger-kernel: total variation distance with labels (test_tvd.py: 0.5 * |p - q|, rows
# whose label is ignore_index contribute nothing), JSD (test_jsd.py), group norm
# ---------------------------------------------------------------------------


def labels_with_ignored(rng, shape, sizes):
    """Class indices in [0, N), row 1 set to ignore_index (-100)."""
    lab = rng.integers(0, sizes.get("N", 2), size=shape)
    lab[1] = -100
    return lab


TVD_ARGS = {"p_ptr": T("p", ["M", "N"]), "p_stride": "N", "q_ptr": T("q", ["M", "N"]), "q_stride": "N",
            "loss_ptr": T("loss", ["M", "N"], "out"), "loss_stride": "N",
            "grads_ptr": T("grads", ["M", "N"], "out"), "grads_stride": "N",
            "label_ptr": T("label", ["M"], dtype="int64"), "n_cols": "N", "scale": {"scalar": "scale"}}


def _tvd(i, s, c):
    keep = (i["label"] != -100)[:, None]
    d = i["p"] - i["q"]
    return {"loss": np.where(keep, 0.5 * np.abs(d), 0.0), "grads": np.where(keep, 0.5 * c["scale"] * np.sign(d), 0.0)}


tvd = entry(
    name="liger_tvd_labels", library="liger-kernel", file="liger_kernel/ops/tvd.py",
    function="_tv_distance_kernel",
    constexprs={"ignore_index": -100, "BLOCK_SIZE": 4, "HAS_LABEL": True, "reduction": 0},
    args=TVD_ARGS, grid=["M"], instances=[dict(i, scalars={"scale": 0.25}) for i in TWO_SIZES],
    domain={"p": (0.0, 1.0), "q": (0.0, 1.0), "label": labels_with_ignored},
    spec=("_keep = (label != -100).unsqueeze(1); loss = torch.where(_keep, 0.5 * torch.abs(p - q), 0.0); "
          "grads = torch.where(_keep, 0.5 * scale * torch.sign(p - q), 0.0)"),
    reference_doc=LIGER_TESTS.format("tvd") + " (TVD 0.5 * |p - q|, reduction='none', ignore_index=-100)",
    reference=_tvd,
)

twin(tvd, "liger_tvd_ignore_index_bug",
     "        if label == ignore_index:\n            for i in range(0, n_cols, BLOCK_SIZE):\n                offsets = i + base_offsets",
     "        if label == -1:\n            for i in range(0, n_cols, BLOCK_SIZE):\n                offsets = i + base_offsets",
     "wrong label handling: ignored rows recognised by label == -1 instead of ignore_index (-100)")


def _jsd(i, s, c, beta=0.5):
    x, y = i["x"], i["y"]
    m = beta * np.exp(y) + (1 - beta) * np.exp(x)
    n = s["M"]
    return {"loss": (beta * np.exp(y) * (y - np.log(m)) + (1 - beta) * np.exp(x) * (x - np.log(m))) / n,
            "dx": (1 - beta) * np.exp(x) * (x - np.log(m)) / n}


JSD_ARGS = {"X_ptr": T("x", ["M", "N"]), "X_stride": "N", "Y_ptr": T("y", ["M", "N"]), "Y_stride": "N",
            "loss_ptr": T("loss", ["M", "N"], "out"), "loss_stride": "N",
            "dX_ptr": T("dx", ["M", "N"], "out"), "dX_stride": "N",
            "label_ptr": T("label", ["M"], dtype="int64"), "n_non_ignore": "M", "n_cols": "N"}

entry(
    name="liger_jsd", library="liger-kernel", file="liger_kernel/ops/jsd.py",
    function="_jsd_kernel",
    constexprs={"beta": 0.5, "ignore_index": -100, "BLOCK_SIZE": 4, "HAS_LABEL": False},
    args=JSD_ARGS, grid=["M"], instances=TWO_SIZES,
    domain={"x": (-3.0, 0.0), "y": (-3.0, 0.0), "label": labels_with_ignored},
    spec=("_m = 0.5 * torch.exp(y) + 0.5 * torch.exp(x); "
          "loss = (0.5 * torch.exp(y) * (y - torch.log(_m)) + 0.5 * torch.exp(x) * (x - torch.log(_m))) / M; "
          "dx = 0.5 * torch.exp(x) * (x - torch.log(_m)) / M"),
    reference_doc=LIGER_TESTS.format("jsd") + " (beta=0.5: beta KL(P||M) + (1-beta) KL(Q||M), M = lerp(Q, P, beta), per element / n)",
    reference=_jsd,
)


def _gn(i, s, c):
    x = i["x"]
    m = x.mean(axis=-1)
    var = (x * x).mean(axis=-1) - m * m
    r = 1.0 / np.sqrt(var + c["eps"])
    y = (x - m[..., None]) * r[..., None] * i["w"][None, :, None] + i["b"][None, :, None]
    return {"y": y, "mean": m, "rstd": r}


entry(
    name="liger_group_norm", library="liger-kernel", file="liger_kernel/ops/group_norm.py",
    function="_group_norm_forward_kernel", constexprs={"BLOCK_SIZE": 4},
    args={"Y_ptr": T("y", ["B", "G", "H"], "out"), "Y_row_stride": "G * H", "Y_col_stride": "H",
          "X_ptr": T("x", ["B", "G", "H"]), "X_row_stride": "G * H", "X_col_stride": "H",
          "Mean_ptr": T("mean", ["B", "G"], "out"), "Mean_row_stride": "G", "Mean_col_stride": 1,
          "RSTD_ptr": T("rstd", ["B", "G"], "out"), "RSTD_row_stride": "G", "RSTD_col_stride": 1,
          "W_ptr": T("w", ["G"]), "B_ptr": T("b", ["G"]), "hidden_size": "H", "channels_per_group": 1,
          "eps": {"scalar": "eps"}},
    grid=["B", "G"],
    instances=[{"name": "even", "sizes": {"B": 2, "G": 3, "H": 8}, "scalars": {"eps": 1e-6}},
               {"name": "ragged", "sizes": {"B": 2, "G": 2, "H": 6}, "scalars": {"eps": 1e-6}}],
    spec=("y = (x - x.mean(-1, keepdim=True)) * torch.rsqrt(x.var(-1, unbiased=False, keepdim=True) + eps) "
          "* w.reshape(1, G, 1) + b.reshape(1, G, 1); mean = x.mean(-1); "
          "rstd = torch.rsqrt(x.var(-1, unbiased=False) + eps)"),
    reference_doc=LIGER_TESTS.format("group_norm") + " (torch.nn.GroupNorm, one channel per group)",
    reference=_gn,
)


def _tvd_sum(i, s, c):
    keep = i["label"] != -100
    d = i["p"] - i["q"]
    return {"loss": np.where(keep, c["scale"] * (0.5 * np.abs(d)).sum(axis=-1), i["loss"]),
            "grads": np.where(keep[:, None], 0.5 * c["scale"] * np.sign(d), 0.0)}


# reduction='sum': an ignored row's loss is never stored; the wrapper zero-fills the
# buffer (torch.zeros), so the launch makes it `inout` and the spec keeps its value
tvd_sum = entry(
    name="liger_tvd_sum_labels", library="liger-kernel", file="liger_kernel/ops/tvd.py",
    function="_tv_distance_kernel",
    constexprs={"ignore_index": -100, "BLOCK_SIZE": 4, "HAS_LABEL": True, "reduction": 1},
    args=dict(TVD_ARGS, loss_ptr=T("loss", ["M"], "inout"), loss_stride=1), grid=["M"],
    instances=[dict(i, scalars={"scale": 0.25}) for i in TWO_SIZES],
    domain={"p": (0.0, 1.0), "q": (0.0, 1.0), "label": labels_with_ignored},
    spec=("_keep = label != -100; loss = torch.where(_keep, scale * torch.sum(0.5 * torch.abs(p - q), dim=-1), loss); "
          "grads = torch.where(_keep.unsqueeze(1), 0.5 * scale * torch.sign(p - q), 0.0)"),
    reference_doc=LIGER_TESTS.format("tvd") + " (reduction='sum' per row, scaled; ignored rows keep the zero-filled loss)",
    reference=_tvd_sum,
)

twin(tvd_sum, "liger_tvd_sum_ignore_index_bug",
     "        if label == ignore_index:\n            for i in range(0, n_cols, BLOCK_SIZE):\n                offsets = i + base_offsets",
     "        if label == -1:\n            for i in range(0, n_cols, BLOCK_SIZE):\n                offsets = i + base_offsets",
     "wrong label handling: ignored rows recognised by label == -1 instead of ignore_index (-100); reduction='sum'")


# liger-kernel: fused residual add + RMSNorm (test_fused_add_rms_norm.py: the residual
# s = x + r, then LlamaRMSNorm of s)
def _farn(i, s, c):
    sres = i["x"] + i["r"]
    return {"y": sres * rms(sres, c["eps"])[:, None] * i["w"], "s": sres, "rstd": rms(sres, c["eps"])}


farn = entry(
    name="liger_fused_add_rms_norm", library="liger-kernel", file="liger_kernel/ops/fused_add_rms_norm.py",
    function="_fused_add_rms_norm_forward_kernel", constexprs={"casting_mode": 0, "BLOCK_SIZE": 8},
    args={"Y_ptr": T("y", ["M", "N"], "out"), "Y_row_stride": "N", "S_ptr": T("s", ["M", "N"], "out"),
          "S_row_stride": "N", "X_ptr": T("x", ["M", "N"]), "X_row_stride": "N", "R_ptr": T("r", ["M", "N"]),
          "R_row_stride": "N", "W_ptr": T("w", ["N"]), "W_row_stride": 0, "RSTD_ptr": T("rstd", ["M"], "out"),
          "RSTD_row_stride": 1, "n_cols": "N", "eps": {"scalar": "eps"}, "offset": {"value": 0.0}},
    grid=["M"], instances=EPS_SIZES,
    spec=("s = x + r; y = ((x + r) * torch.rsqrt((x + r).pow(2).mean(-1, keepdim=True) + eps)) * w; "
          "rstd = torch.rsqrt((x + r).pow(2).mean(-1) + eps)"),
    reference_doc=LIGER_TESTS.format("fused_add_rms_norm") + " (residual add, then LlamaRMSNorm)",
    reference=_farn,
)

twin(farn, "liger_fused_add_rms_norm_residual_bug",
     "    S_row = X_row + R_row\n    tl.store(S_ptr + col_offsets, S_row, mask=mask)",
     "    S_row = X_row + R_row\n    tl.store(S_ptr + col_offsets, X_row, mask=mask)",
     "wrong output: the residual stream gets x, not x + r")


# liger-kernel: cross-entropy forward (test_cross_entropy.py compares with
# torch.nn.CrossEntropyLoss; here reduction='none', no gradients, no smoothing, no
# z-loss). The label's logit is gathered (`tl.load(X_ptr + y)`), so the label tensor
# declares its values; an ignored row returns early after zeroing its row of X, leaving
# its loss (zero-initialised by liger's host code, here the inout input) alone.
def _liger_ce(i, s, c):
    x, t, loss = i["x"], i["t"].astype(np.int64), i["loss"]
    m = x.max(axis=1)
    lse = m + np.log(np.exp(x - m[:, None]).sum(axis=1))
    keep = t != -100
    picked = x[np.arange(x.shape[0]), np.where(keep, t, 0)]
    return {"loss": np.where(keep, lse - picked, loss), "x": np.where(keep[:, None], x, 0.0)}


LIGER_CE_ARGS = {
    "X_ptr": T("x", ["M", "N"], "inout"), "X_stride": "N",
    "Y_ptr": T("t", ["M"], dtype="int64", values=["0..N", -100]), "Y_stride": 1,
    "weight_ptr": T("unused_weight", [1]), "loss_ptr": T("loss", ["M"], "inout"),
    "z_loss_ptr": T("unused_z_loss", [1]), "loss_stride": 1,
    "token_accuracy_ptr": T("unused_accuracy", [1]), "token_accuracy_stride": 1,
    "predicted_tokens_ptr": T("unused_predicted", [1]), "predicted_tokens_stride": 1,
    "n_cols": "N", "n_non_ignore": {"value": 1.0}, "sum_non_ignore_weight": {"value": 1.0},
    "weight_sum": {"value": 1.0}, "ignore_index": -100, "softcap": {"value": 1.0},
}
LIGER_CE_CONST = {"lse_square_scale": 0.0, "label_smoothing": 0.0, "reduction": "none",
                  "RETURN_Z_LOSS": 0, "RETURN_TOKEN_ACCURACY": 0, "RETURN_PREDICTED_TOKENS": 0,
                  "BLOCK_SIZE": 4, "HAS_WEIGHT": False, "HAS_SOFTCAPPING": False,
                  "HAS_GRADIENTS": False}

liger_ce = entry(
    name="liger_cross_entropy", library="liger-kernel", file="liger_kernel/ops/cross_entropy.py",
    function="liger_cross_entropy_kernel", constexprs=LIGER_CE_CONST, args=LIGER_CE_ARGS,
    grid=["M"], instances=TWO_SIZES, domain={"t": labels_with_ignored},
    spec=("loss = torch.where(t == -100, loss, F.cross_entropy(x, t, reduction='none')); "
          "x = torch.where((t == -100).unsqueeze(1), 0.0, x)"),
    reference_doc=LIGER_TESTS.format("cross_entropy") + " (CrossEntropyLoss, reduction='none')",
    reference=_liger_ce,
)

twin(liger_ce, "liger_cross_entropy_lse_bug",
     "    lse = m + tl.log(d)",
     "    lse = m + tl.log(d + 1)",
     "wrong log-sum-exp: log(d + 1) for log(d)")

# ---------------------------------------------------------------------------
# unsloth: RoPE (rope_embedding.py, `_rope_embedding_QK`): Q and K of layout
# [batch, seq, heads, head_dim] rotated out of place, one program per (batch, seq) row and
# group of heads (Q's groups first, then K's). The kernel reads only the first half of
# each cos/sin row: unsloth's tables repeat it (HF's `cat((freqs, freqs), -1)`), so the
# spec is HF's `apply_rotary_pos_emb` on the tables with their first half repeated.
# ---------------------------------------------------------------------------


def _rope(i, s, c):
    h = 4
    cs = np.concatenate([i["cos"][:, :h]] * 2, axis=-1)[None, :, None, :]
    sn = np.concatenate([i["sin"][:, :h]] * 2, axis=-1)[None, :, None, :]

    def rot(x):
        return x * cs + np.concatenate([-x[..., h:], x[..., :h]], axis=-1) * sn

    return {"q_out": rot(i["q"]), "k_out": rot(i["k"])}


ROPE_ARGS = {
    "Q": T("q", ["B", "S", 4, 8]), "Q_out": T("q_out", ["B", "S", 4, 8], "out"),
    "K": T("k", ["B", "S", 2, 8]), "K_out": T("k_out", ["B", "S", 2, 8], "out"),
    "q_batch_stride": "S * 32", "q_head_stride": 8, "qo_batch_stride": "S * 32", "qo_head_stride": 8,
    "k_batch_stride": "S * 16", "k_head_stride": 8, "ko_batch_stride": "S * 16", "ko_head_stride": 8,
    "cos": T("cos", ["S", 8]), "cos_row_stride": 8, "sin": T("sin", ["S", 8]), "sin_row_stride": 8,
    "rope_embedding_indices": T("unused_indices", [1]), "seqlen": "S",
}
ROPE_CONST = {"q_seq_stride": 32, "q_dim_stride": 1, "qo_seq_stride": 32, "qo_dim_stride": 1,
              "k_seq_stride": 16, "k_dim_stride": 1, "ko_seq_stride": 16, "ko_dim_stride": 1,
              "n_heads_Q": 4, "n_heads_K": 2, "n_groups_Q": 2, "half_head_dim": 4,
              "BACKWARD_PASS": False, "HAS_ROPE_INDICES": False, "LONG_INDEXING": False,
              "CAST_TO_SIN": False, "HEADS_Q": 2, "HEADS_K": 2, "BLOCK_SIZE": 4, "EVICT_INDICES": False}
ROPE_SPEC = ("c = torch.cat((cos[:, :4], cos[:, :4]), dim=-1).unsqueeze(1); "
             "s = torch.cat((sin[:, :4], sin[:, :4]), dim=-1).unsqueeze(1); "
             "q_out = q * c + torch.cat((-q[..., 4:], q[..., :4]), dim=-1) * s; "
             "k_out = k * c + torch.cat((-k[..., 4:], k[..., :4]), dim=-1) * s")

u_rope = entry(
    name="unsloth_rope_qk", library="unsloth", file="unsloth/kernels/rope_embedding.py",
    function="_rope_embedding_QK", constexprs=ROPE_CONST, args=ROPE_ARGS, grid=["B * S", 3],
    instances=[{"name": "even", "sizes": {"B": 2, "S": 3}}, {"name": "ragged", "sizes": {"B": 1, "S": 5}}],
    spec=ROPE_SPEC,
    reference_doc=("unsloth rope_embedding.py docstring 'RoPE is Q * cos + rotate_half(Q) * sin' "
                   "(HF apply_rotary_pos_emb), cos/sin rows as cat((freqs, freqs), -1)"),
    reference=_rope,
)

twin(u_rope, "unsloth_rope_qk_sign_bug",
     "    out0 = tl.fma(x0, c, -(x1 * s))",
     "    out0 = tl.fma(x0, c, x1 * s)",
     "wrong sign: the first half's x1 * sin added, not subtracted")

# ---------------------------------------------------------------------------
# fla-core: softmax attention forward (fla/ops/attn/parallel.py,
# `parallel_attn_fwd_kernel`), flash attention as a large library writes it: causal,
# base 2 (scores scaled by `scale * RCP_LN2`, then exp2), running max from -inf with a
# finite pivot for rows that have seen no key yet, two key loops (the blocks strictly
# before the query block, then the diagonal block under the causal mask), and the
# log-sum-exp stored beside the output, in base 2 (`m + log2(acc)`). One head (H = HQ =
# G = 1: the head axis of fla's [B, T, H, K] layout has size 1 and is left out of the
# shapes), K = V = 16, query and key blocks of 16 (fla uses BT = 128, BS = 16..64); no
# window, gate, sink bias or variable lengths (their arguments are None, the heuristics'
# flags False). The reference is fla's `naive_parallel_attn` (tests/ops/test_attn.py):
# scores masked by `masked_fill(col > row, -inf)`, softmax, times v; fla's backward reads
# the lse as logsumexp(scores) / ln 2.
# ---------------------------------------------------------------------------


def _fla_attn(i, s, c):
    sc = np.einsum("btd,bsd->bts", i["q"], i["k"]) * c["scale"]
    t = sc.shape[-1]
    sc = np.where(np.triu(np.ones((t, t), dtype=bool), 1), -np.inf, sc)
    m = sc.max(axis=-1, keepdims=True)
    e = np.exp(sc - m)
    lse = (m[..., 0] + np.log(e.sum(axis=-1))) / math.log(2)
    return {"o": (e / e.sum(axis=-1, keepdims=True)) @ i["v"], "lse": lse}


FLA_ATTN_CONST = {"g_cumsum": None, "sink_bias": None, "cu_seqlens": None, "chunk_indices": None,
                  "W": None, "B": 1, "H": 1, "HQ": 1, "G": 1, "K": 16, "V": 16,
                  "BT": 16, "BS": 16, "BK": 16, "BV": 16,
                  "USE_G": False, "USE_SINK_BIAS": False, "USE_WINDOW": False, "IS_VARLEN": False}
FLA_ATTN_ARGS = {
    "q": T("q", ["B", "T", 16]), "k": T("k", ["B", "T", 16]), "v": T("v", ["B", "T", 16]),
    "o": T("o", ["B", "T", 16], "out"), "lse": T("lse", ["B", "T"], "out"),
    "scale": {"scalar": "scale"}, "T": "T",
}
FLA_ATTN_SPEC = ("t = q.shape[1]; "
                 "s = (q @ k.transpose(-1, -2)) * scale; "
                 "s = s.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float('-inf')); "
                 "o = torch.softmax(s, dim=-1) @ v; "
                 "lse = torch.logsumexp(s, dim=-1) / math.log(2)")

fla_attn = entry(
    name="fla_attn_causal", library="fla-core", file="fla/ops/attn/parallel.py",
    function="parallel_attn_fwd_kernel", constexprs=FLA_ATTN_CONST, args=FLA_ATTN_ARGS,
    grid=["cdiv(T, 16)", "B"],
    # T = 48: three query blocks, so the first key loop runs over two blocks (its
    # rescaling matters); T = 20: a ragged last block
    instances=[{"name": "even", "sizes": {"B": 1, "T": 48}, "scalars": {"scale": 0.25}},
               {"name": "ragged", "sizes": {"B": 2, "T": 20}, "scalars": {"scale": 0.25}}],
    spec=FLA_ATTN_SPEC,
    reference_doc="fla-core fla/ops/attn/naive.py naive_parallel_attn (causal), lse = logsumexp / ln 2",
    reference=_fla_attn,
)

# ---------------------------------------------------------------------------
# fla-core: mean pooling over chunks of the sequence (fla/ops/utils/pooling.py,
# `mean_pooling_fwd_kernel`), which fla's native sparse attention uses to compress keys
# and values: one program per (chunk, block of the head dimension) writes the chunk's
# mean, one partial result per block. x is fla's [B, T, H, D] layout with H = 2, D = 8
# (constexprs), chunks of BT = 4, head-dimension blocks of BD = 4. T is a multiple of
# the chunk (T = 4 * NT): there the kernel is the reshape-and-mean that defines
# non-overlapping chunk pooling, `x.view(B, T // BT, BT, H, D).mean(2)`; for a ragged T
# the kernel averages the last, short chunk, which no view states.
# ---------------------------------------------------------------------------

mean_pool = entry(
    name="fla_mean_pooling", library="fla-core", file="fla/ops/utils/pooling.py",
    function="mean_pooling_fwd_kernel",
    constexprs={"cu_seqlens": None, "chunk_indices": None, "H": 2, "D": 8, "BT": 4, "BD": 4,
                "IS_VARLEN": False},
    args={"x": T("x", ["B", "4 * NT", 2, 8]), "o": T("o", ["B", "NT", 2, 8], "out"),
          "T": "4 * NT"},
    grid=["2 * NT", "2 * B"],
    instances=[{"name": "even", "sizes": {"B": 1, "NT": 3}},
               {"name": "batch", "sizes": {"B": 2, "NT": 2}}],
    spec="B, T, H, D = x.shape; o = x.view(B, T // 4, 4, H, D).mean(2)",
    reference_doc="non-overlapping chunk mean pooling, as fla's mean_pooling computes it "
                  "for T a multiple of chunk_size: x.view(B, T // chunk_size, chunk_size, H, D).mean(2)",
    reference=lambda i, s, c: {"o": i["x"].reshape(i["x"].shape[0], -1, 4, 2, 8).mean(axis=2)},
)

twin(mean_pool, "fla_mean_pooling_count_bug",
     "    b_o = tl.sum(b_x, axis=0) / min(BT, T - i_t * BT)",
     "    b_o = tl.sum(b_x, axis=0) / min(BT, T - i_t * BT - 1)",
     "off by one in the count: the last chunk's sum divided by BT - 1 (min picks BT for "
     "every other chunk)")

twin(fla_attn, "fla_attn_causal_diag_bug",
     "        m_s = (o_q[:, None] >= o_k[None, :]) & m_k[None, :]",
     "        m_s = (o_q[:, None] > o_k[None, :]) & m_k[None, :]",
     "wrong mask: a query does not attend to its own key (row 0 attends to nothing)")

twin(fla_attn, "fla_attn_causal_rescale_bug",
     "        b_o = b_o * b_r[:, None] + tl.dot(b_p.to(b_q.dtype), b_v)\n\n        b_mp = b_m",
     "        b_o = b_o + tl.dot(b_p.to(b_q.dtype), b_v)\n\n        b_mp = b_m",
     "missing rescale of the output in the loop over earlier key blocks (wrong only for "
     "queries past the second block)")

twin(fla_attn, "fla_attn_causal_lse_bug",
     "    b_m += log2(b_acc)",
     "    b_m += tl.log(b_acc)",
     "wrong log-sum-exp base: the natural log of the sum added to the base-2 max")
