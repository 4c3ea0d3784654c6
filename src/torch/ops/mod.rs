//! The op library: every PyTorch op is defined once, as a function over [`Tensor`]s, and
//! reached from `torch.f`, `F.f`, `torch.nn.functional.f` and the method form `x.f()`
//! through one dispatch table with PyTorch's parameter names. This file holds the names
//! (`SUPPORTED`, `canonical`), the parameters (`params`) and the table; each op's arm
//! lives in the file of its concern: `elementwise` (the unary table, arithmetic,
//! comparisons, `where`, `clamp`, `pow`), `activations`, `reductions` (sums, max/min,
//! var/std, softmax, argmax/argmin), `scans` (cumsum/cumprod), `norms` (norm,
//! vector_norm, normalize, layer_norm, rms_norm), `linalg`, `pool`, `conv`, `losses`,
//! `shape` (layout, flip/diag/tril/triu, creation); `args` binds a call's arguments.
//!
//! [`Tensor`]: super::tensor::Tensor

mod activations;
mod args;
mod conv;
mod elementwise;
mod gather;
mod linalg;
mod losses;
mod norms;
mod pool;
mod reductions;
mod scans;
mod shape;

use args::{bind, Args};
pub(crate) use elementwise::{arith, is_bool};
pub(crate) use gather::advanced_index;

use super::value::{Cx, Value};
use super::FloatType;

type R<T> = Result<T, String>;

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
        "elu" => &["input", "alpha", "inplace"],
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
        "softmax" | "log_softmax" => &["input", "dim", "dtype"],
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
        "zeros_like" | "ones_like" => &["input", "dtype"],
        "full_like" => &["input", "fill_value", "dtype"],
        _ => &["input"],
    }
}

/// Checks that no dtype among the arguments narrows `float` (the kernel's float type): a
/// widening conversion is exact, a narrowing one rounds, which specs cannot express.
fn check_dtypes(op: &str, float: FloatType, pos: &[Value], kw: &[(String, Value)]) -> R<()> {
    for v in pos.iter().chain(kw.iter().map(|(_, v)| v)) {
        match v {
            Value::Dtype(d) => narrowing(op, float, *d)?,
            // Integer and bool results only where the values are exact: creation ops and
            // conversions, which check their values themselves (`shape::int_cast`).
            Value::IntDtype(d) if !shape::TAKES_INT_DTYPE.contains(&op) => {
                return Err(format!(
                    "{op}: dtype=torch.{d} is not supported here (only creation ops and \
                     `.to` take an integer or bool dtype)"
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

fn narrowing(op: &str, float: FloatType, to: FloatType) -> R<()> {
    if to.holds_all_of(float) {
        return Ok(());
    }
    Err(format!(
        "{op}: converting to {} rounds the kernel's {} values, which a spec cannot express \
         (lift reads spec tensors exactly); leave the conversion out or check the kernel \
         at that type",
        to.name(),
        float.name()
    ))
}

// ---- dispatch --------------------------------------------------------------------------

/// Calls op `name` (canonical) with positional and keyword arguments; for a method call
/// the receiver is the first positional argument.
pub(crate) fn call(
    cx: &mut Cx,
    name: &'static str,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    check_dtypes(name, cx.float, &pos, &kw)?;
    let a = bind(name, pos, kw)?;
    let op = a.op;
    if let Some(f) = elementwise::unary(op) {
        let x = a.tensor(cx, a.names[0])?;
        return Ok(Value::Tensor(x.map(cx.terms, f)));
    }
    // The dispatch table: each file's ops and its arms.
    type Arms = fn(&mut Cx, &Args) -> R<Value>;
    let table: &[(&[&str], Arms)] = &[
        (activations::OPS, activations::call),
        (elementwise::OPS, elementwise::call),
        (reductions::OPS, reductions::call),
        (norms::OPS, norms::call),
        (linalg::OPS, linalg::call),
        (shape::OPS, shape::call),
        (losses::OPS, losses::call),
        (scans::OPS, scans::call),
        (pool::OPS, pool::call),
        (conv::OPS, conv::call),
        (gather::OPS, gather::call),
    ];
    match table.iter().find(|(ops, _)| ops.contains(&op)) {
        Some((_, arms)) => arms(cx, &a),
        None => Err(format!("{op}: not implemented")),
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
