//! The op table: every name the spec language accepts (`SUPPORTED`, with aliases
//! resolved by `canonical`), each op's PyTorch parameters (`params`, which `args::bind`
//! binds a call to), and how each op is read for every size (`all_sizes`). Both readings
//! of a spec look an op up here; a leaf module (it uses nothing of the op library).

/// Every accepted function/method name (aliases included), for error messages.
pub(crate) const SUPPORTED: &[&str] = &[
    // elementwise
    "abs",
    "absolute",
    "neg",
    "negative",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log1p",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "square",
    "pow",
    "sin",
    "cos",
    "tanh",
    "erf",
    "floor",
    "ceil",
    "round",
    "sign",
    "sigmoid",
    "expit",
    "relu",
    "relu6",
    "leaky_relu",
    "gelu",
    "silu",
    "softplus",
    "elu",
    "hardtanh",
    "selu",
    "hardsigmoid",
    "hardswish",
    "mish",
    "softsign",
    "logsigmoid",
    "celu",
    "softshrink",
    "hardshrink",
    "tanhshrink",
    "threshold",
    "clamp",
    "clip",
    "glu",
    "where",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "add",
    "sub",
    "subtract",
    "mul",
    "multiply",
    "div",
    "divide",
    "true_divide",
    "floor_divide",
    "remainder",
    "fmod",
    "gt",
    "lt",
    "ge",
    "le",
    "eq",
    "ne",
    "greater",
    "less",
    "greater_equal",
    "less_equal",
    "not_equal",
    // reductions
    "sum",
    "mean",
    "prod",
    "var",
    "std",
    "amax",
    "amin",
    "max",
    "min",
    "softmax",
    "softmin",
    "log_softmax",
    "logsumexp",
    "cross_entropy",
    "nll_loss",
    "gather",
    "embedding",
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "kl_div",
    "cosine_similarity",
    "hinge_embedding_loss",
    "triplet_margin_loss",
    "layer_norm",
    "rms_norm",
    "normalize",
    "norm",
    "vector_norm",
    "argmax",
    "argmin",
    // pooling and convolution
    "max_pool1d",
    "max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "conv1d",
    "conv2d",
    // linear algebra
    "matmul",
    "mm",
    "bmm",
    "linear",
    // layout
    "transpose",
    "flip",
    "diag",
    "tril",
    "triu",
    "cumsum",
    "cumprod",
    "t",
    "permute",
    "reshape",
    "view",
    "flatten",
    "unsqueeze",
    "squeeze",
    "expand",
    "chunk",
    "split",
    "cat",
    "concat",
    "concatenate",
    "stack",
    "contiguous",
    "clone",
    "detach",
    "float",
    "double",
    "half",
    "bfloat16",
    "to",
    "bool",
    "long",
    "int",
    "masked_fill",
    "size",
    "dim",
    // creation
    "zeros",
    "ones",
    "full",
    "arange",
    "zeros_like",
    "ones_like",
    "full_like",
];

/// The canonical op a name (function or method) stands for.
pub(crate) fn canonical(name: &str) -> Option<&'static str> {
    let n = match name {
        "absolute" => "abs",
        "negative" => "neg",
        "expit" => "sigmoid",
        "clip" => "clamp",
        "subtract" => "sub",
        "multiply" => "mul",
        "divide" | "true_divide" => "div",
        "greater" => "gt",
        "less" => "lt",
        "greater_equal" => "ge",
        "less_equal" => "le",
        "not_equal" => "ne",
        "concat" | "concatenate" => "cat",
        "view" => "reshape",
        "detach" | "clone" => "contiguous",
        _ => name,
    };
    SUPPORTED.iter().find(|&&s| s == n).copied()
}

/// The op a function of Python's `math` on one number stands for (`math.fabs` is `abs`).
pub(crate) fn math_function(name: &str) -> Option<&'static str> {
    match name {
        "sqrt" | "exp" | "log" | "log2" | "log1p" | "expm1" | "sin" | "cos" | "tanh" | "erf"
        | "floor" | "ceil" => canonical(name),
        "fabs" => canonical("abs"),
        _ => None,
    }
}

