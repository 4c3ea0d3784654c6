"""The LLM-style set: every kernel's launch, PyTorch spec and expected verdict.

`expect` is what the kernel's math says `lift check --spec SPEC` must answer:
"verified" (the kernel is the op over the reals), "refuted" (it is not: `bug` says where
it differs), "race" (a missing barrier), "undefined" (a masked-off lane without `other`
reaches a store) or "fault" (an output element never written, or an access out of
bounds: exit 1 naming the element). `also` lists further (spec, expect, bug)
checks of the same kernel. `style` names the LLM idiom the kernel exercises.
"""
import json


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


def T(name, shape, role="in", **kw):
    return {"tensor": name, "shape": shape, "role": role, **kw}


F = "torch.nn.functional"

# --- CUDA -------------------------------------------------------------------------

# one thread per element: (x, y, n), 2 CTAs of 256 threads, a partial second block
EW = dict(block=[256], grid=["cdiv(N, 256)"], sizes={"N": 260},
          params=[("x", T("x", ["N"])), ("y", T("y", ["N"], "out")), ("n", "N")])
# one thread per row: (x, out, rows, cols)
ROW_T = dict(block=[32], grid=["cdiv(M, 32)"], sizes={"M": 3, "N": 20})
# one block per row
ROW_B = dict(block=[64], grid=["M"], sizes={"M": 2, "N": 100})
WARP = dict(block=[32], grid=["M"], sizes={"M": 2, "N": 100})


def rows(out_shape=("M",), out="out", dtype=None):
    o = T(out, list(out_shape), "out", **({"dtype": dtype} if dtype else {}))
    return [("x", T("x", ["M", "N"])), (out, o), ("rows", "M"), ("cols", "N")]


def ew(name, spec, expect="verified", bug=None, style="one thread per element", **kw):
    k = dict(EW, name=name, spec=spec, expect=expect, style=style, **kw)
    if bug:
        k["bug"] = bug
    return k


def k(name, base, params, spec, style, expect="verified", bug=None, **kw):
    d = dict(base, name=name, params=params, spec=spec, expect=expect, style=style, **kw)
    if bug:
        d["bug"] = bug
    return d


MAX_SPEC = "out = torch.amax(x, dim=1)"
LOSS1 = dict(block=[128], grid=[1], sizes={"N": 200})
PT = [("pred", T("p", ["N"])), ("target", T("t", ["N"])), ("out", T("out", [], "out")), ("n", "N")]