/// PyTorch's parameter names of each op; a leading `*` collects the remaining positional
/// arguments (`x.permute(1, 0)`, `torch.zeros(2, 3)`).
pub(crate) fn params(op: &str) -> &'static [&'static str] {
    match op {
        "relu" | "relu6" | "selu" | "hardsigmoid" | "hardswish" | "mish" => &["input", "inplace"],
        "leaky_relu" => &["input", "negative_slope", "inplace"],
        "gelu" => &["input", "approximate"],
        "softplus" => &["input", "beta", "threshold"],
        "elu" | "celu" => &["input", "alpha", "inplace"],
        "softshrink" | "hardshrink" => &["input", "lambd"],
        "threshold" => &["input", "threshold", "value", "inplace"],
        "hardtanh" => &["input", "min_val", "max_val", "inplace"],
        "clamp" => &["input", "min", "max"],
        "glu" => &["input", "dim"],
        "pow" => &["input", "exponent"],
        "where" => &["condition", "input", "other"],
        "masked_fill" => &["input", "mask", "value"],
        "add" | "sub" => &["input", "other", "alpha"],
        "div" => &["input", "other", "rounding_mode"],
        "maximum" | "minimum" | "fmax" | "fmin" | "mul" | "floor_divide" | "remainder" | "fmod"
        | "gt" | "lt" | "ge" | "le" | "eq" | "ne" | "matmul" | "mm" | "bmm" => &["input", "other"],
        "sum" | "mean" => &["input", "dim", "keepdim", "dtype"],
        "prod" | "amax" | "amin" | "max" | "min" | "logsumexp" => &["input", "dim", "keepdim"],
        "var" | "std" => &["input", "dim", "unbiased", "keepdim", "correction"],
        "softmax" | "softmin" | "log_softmax" => &["input", "dim", "dtype"],
        "gather" => &["input", "dim", "index", "sparse_grad"],
        "embedding" => &[
            "input",
            "weight",
            "padding_idx",
            "max_norm",
            "norm_type",
            "scale_grad_by_freq",
            "sparse",
        ],
        "nll_loss" => &[
            "input",
            "target",
            "weight",
            "size_average",
            "ignore_index",
            "reduce",
            "reduction",
        ],
        "cross_entropy" => &[
            "input",
            "target",
            "weight",
            "size_average",
            "ignore_index",
            "reduce",
            "reduction",
            "label_smoothing",
        ],
        "mse_loss" | "l1_loss" => &[
            "input",
            "target",
            "size_average",
            "reduce",
            "reduction",
            "weight",
        ],
        "smooth_l1_loss" => &[
            "input",
            "target",
            "size_average",
            "reduce",
            "reduction",
            "beta",
        ],
        "huber_loss" => &["input", "target", "reduction", "delta", "weight"],
        "kl_div" => &[
            "input",
            "target",
            "size_average",
            "reduce",
            "reduction",
            "log_target",
        ],
        "cosine_similarity" => &["x1", "x2", "dim", "eps"],
        "hinge_embedding_loss" => &[
            "input",
            "target",
            "margin",
            "size_average",
            "reduce",
            "reduction",
        ],
        "triplet_margin_loss" => &[
            "anchor",
            "positive",
            "negative",
            "margin",
            "p",
            "eps",
            "swap",
            "size_average",
            "reduce",
            "reduction",
        ],
        "layer_norm" => &["input", "normalized_shape", "weight", "bias", "eps"],
        "rms_norm" => &["input", "normalized_shape", "weight", "eps"],
        "normalize" => &["input", "p", "dim", "eps"],
        "norm" => &["input", "p", "dim", "keepdim", "dtype"],
        "vector_norm" => &["x", "ord", "dim", "keepdim", "dtype"],
        "argmax" | "argmin" => &["input", "dim", "keepdim"],
        "linear" => &["input", "weight", "bias"],
        "max_pool1d" | "max_pool2d" => &[
            "input",
            "kernel_size",
            "stride",
            "padding",
            "dilation",
            "ceil_mode",
            "return_indices",
        ],
        "avg_pool1d" => &[
            "input",
            "kernel_size",
            "stride",
            "padding",
            "ceil_mode",
            "count_include_pad",
        ],
        "avg_pool2d" => &[
            "input",
            "kernel_size",
            "stride",
            "padding",
            "ceil_mode",
            "count_include_pad",
            "divisor_override",
        ],
        "conv1d" | "conv2d" => &[
            "input", "weight", "bias", "stride", "padding", "dilation", "groups",
        ],
        "transpose" => &["input", "dim0", "dim1"],
        "permute" | "flip" => &["input", "*dims"],
        "diag" | "tril" | "triu" => &["input", "diagonal"],
        "cumsum" | "cumprod" => &["input", "dim", "dtype"],
        "reshape" => &["input", "*shape"],
        "expand" => &["input", "*size"],
        "flatten" => &["input", "start_dim", "end_dim"],
        "unsqueeze" => &["input", "dim"],
        "squeeze" => &["input", "dim"],
        "chunk" => &["input", "chunks", "dim"],
        "split" => &["input", "split_size_or_sections", "dim"],
        "cat" | "stack" => &["tensors", "dim"],
        "contiguous" | "float" | "double" | "half" | "bfloat16" => &["input", "*args"],
        "to" => &["input", "*args", "dtype"],
        "size" => &["input", "dim"],
        "zeros" | "ones" => &["*size", "dtype", "device"],
        "full" => &["size", "fill_value", "dtype", "device"],
        "arange" => &["start", "end", "step", "dtype", "device"],
        // Triton's random stream (`random.rs`): reached as `tl.rand` only, so not among
        // the torch names of `SUPPORTED`
        "tl.rand" => &["seed", "offset"],
        "zeros_like" | "ones_like" => &["input", "dtype"],
        "full_like" => &["input", "fill_value", "dtype"],
        _ => &["input"],
    }
}

/// Ops PyTorch has that specs cannot express, with the reason.
pub(crate) fn unsupported_reason(name: &str) -> Option<&'static str> {
    match name {
        "index_select" | "one_hot" | "topk" | "sort" => {
            Some("needs integer indices or targets, which specs cannot express (tensors are real)")
        }
        "dropout" => Some("is random"),
        _ => None,
    }
}

/// How an op is read for every size (`sizes`), beside its instance definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AllSizes {
    /// Acts on each element alone (its tensor arguments broadcast): the instance
    /// definition itself is run on one placeholder scalar per tensor argument and the
    /// term it builds is read back as a formula (`sizes::pointwise`).
    Elementwise,
    /// Changes shapes: a formula written in `sizes::ops` after the instance definition.
    Formula,
    /// Not read for every size, and why (the check falls back to the instance verdict).
    Refused(&'static str),
}

/// How the canonical op `op` is read for every size.
pub(crate) fn all_sizes(op: &str) -> AllSizes {
    use AllSizes::*;
    match op {
        "abs" | "neg" | "exp" | "exp2" | "expm1" | "log" | "log2" | "log1p" | "sqrt" | "rsqrt"
        | "reciprocal" | "square" | "pow" | "sin" | "cos" | "tanh" | "erf" | "sigmoid" | "relu"
        | "relu6" | "leaky_relu" | "gelu" | "silu" | "softplus" | "elu" | "hardtanh" | "selu"
        | "hardsigmoid" | "hardswish" | "mish" | "softsign" | "logsigmoid" | "celu"
        | "softshrink" | "hardshrink" | "tanhshrink" | "threshold" | "clamp" | "where"
        | "maximum" | "minimum" | "fmax" | "fmin" | "add" | "sub" | "mul" | "div" | "gt" | "lt"
        | "ge" | "le" | "eq" | "ne" => Elementwise,
        // Half to even: the formula op `rint`.
        "round" => Elementwise,
        // To a float type: the value itself (a bool's 0 or 1), as at the instance; a
        // narrowing dtype or a cast to an integer type is refused by the definition.
        "float" | "double" | "to" => Elementwise,
        "masked_fill" | "contiguous" | "sum" | "mean" | "amax" | "amin" | "prod" | "argmax"
        | "argmin" | "cumsum" | "cumprod" | "tril" | "triu" | "softmax" | "softmin"
        | "log_softmax" | "var" | "std" | "logsumexp" | "linear" | "layer_norm" | "matmul"
        | "mm" | "t" | "unsqueeze" | "cat" | "reshape" | "zeros" | "ones" => Formula,
        // `arange(n)` and Triton's random stream at its offsets (`sizes::shape_ops`).
        "arange" | "tl.rand" => Formula,
        // Over class indices with reduction='none' (`sizes::shape_ops`): `take`.
        "cross_entropy" | "nll_loss" | "embedding" => Formula,
        "floor" | "ceil" | "sign" | "floor_divide" | "remainder" | "fmod" => Refused(
            "rounding and integer division are not among the formula ops the all-sizes \
             prover reads",
        ),
        "max" | "min" => Refused(
            "max/min are read only as their unambiguous forms (amax/amin over dims, \
             maximum/minimum elementwise)",
        ),
        "glu" | "chunk" | "split" => {
            Refused("splits an axis into parts whose extents are not read for every size")
        }
        "gather" => Refused("indexes by integer tensors, which formulas over sizes do not read"),
        "mse_loss"
        | "l1_loss"
        | "smooth_l1_loss"
        | "huber_loss"
        | "kl_div"
        | "hinge_embedding_loss"
        | "triplet_margin_loss"
        | "cosine_similarity" => Refused("no formula over sizes is written for the losses yet"),
        "rms_norm" | "normalize" | "norm" | "vector_norm" => {
            Refused("no formula over sizes is written for these norms yet")
        }
        "max_pool1d" | "max_pool2d" | "avg_pool1d" | "avg_pool2d" | "conv1d" | "conv2d" => {
            Refused("windows over an axis are not read for every size")
        }
        "bmm" => Refused("only 2-D matrix products are read for every size"),
        "transpose" | "flip" | "diag" | "permute" | "flatten" | "squeeze" | "expand" | "stack" => {
            Refused("no formula over sizes is written for this layout op yet")
        }
        "half" | "bfloat16" | "bool" | "long" | "int" => {
            Refused("conversions are not read for every size")
        }
        "size" | "dim" => Refused("read the shape as `x.shape[d]` or `x.ndim` instead"),
        "full" | "zeros_like" | "ones_like" | "full_like" => {
            Refused("no formula over sizes is written for this creation op yet")
        }
        _ => Refused("not in the op table"),
    }
}