CUDA = [
    # activations
    ew("relu_ternary", "y = torch.relu(x)", style="ternary"),
    ew("relu_fmaxf", "y = torch.relu(x)", style="fmaxf"),
    ew("leaky_relu", f"y = {F}.leaky_relu(x, negative_slope=0.01)", style="ternary, slope argument",
       params=EW["params"] + [("negative_slope", {"value": 0.01})]),
    ew("sigmoid_expf", "y = torch.sigmoid(x)", style="1/(1+expf(-x))"),
    ew("sigmoid_grid_stride", "y = torch.sigmoid(x)", style="grid-stride loop, __expf, __fdividef",
       grid=[1]),
    ew("sigmoid_double", "y = torch.sigmoid(x)", style="double for accuracy", sizes={"N": 40}),
    ew("swish", "y = x * torch.sigmoid(x)", style="expf(-x)"),
    ew("gelu_erf", f"y = {F}.gelu(x)", style="erff"),
    ew("gelu_tanh", f"y = {F}.gelu(x)", "refuted",
       "the tanh approximation is not the exact (erf) GELU: up to 4.7e-4 apart near |x| = 2",
       style="tanhf", also=[(f"y = {F}.gelu(x, approximate='tanh')", "verified", None)]),
    ew("softplus_threshold", f"y = {F}.softplus(x)", style="threshold ternary, log1pf"),
    ew("softplus_naive", f"y = {F}.softplus(x)", "refuted",
       "no threshold: PyTorch returns x above 20, log(1 + e^x) is x + log(1 + e^-x) there "
       "(and inf in f32 above 88.7)", style="logf(1+expf(x))"),
    ew("elu", f"y = {F}.elu(x)", style="expm1f, alpha argument",
       params=EW["params"] + [("alpha", {"value": 1.0})]),
    ew("selu", "y = torch.selu(x)", style="long literal constants"),
    ew("hardtanh", f"y = {F}.hardtanh(x)", style="fminf(fmaxf())"),
    ew("hardsigmoid", f"y = {F}.hardsigmoid(x)", style="if/else chain"),
    ew("hardswish", f"y = {F}.hardswish(x)", style="relu6 by fminf/fmaxf"),
    ew("softsign", f"y = {F}.softsign(x)", style="fabsf"),
    ew("mish", f"y = {F}.mish(x)", style="tanhf(logf(1+expf(x)))"),
    ew("tanh_act", "y = torch.tanh(x)", style="tanhf"),
    ew("relu_tail_unwritten", "y = torch.relu(x)", "refuted",
       "the bound check is idx < n - 1: y[n - 1] is never written (lift refutes an unwritten element)", style="off-by-one bound"),
    ew("relu_float4", "y = torch.relu(x)", style="float4 loads and stores, scalar tail",
       grid=["cdiv(N, 1024)"], sizes={"N": 258}),
    # softmax family
    k("softmax_smem", ROW_B, rows(["M", "N"], "y"), "y = torch.softmax(x, dim=-1)",
      "block per row, shared trees, -FLT_MAX seed"),
    k("softmax_warp", WARP, rows(["M", "N"], "y"), "y = torch.softmax(x, dim=1)",
      "warp per row, __shfl_xor_sync, -INFINITY seed, __expf"),
    k("softmax_online", ROW_T, rows(["M", "N"], "y"), "y = torch.softmax(x, dim=-1)",
      "online softmax, thread per row"),
    k("softmax_no_max", ROW_T, rows(["M", "N"], "y"), "y = torch.softmax(x, dim=-1)",
      "no max subtraction (equal over the reals)"),
    k("softmax_missing_sync", ROW_B, rows(["M", "N"], "y"), "y = torch.softmax(x, dim=-1)",
      "block per row, shared trees", "race",
      "no __syncthreads() inside the max tree: step s reads sdata[tid + s] written in the step before"),
    k("log_softmax", ROW_B, rows(["M", "N"], "y"), f"y = {F}.log_softmax(x, dim=1)",
      "dynamic shared memory, conditional max tree"),
    # reductions over a dim
    k("rowmax_if", ROW_T, rows(), MAX_SPEC, "if (v > m) m = v from -FLT_MAX"),
    k("rowmax_seed_zero", ROW_T, rows(), "out = torch.max(x, dim=1)[0]", "fmaxf from 0",
      "refuted", "the running max starts at 0: a row of negative values gives 0"),
    k("rowmax_seed_1e10", ROW_T, rows(), MAX_SPEC, "ternary from -1e10", "refuted",
      "the finite seed -1e10 is returned for a row whose values are all below -1e10"),
    k("max_warp_shuffle", WARP, rows(), "out = torch.max(x, dim=-1).values",
      "__shfl_down_sync, warpSize, -FLT_MAX seed"),
    k("min_ternary", ROW_T, rows(), "out = torch.amin(x, dim=1)", "ternary from FLT_MAX"),
    k("argmax_thread", ROW_T, rows(dtype="int64"), "out = torch.argmax(x, dim=1)",
      "if (v > best) from -FLT_MAX, long long out"),
    k("argmax_last_tie", ROW_T, rows(dtype="int64"), "out = torch.argmax(x, dim=1)",
      "if (v >= best)", "refuted", "`>=` keeps the last of tied maxima; PyTorch returns the first"),
    k("argmax_warp_shuffle", dict(WARP, sizes={"M": 2, "N": 70}), rows(dtype="int64"),
      "out = torch.argmax(x, dim=1)", "(value, index) __shfl_down_sync, ties to the lower index"),
    k("argmax_warp_shuffle_ties", dict(WARP, sizes={"M": 2, "N": 70}), rows(dtype="int64"),
      "out = torch.argmax(x, dim=1)", "(value, index) __shfl_down_sync with >=", "refuted",
      "`ov >= best` gives a tie to the lane above, whose index is higher: not the first index"),
    k("argmin_smem", ROW_B, rows(dtype="int64"), "out = torch.argmin(x, dim=1)",
      "(value, index) shared tree, ties to the lower index"),
    k("prod_thread", ROW_T, rows(), "out = torch.prod(x, dim=1)", "running product"),
    k("sum_dim1_thread", dict(block=[64], grid=["cdiv(B * C, 64)"], sizes={"B": 2, "R": 5, "C": 6}),
      [("x", T("x", ["B", "R", "C"])), ("out", T("out", ["B", "C"], "out")), ("B", "B"), ("R", "R"),
       ("C", "C")], "out = torch.sum(x, dim=1)", "thread per output, strided reads"),
    k("mean_smem_tree", ROW_B, rows(), "out = torch.mean(x, dim=1)", "power-of-two halving tree"),
    k("sum_tree_any_block", dict(ROW_B, block=[48]), rows(), "out = x.sum(dim=1)",
      "rounded-up halving, blockDim 48"),
    k("sum_tree_pow2_only", dict(ROW_B, block=[48]), rows(), "out = x.sum(dim=1)",
      "power-of-two halving, blockDim 48", "refuted",
      "blockDim 48 halves to 24, 12, 6, 3, 1: the partial in s[2] is never added"),
    k("rowsum_float4", dict(ROW_T, sizes={"M": 3, "N": 20}), rows(), "out = torch.sum(x, dim=-1)",
      "float4 loads, scalar tail"),
    k("rowsum_reads_past_row", ROW_T, rows(), "out = torch.sum(x, dim=-1)", "loop bound j <= cols",
      "fault", "j <= cols reads one element past each row: past the end of x on the last row"),
    k("rowsum_float4_tail_off_by_one", dict(ROW_T, sizes={"M": 3, "N": 22}), rows(),
      "out = torch.sum(x, dim=-1)", "float4 loads, scalar tail", "refuted",
      "the tail loop starts at n4 * 4 + 1: x[:, 20] is never added"),
    # norms
    k("layernorm_smem", dict(ROW_B, sizes={"M": 2, "N": 40}), [("x", T("x", ["M", "N"])), ("gamma", T("w", ["N"])),
                                 ("beta", T("b", ["N"])), ("y", T("y", ["M", "N"], "out")),
                                 ("rows", "M"), ("cols", "N")],
      f"y = {F}.layer_norm(x, (N,), w, b, eps=1e-5)", "sum and sum of squares trees, rsqrtf"),
    k("layernorm_double", ROW_T, rows(["M", "N"], "y"), f"y = {F}.layer_norm(x, (N,))",
      "double statistics, two passes"),
    k("rmsnorm_warp", WARP, [("x", T("x", ["M", "N"])), ("w", T("w", ["N"])),
                              ("y", T("y", ["M", "N"], "out")), ("rows", "M"), ("cols", "N"),
                              ("eps", {"scalar": "eps"})],
      "y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w", "warp shuffles"),
    k("rmsnorm_extra_eps", ROW_T, [("x", T("x", ["M", "N"])), ("w", T("w", ["N"])),
                                    ("y", T("y", ["M", "N"], "out")), ("rows", "M"), ("cols", "N"),
                                    ("eps", {"scalar": "eps"})],
      "y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w", "thread per row",
      "refuted", "eps added twice: sqrt(ms + eps) + eps"),
    k("l2_normalize", ROW_T, rows(["M", "N"], "y"), f"y = {F}.normalize(x, dim=1)",
      "fmaxf clamp of the norm"),
    k("l2_normalize_eps_added", ROW_T, rows(["M", "N"], "y"), f"y = {F}.normalize(x, p=2, dim=1)",
      "+ 1e-6 on the norm", "refuted",
      "divides by ||x|| + 1e-6 where F.normalize divides by max(||x||, 1e-12): visible for small rows"),
    k("frobenius_norm", dict(block=[128], grid=[1], sizes={"M": 10, "N": 20}),
      [("x", T("x", ["M", "N"])), ("y", T("y", ["M", "N"], "out")), ("n", "M * N")],
      "y = x / torch.norm(x, p='fro')", "one block, grid-stride, shared tree"),
    # losses
    k("mse_loss", LOSS1, PT, f"out = {F}.mse_loss(p, t)", "one block, shared tree"),
    k("huber_loss", LOSS1, PT, f"out = {F}.smooth_l1_loss(p, t)",
      "ternary, __shfl_down_sync, warp partials"),
    k("huber_no_half", LOSS1, PT, f"out = {F}.smooth_l1_loss(p, t)", "ternary, shared tree",
      "refuted", "the linear branch is |d| instead of |d| - 0.5"),
    k("cross_entropy_soft", ROW_T, [("logits", T("x", ["M", "N"])), ("targets", T("t", ["M", "N"])),
                                     ("loss", T("loss", ["M"], "out")), ("rows", "M"), ("cols", "N")],
      "loss = -(t * torch.log_softmax(x, dim=1)).sum(dim=1)", "logsumexp from -FLT_MAX"),
    k("kl_div", dict(block=[128], grid=[1], sizes={"B": 4, "D": 50}),
      [("p", T("p", ["B", "D"])), ("q", T("q", ["B", "D"])), ("out", T("out", [], "out")),
       ("batch", "B"), ("n", "B * D")],
      f"out = {F}.kl_div(torch.log(p), q, reduction='batchmean')", "logf difference, shared tree", "refuted",
      "q = 0 gives 0 * (log 0 - log p) = NaN where PyTorch's xlogy gives 0"),
    k("kl_div_guarded", dict(block=[128], grid=[1], sizes={"B": 4, "D": 50}),
      [("lp", T("lp", ["B", "D"])), ("q", T("q", ["B", "D"])), ("out", T("out", [], "out")),
       ("batch", "B"), ("n", "B * D")],
      f"out = {F}.kl_div(lp, q, reduction='batchmean')", "q > 0 ternary, shared tree"),
    k("cosine_loss", dict(block=[64], grid=[1], sizes={"M": 8, "N": 16}),
      [("a", T("a", ["M", "N"])), ("b", T("b", ["M", "N"])), ("out", T("out", [], "out")),
       ("rows", "M"), ("cols", "N")],
      f"out = torch.mean(1 - {F}.cosine_similarity(a, b, dim=1))", "eps clamps, shared tree"),
    k("cosine_sim_eps_sum", ROW_T, [("a", T("a", ["M", "N"])), ("b", T("b", ["M", "N"])),
                                     ("out", T("out", ["M"], "out")), ("rows", "M"), ("cols", "N")],
      f"out = {F}.cosine_similarity(a, b, dim=1)", "+ 1e-8 on the norm product", "refuted",
      "divides by |a||b| + 1e-8 where PyTorch divides by max(|a|, 1e-8) max(|b|, 1e-8)"),
    k("hinge_loss", dict(LOSS1, sizes={"N": 200}), PT,
      "out = torch.mean(torch.clamp(1 - p * t, min=0))", "fmaxf(0, ...), shared tree"),
    # scans
    k("cumsum_thread", ROW_T, rows(["M", "N"], "y"), "y = torch.cumsum(x, dim=1)",
      "sequential scan, thread per row"),
    k("cumsum_hillis_steele", dict(block=[32], grid=["M"], sizes={"M": 2, "N": 32}),
      rows(["M", "N"], "y"), "y = torch.cumsum(x, dim=1)", "Hillis-Steele, double buffer"),
    k("cumsum_in_place_racy", dict(block=[32], grid=["M"], sizes={"M": 2, "N": 32}),
      rows(["M", "N"], "y"), "y = torch.cumsum(x, dim=1)", "Hillis-Steele in place", "race",
      "buf[tid] += buf[tid - off] reads a slot another thread writes in the same step"),
    k("cumsum_exclusive", ROW_T, rows(["M", "N"], "y"), "y = torch.cumsum(x, dim=1)",
      "sequential scan", "refuted", "stores before adding: an exclusive scan"),
    # pooling and convolution
    k("maxpool1d", dict(block=[64], grid=["cdiv(N * C * 7, 64)"], sizes={"N": 2, "C": 2, "L": 16}),
      [("x", T("x", ["N", "C", "L"])), ("y", T("y", ["N", "C", "(L - 4) // 2 + 1"], "out")),
       ("NC", "N * C"), ("L", "L"), ("L_out", "(L - 4) // 2 + 1")],
      f"y = {F}.max_pool1d(x, kernel_size=4, stride=2)", "window loop from -FLT_MAX"),
    k("avgpool1d", dict(block=[64], grid=["cdiv(N * C * 8, 64)"], sizes={"N": 2, "C": 2, "L": 15}),
      [("x", T("x", ["N", "C", "L"])), ("y", T("y", ["N", "C", "(L - 1) // 2 + 1"], "out")),
       ("NC", "N * C"), ("L", "L"), ("L_out", "(L - 1) // 2 + 1")],
      f"y = {F}.avg_pool1d(x, 3, stride=2, padding=1)", "padding by bounds test"),
    k("avgpool1d_window_off_by_one",
      dict(block=[64], grid=["cdiv(N * C * 7, 64)"], sizes={"N": 2, "C": 2, "L": 17}),
      [("x", T("x", ["N", "C", "L"])), ("y", T("y", ["N", "C", "(L - 4) // 2 + 1"], "out")),
       ("NC", "N * C"), ("L", "L"), ("L_out", "(L - 4) // 2 + 1")],
      f"y = {F}.avg_pool1d(x, kernel_size=4, stride=2)", "window loop", "refuted",
      "k <= K sums five elements per window of four"),
    k("maxpool2d", dict(block=[64], grid=[1], sizes={"N": 1, "C": 2, "H": 6, "W": 8}),
      [("x", T("x", ["N", "C", "H", "W"])), ("y", T("y", ["N", "C", "H // 2", "W // 2"], "out")),
       ("NC", "N * C"), ("H", "H"), ("W", "W")],
      f"y = {F}.max_pool2d(x, 2)", "ternary from -INFINITY"),
    k("conv1d", dict(block=[64], grid=["cdiv(N * Co * (L - K + 1), 64)"],
                     sizes={"N": 2, "Ci": 3, "L": 10, "Co": 4, "K": 3}),
      [("x", T("x", ["N", "Ci", "L"])), ("w", T("w", ["Co", "Ci", "K"])),
       ("y", T("y", ["N", "Co", "L - K + 1"], "out")), ("N", "N"), ("Cin", "Ci"), ("L", "L"),
       ("Cout", "Co"), ("K", "K")],
      f"y = {F}.conv1d(x, w)", "thread per output"),
    k("conv1d_padded", dict(block=[64], grid=["cdiv(N * Co * ((L - K + 2) // 2 + 1), 64)"],
                            sizes={"N": 2, "Ci": 2, "L": 9, "Co": 3, "K": 3}),
      [("x", T("x", ["N", "Ci", "L"])), ("w", T("w", ["Co", "Ci", "K"])), ("bias", T("b", ["Co"])),
       ("y", T("y", ["N", "Co", "(L - K + 2) // 2 + 1"], "out")), ("N", "N"), ("Cin", "Ci"),
       ("L", "L"), ("Cout", "Co"), ("K", "K"), ("Lout", "(L - K + 2) // 2 + 1")],
      f"y = {F}.conv1d(x, w, b, stride=2, padding=1)", "padding by bounds test, bias"),
    # matmul variants
    k("matmul_naive", dict(block=[16, 16], grid=["cdiv(N, 16)", "cdiv(N, 16)"], sizes={"N": 12}),
      [("A", T("A", ["N", "N"])), ("B", T("B", ["N", "N"])), ("C", T("C", ["N", "N"], "out")),
       ("N", "N")], "C = torch.matmul(A, B)", "square, thread per output"),
    k("matmul_tiled", dict(block=[16, 16], grid=["cdiv(N, 16)", "cdiv(M, 16)"],
                           sizes={"M": 20, "N": 12, "K": 18}),
      [("A", T("A", ["M", "K"])), ("B", T("B", ["K", "N"])), ("C", T("C", ["M", "N"], "out")),
       ("M", "M"), ("N", "N"), ("K", "K")], "C = A @ B", "rectangular, 16x16 shared tiles"),
    k("matmul_tiled_missing_sync", dict(block=[16, 16], grid=["cdiv(N, 16)", "cdiv(M, 16)"],
                                        sizes={"M": 20, "N": 12, "K": 18}),
      [("A", T("A", ["M", "K"])), ("B", T("B", ["K", "N"])), ("C", T("C", ["M", "N"], "out")),
       ("M", "M"), ("N", "N"), ("K", "K")], "C = A @ B", "rectangular, 16x16 shared tiles", "race",
      "no __syncthreads() after the products: the next tile's loads overwrite As/Bs still read"),
    k("matmul_transposed_a", dict(block=[8, 8], grid=[1, 1], sizes={"M": 6, "N": 5, "K": 7}),
      [("A", T("A", ["K", "M"])), ("B", T("B", ["K", "N"])), ("C", T("C", ["M", "N"], "out")),
       ("M", "M"), ("N", "N"), ("K", "K")], "C = A.T @ B", "transposed operand"),
    k("bmm", dict(block=[8, 8], grid=[1, 1, "Bt"], sizes={"Bt": 2, "M": 5, "N": 6, "K": 4}),
      [("A", T("A", ["Bt", "M", "K"])), ("B", T("B", ["Bt", "K", "N"])),
       ("C", T("C", ["Bt", "M", "N"], "out")), ("M", "M"), ("N", "N"), ("K", "K")],
      "C = torch.bmm(A, B)", "blockIdx.z batch"),
    k("matvec_warp", dict(block=[32], grid=["M"], sizes={"M": 4, "K": 40}),
      [("A", T("A", ["M", "K"])), ("x", T("x", ["K"])), ("y", T("y", ["M"], "out")), ("M", "M"),
       ("K", "K")], "y = torch.matmul(A, x)", "warp per row, __shfl_down_sync"),
    k("diag_matmul", dict(block=[64], grid=["cdiv(N * M, 64)"], sizes={"N": 6, "M": 7}),
      [("a", T("a", ["N"])), ("B", T("B", ["N", "M"])), ("C", T("C", ["N", "M"], "out")),
       ("N", "N"), ("M", "M")], "C = torch.diag(a) @ B", "diag(a) @ B as a row scale"),
    k("tril_matmul", dict(block=[8, 8], grid=[1, 1], sizes={"N": 8}),
      [("A", T("A", ["N", "N"])), ("B", T("B", ["N", "N"])), ("C", T("C", ["N", "N"], "out")),
       ("N", "N")], "C = torch.tril(torch.matmul(A, B))", "k from col to row", "refuted",
      "the k loop skips k < col and k > row: right only when A and B are lower triangular",
      also=[("C = torch.tril(torch.tril(A) @ torch.tril(B))", "verified", None)]),
    k("tril_matmul_full", dict(block=[8, 8], grid=[1, 1], sizes={"N": 8}),
      [("A", T("A", ["N", "N"])), ("B", T("B", ["N", "N"])), ("C", T("C", ["N", "N"], "out")),
       ("N", "N")], "C = torch.tril(torch.matmul(A, B))", "full k loop, triangle mask"),
]

# --- Triton -----------------------------------------------------------------------

TEW = dict(grid=["cdiv(N, 64)"], sizes={"N": 200}, constexprs={"BLOCK": 64})
TEW_P = [("x_ptr", T("x", ["N"])), ("y_ptr", T("y", ["N"], "out")), ("n", "N")]
TROW = dict(grid=["M"], sizes={"M": 3, "N": 20}, constexprs={"BLOCK": 32})
TROW_P = [("x_ptr", T("x", ["M", "N"])), ("y_ptr", T("y", ["M", "N"], "out")), ("n_cols", "N")]
TRED_P = [("x_ptr", T("x", ["M", "N"])), ("out_ptr", T("out", ["M"], "out")), ("n_cols", "N")]


def t(name, base, params, spec, style, expect="verified", bug=None, **kw):
    d = dict(base, name=name, params=params, spec=spec, expect=expect, style=style, **kw)
    if bug:
        d["bug"] = bug
    return d


TRITON = [
    t("t_relu_where", TEW, TEW_P, "y = torch.relu(x)", "tl.where(x > 0, x, 0)"),
    t("t_abs_sign", TEW, TEW_P, "y = torch.abs(x)", "integer select: tl.where(x < 0, -1, 1) * x"),
    t("t_leaky_relu", TEW, TEW_P, f"y = {F}.leaky_relu(x, 0.01)", "constant 0.01 in the kernel"),
    t("t_hardsigmoid_int", TEW, TEW_P, f"y = {F}.hardsigmoid(x)",
      "nested tl.where with integer 0 and 1"),
    t("t_bias_flag", dict(TEW, sizes={"N": 200}),
      [("x_ptr", T("x", ["N"])), ("b_ptr", T("b", ["N"])), ("y_ptr", T("y", ["N"], "out")),
       ("n", "N"), ("has_bias", 1)], "y = x + b", "runtime flag: if has_bias"),
    t("t_bias_flag_off", dict(TEW, sizes={"N": 200}),
      [("x_ptr", T("x", ["N"])), ("b_ptr", T("b", ["N"])), ("y_ptr", T("y", ["N"], "out")),
       ("n", "N"), ("has_bias", 0)], "y = x + b", "runtime flag: if has_bias", "refuted",
      "launched with has_bias = 0: the bias is never added", function="t_bias_flag"),
    t("t_gelu_tanh", TEW, TEW_P, f"y = {F}.gelu(x)", "tanh GELU via exp", "refuted",
      "the tanh approximation is not the exact (erf) GELU",
      also=[(f"y = {F}.gelu(x, approximate='tanh')", "verified", None)]),
    t("t_swish", TEW, TEW_P, f"y = {F}.silu(x)", "x * tl.sigmoid(x)"),
    t("t_softmax", TROW, TROW_P, "y = torch.softmax(x, dim=-1)", "row per program, other=-inf"),
    t("t_softmax_no_other", TROW, TROW_P, "y = torch.softmax(x, dim=-1)",
      "row per program, load without other", "undefined",
      "the masked lanes of the load are undefined (zero on NVIDIA): they enter the max and the sum"),
    t("t_rowsum_mask_wrong_axis", dict(TROW, sizes={"M": 3, "N": 20}), TRED_P,
      "out = torch.sum(x, dim=1)", "mask on the wrong axis", "refuted",
      "the mask compares column offsets with the number of rows (3): columns 3.. are dropped"),
    t("t_rowsum", TROW, TRED_P, "out = torch.sum(x, dim=1)", "tl.sum, other=0"),
    t("t_rowmax", TROW, TRED_P, "out = torch.amax(x, dim=1)", "tl.max, other=-float('inf')"),
    t("t_argmax", TROW, [("x_ptr", T("x", ["M", "N"])), ("out_ptr", T("out", ["M"], "out", dtype="int64")),
                         ("n_cols", "N")], "out = torch.argmax(x, dim=1)", "tl.argmax"),
    t("t_argmin", TROW, [("x_ptr", T("x", ["M", "N"])), ("out_ptr", T("out", ["M"], "out", dtype="int64")),
                         ("n_cols", "N")], "out = torch.argmin(x, dim=1)", "tl.argmin, other=inf"),
    t("t_argmax_fast_ties", TROW, [("x_ptr", T("x", ["M", "N"])),
                                   ("out_ptr", T("out", ["M"], "out", dtype="int64")), ("n_cols", "N")],
      "out = torch.argmax(x, dim=1)", "tl.argmax(tie_break_left=False)", "refuted",
      "without tie_break_left a tie goes to the second operand of each combine: not always the "
      "first index, which PyTorch returns"),
    t("t_missing_pid", TEW, TEW_P, "y = torch.relu(x)", "offsets without program_id", "refuted",
      "every program handles the first block: y[64:] is never written"),
    t("t_layernorm", TROW, [("x_ptr", T("x", ["M", "N"])), ("w_ptr", T("w", ["N"])),
                            ("b_ptr", T("b", ["N"])), ("y_ptr", T("y", ["M", "N"], "out")),
                            ("n_cols", "N"), ("eps", {"scalar": "eps"})],
      f"y = {F}.layer_norm(x, (N,), w, b, eps)", "two-pass mean/var"),
    t("t_rmsnorm_eps_outside", TROW, [("x_ptr", T("x", ["M", "N"])), ("w_ptr", T("w", ["N"])),
                                      ("y_ptr", T("y", ["M", "N"], "out")), ("n_cols", "N"),
                                      ("eps", {"scalar": "eps"})],
      "y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w", "eps outside the root",
      "refuted", "1 / (sqrt(ms) + eps) instead of 1 / sqrt(ms + eps)"),
    t("t_cumsum", TROW, TROW_P, "y = torch.cumsum(x, dim=1)", "tl.cumsum"),
    t("t_mse_rows", TROW, TRED_P[:1] + [("t_ptr", T("t", ["M", "N"])), TRED_P[1], TRED_P[2]],
      f"out = {F}.mse_loss(x, t, reduction='none').mean(dim=1)", "row-wise mean of squares"),
    t("t_matmul", dict(grid=["cdiv(M, 16)", "cdiv(N, 16)"], sizes={"M": 20, "N": 12, "K": 24},
                       constexprs={"BM": 16, "BN": 16, "BK": 16}),
      [("a_ptr", T("A", ["M", "K"])), ("b_ptr", T("B", ["K", "N"])), ("c_ptr", T("C", ["M", "N"], "out")),
       ("M", "M"), ("N", "N"), ("K", "K")], "C = A @ B", "tl.dot with K-loop masks"),
]
