//! The op library: every PyTorch op is defined once, as a function over [`Tensor`]s, and
//! reached from `torch.f`, `F.f`, `torch.nn.functional.f` and the method form `x.f()`
//! through one dispatch table with PyTorch's parameter names.

mod activations;
mod losses;

use super::tensor::{broadcast_shapes, concat, fmt_shape, norm_dim, numel, zip, Tensor};
use super::value::{Cx, Value};
use super::FloatType;
use crate::term::{CmpOp, Func, TermId, Terms};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive};

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
    "clamp",
    "clip",
    "glu",
    "where",
    "maximum",
    "minimum",
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
    "layer_norm",
    "rms_norm",
    "normalize",
    // linear algebra
    "matmul",
    "mm",
    "bmm",
    "linear",
    // layout
    "transpose",
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
    "size",
    "dim",
    // creation
    "zeros",
    "ones",
    "full",
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

/// PyTorch's parameter names of each op; a leading `*` collects the remaining positional
/// arguments (`x.permute(1, 0)`, `torch.zeros(2, 3)`).
pub(crate) fn params(op: &str) -> &'static [&'static str] {
    match op {
        "relu" | "relu6" => &["input", "inplace"],
        "leaky_relu" => &["input", "negative_slope", "inplace"],
        "gelu" => &["input", "approximate"],
        "softplus" => &["input", "beta", "threshold"],
        "elu" => &["input", "alpha", "inplace"],
        "hardtanh" => &["input", "min_val", "max_val", "inplace"],
        "clamp" => &["input", "min", "max"],
        "glu" => &["input", "dim"],
        "pow" => &["input", "exponent"],
        "where" => &["condition", "input", "other"],
        "add" | "sub" => &["input", "other", "alpha"],
        "div" => &["input", "other", "rounding_mode"],
        "maximum" | "minimum" | "mul" | "floor_divide" | "remainder" | "fmod" | "gt" | "lt"
        | "ge" | "le" | "eq" | "ne" | "matmul" | "mm" | "bmm" => &["input", "other"],
        "sum" | "mean" => &["input", "dim", "keepdim", "dtype"],
        "prod" | "amax" | "amin" | "max" | "min" | "logsumexp" => &["input", "dim", "keepdim"],
        "var" | "std" => &["input", "dim", "unbiased", "keepdim", "correction"],
        "softmax" | "log_softmax" => &["input", "dim", "dtype"],
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
        "layer_norm" => &["input", "normalized_shape", "weight", "bias", "eps"],
        "rms_norm" => &["input", "normalized_shape", "weight", "eps"],
        "normalize" => &["input", "p", "dim", "eps"],
        "linear" => &["input", "weight", "bias"],
        "transpose" => &["input", "dim0", "dim1"],
        "permute" => &["input", "*dims"],
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
        "zeros_like" | "ones_like" => &["input", "dtype"],
        "full_like" => &["input", "fill_value", "dtype"],
        _ => &["input"],
    }
}

/// Arguments bound to an op's parameter names.
struct Args {
    op: &'static str,
    names: &'static [&'static str],
    vals: Vec<Option<Value>>,
}

/// Checks that no dtype among the arguments narrows `float` (the kernel's float type): a
/// widening conversion is exact, a narrowing one rounds, which specs cannot express.
fn check_dtypes(op: &str, float: FloatType, pos: &[Value], kw: &[(String, Value)]) -> R<()> {
    for v in pos.iter().chain(kw.iter().map(|(_, v)| v)) {
        if let Value::Dtype(d) = v {
            narrowing(op, float, *d)?;
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

fn bind(op: &'static str, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<Args> {
    let names = params(op);
    let mut vals: Vec<Option<Value>> = vec![None; names.len()];
    let star = names.iter().position(|n| n.starts_with('*'));
    let fixed = star.unwrap_or(names.len());
    let mut pos = pos.into_iter();
    for slot in vals.iter_mut().take(fixed) {
        match pos.next() {
            Some(v) => *slot = Some(v),
            None => break,
        }
    }
    let rest: Vec<Value> = pos.collect();
    match star {
        Some(s) if !rest.is_empty() => {
            vals[s] = Some(match <[Value; 1]>::try_from(rest) {
                Ok([v @ Value::Tuple(_)]) => v,
                Ok([v]) => Value::Tuple(vec![v]),
                Err(rest) => Value::Tuple(rest),
            });
        }
        Some(_) => {}
        None if !rest.is_empty() => {
            return Err(format!(
                "{op}: takes at most {} positional arguments ({} given)",
                names.len(),
                names.len() + rest.len()
            ));
        }
        None => {}
    }
    for (k, v) in kw {
        let key = match k.as_str() {
            "axis" => "dim",
            "keepdims" => "keepdim",
            // The method's name for it (`x.split(split_size=2)`).
            "split_size" if op == "split" => "split_size_or_sections",
            k => k,
        };
        match names.iter().position(|n| n.trim_start_matches('*') == key) {
            Some(i) => {
                if vals[i].is_some() {
                    return Err(format!("{op}: got multiple values for argument `{key}`"));
                }
                vals[i] = Some(v);
            }
            // Accepted everywhere and meaningless for real tensors.
            None if matches!(key, "dtype" | "inplace" | "device") => {}
            None => {
                let list: Vec<&str> = names.iter().map(|n| n.trim_start_matches('*')).collect();
                return Err(format!(
                    "{op}: unexpected keyword argument `{k}` (its arguments are {})",
                    list.join(", ")
                ));
            }
        }
    }
    Ok(Args { op, names, vals })
}

impl Args {
    fn idx(&self, name: &str) -> usize {
        self.names
            .iter()
            .position(|n| n.trim_start_matches('*') == name)
            .unwrap_or_else(|| unreachable!("op {} has no parameter {name}", self.op))
    }
    /// The argument, `None` if absent or `None`.
    fn get(&self, name: &str) -> Option<&Value> {
        match &self.vals[self.idx(name)] {
            None | Some(Value::None) => None,
            Some(v) => Some(v),
        }
    }
    fn missing(&self, name: &str) -> String {
        format!("{}: missing required argument `{name}`", self.op)
    }
    fn bad(&self, name: &str, want: &str, got: &Value) -> String {
        format!(
            "{}: argument `{name}` must be {want}, got {}",
            self.op,
            got.describe()
        )
    }
    fn req(&self, name: &str) -> R<&Value> {
        self.get(name).ok_or_else(|| self.missing(name))
    }
    fn tensor(&self, cx: &mut Cx, name: &str) -> R<Tensor> {
        let v = self.req(name)?;
        cx.tensor(v).map_err(|_| self.bad(name, "a tensor", v))
    }
    fn opt_tensor(&self, cx: &mut Cx, name: &str) -> R<Option<Tensor>> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => cx
                .tensor(v)
                .map(Some)
                .map_err(|_| self.bad(name, "a tensor", v)),
        }
    }
    /// A real number given as an int, a float or a 0-d tensor (a symbolic scalar).
    fn number(&self, cx: &mut Cx, name: &str, default: Option<&str>) -> R<TermId> {
        match self.get(name) {
            None => match default {
                Some(d) => cx.decimal(d),
                None => Err(self.missing(name)),
            },
            Some(v) => match cx.tensor(v) {
                Ok(t) if t.ndim() == 0 => Ok(t.elems[0]),
                _ => Err(self.bad(name, "a number", v)),
            },
        }
    }
    fn int(&self, name: &str) -> R<Option<i64>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Int(i)) => Ok(Some(*i)),
            Some(v) => Err(self.bad(name, "an int", v)),
        }
    }
    fn req_int(&self, name: &str) -> R<i64> {
        self.int(name)?.ok_or_else(|| self.missing(name))
    }
    fn bool(&self, name: &str, default: bool) -> R<bool> {
        match self.get(name) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(Value::Int(i)) => Ok(*i != 0),
            Some(v) => Err(self.bad(name, "a bool", v)),
        }
    }
    fn str(&self, name: &str, default: &str) -> R<String> {
        match self.get(name) {
            None => Ok(default.to_string()),
            Some(Value::Str(s)) => Ok(s.clone()),
            Some(v) => Err(self.bad(name, "a string", v)),
        }
    }
    /// An int or a tuple/list of ints.
    fn ints(&self, name: &str) -> R<Option<Vec<i64>>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Int(i)) => Ok(Some(vec![*i])),
            Some(v @ Value::Tuple(items)) => items
                .iter()
                .map(|x| match x {
                    Value::Int(i) => Ok(*i),
                    _ => Err(self.bad(name, "an int or a tuple of ints", v)),
                })
                .collect::<R<Vec<i64>>>()
                .map(Some),
            Some(v) => Err(self.bad(name, "an int or a tuple of ints", v)),
        }
    }
    /// A shape: an int or a tuple of non-negative ints.
    fn shape(&self, name: &str) -> R<Vec<usize>> {
        let v = self.ints(name)?.ok_or_else(|| self.missing(name))?;
        v.iter()
            .map(|&d| {
                usize::try_from(d)
                    .map_err(|_| format!("{}: negative dimension {d} in `{name}`", self.op))
            })
            .collect()
    }
    fn tensors(&self, cx: &mut Cx, name: &str) -> R<Vec<Tensor>> {
        match self.req(name)? {
            Value::Tuple(items) => items
                .iter()
                .map(|v| {
                    cx.tensor(v)
                        .map_err(|_| self.bad(name, "a list of tensors", v))
                })
                .collect(),
            v => Err(self.bad(name, "a list of tensors", v)),
        }
    }
}

// ---- elementwise helpers on single terms ---------------------------------------------

fn sigmoid(t: &mut Terms, x: TermId) -> TermId {
    let nx = t.neg(x);
    let e = t.call(Func::Exp, nx);
    let one = t.one();
    let d = t.add(one, e);
    t.recip(d)
}

fn binary(
    cx: &mut Cx,
    op: &str,
    a: &Tensor,
    b: &Tensor,
    f: impl FnMut(&mut Terms, TermId, TermId) -> TermId,
) -> R<Tensor> {
    zip(cx.terms, a, b, f).ok_or_else(|| {
        format!(
            "{op}: shapes {} and {} cannot be broadcast together",
            a.shape_str(),
            b.shape_str()
        )
    })
}

fn select3(cx: &mut Cx, op: &str, c: &Tensor, a: &Tensor, b: &Tensor) -> R<Tensor> {
    let shape = broadcast_shapes(&c.shape, &a.shape)
        .and_then(|s| broadcast_shapes(&s, &b.shape))
        .ok_or_else(|| {
            format!(
                "{op}: shapes {}, {} and {} cannot be broadcast together",
                c.shape_str(),
                a.shape_str(),
                b.shape_str()
            )
        })?;
    let (c, a, b) = (
        c.broadcast_to(&shape)?,
        a.broadcast_to(&shape)?,
        b.broadcast_to(&shape)?,
    );
    let elems = (0..c.elems.len())
        .map(|i| cx.terms.select(c.elems[i], a.elems[i], b.elems[i]))
        .collect();
    Ok(Tensor::new(shape, elems))
}

fn clamp(cx: &mut Cx, op: &str, x: &Tensor, lo: Option<&Tensor>, hi: Option<&Tensor>) -> R<Tensor> {
    let mut y = x.clone();
    if let Some(lo) = lo {
        y = binary(cx, op, &y, lo, |t, a, b| t.max(a, b))?;
    }
    if let Some(hi) = hi {
        y = binary(cx, op, &y, hi, |t, a, b| t.min(a, b))?;
    }
    Ok(y)
}

/// `base ** exponent` for a constant exponent: integers → powi, ±1/2 → sqrt/rsqrt.
pub(crate) fn power(cx: &mut Cx, op: &str, base: &Value, exponent: &Value) -> R<Value> {
    if let (Value::Int(b), Value::Int(e)) = (base, exponent) {
        if *e >= 0 {
            let e32 = u32::try_from(*e).map_err(|_| format!("{op}: exponent {e} is too large"))?;
            return b
                .checked_pow(e32)
                .map(Value::Int)
                .ok_or_else(|| format!("{op}: {b} ** {e} overflows"));
        }
    }
    let exp = cx.tensor(exponent).map_err(|m| format!("{op}: {m}"))?;
    let x = cx.tensor(base).map_err(|m| format!("{op}: {m}"))?;
    let const_exp = if exp.ndim() == 0 {
        cx.terms.as_const(exp.elems[0]).cloned()
    } else {
        None
    };
    let Some(k) = const_exp else {
        // `2 ** x` is exp2(x).
        if x.ndim() == 0
            && cx.terms.as_const(x.elems[0]) == Some(&BigRational::from_integer(2.into()))
        {
            return Ok(Value::Tensor(
                exp.map(cx.terms, |t, e| t.call(Func::Exp2, e)),
            ));
        }
        return Err(format!(
            "{op}: the exponent must be a constant number (integer or ±0.5), got {}",
            exponent.describe()
        ));
    };
    let half = BigRational::new(BigInt::one(), BigInt::from(2));
    let y = if k.is_integer() {
        let k = k
            .to_integer()
            .to_i32()
            .ok_or_else(|| format!("{op}: exponent {k} is too large"))?;
        x.map(cx.terms, |t, e| t.powi(e, k))
    } else if k == half {
        x.map(cx.terms, |t, e| t.call(Func::Sqrt, e))
    } else if k == -half {
        x.map(cx.terms, |t, e| t.call(Func::Rsqrt, e))
    } else {
        let v = cx.show(k.to_f64().unwrap_or(f64::NAN));
        return Err(format!(
            "{op}: exponent {v} is not supported (only integers and ±0.5)"
        ));
    };
    Ok(Value::Tensor(y))
}

/// Python arithmetic on values: ints stay exact ints; anything else is elementwise on
/// tensors with broadcasting. `op` is one of `+ - * / // % ** @ < > <= >= == != & |`.
pub(crate) fn arith(cx: &mut Cx, op: &'static str, a: &Value, b: &Value) -> R<Value> {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        let (x, y) = (*x, *y);
        let ov = || format!("integer overflow in {x} {op} {y}");
        let int = |v: Option<i64>| v.map(Value::Int).ok_or_else(ov);
        match op {
            "+" => return int(x.checked_add(y)),
            "-" => return int(x.checked_sub(y)),
            "*" => return int(x.checked_mul(y)),
            "//" | "%" if y == 0 => {
                return Err(format!("integer division by zero in {x} {op} {y}"))
            }
            "//" => {
                let q = x.checked_div(y).ok_or_else(ov)?;
                let r = x.checked_rem(y).ok_or_else(ov)?;
                return Ok(Value::Int(if r != 0 && ((r < 0) != (y < 0)) {
                    q - 1
                } else {
                    q
                }));
            }
            "%" => {
                let r = x.checked_rem(y).ok_or_else(ov)?;
                return Ok(Value::Int(if r != 0 && ((r < 0) != (y < 0)) {
                    r + y
                } else {
                    r
                }));
            }
            "**" => return power(cx, "**", a, b),
            "<" => return Ok(Value::Bool(x < y)),
            ">" => return Ok(Value::Bool(x > y)),
            "<=" => return Ok(Value::Bool(x <= y)),
            ">=" => return Ok(Value::Bool(x >= y)),
            "==" => return Ok(Value::Bool(x == y)),
            "!=" => return Ok(Value::Bool(x != y)),
            _ => {}
        }
    }
    if op == "**" {
        return power(cx, "**", a, b);
    }
    let name = match op {
        "+" => "add",
        "-" => "sub",
        "*" => "mul",
        "/" => "div",
        "@" => "matmul",
        "<" => "lt",
        ">" => "gt",
        "<=" => "le",
        ">=" => "ge",
        "==" => "eq",
        "!=" => "ne",
        _ => op,
    };
    let x = cx.tensor(a).map_err(|_| {
        format!(
            "`{op}`: left operand must be a tensor or a number, got {}",
            a.describe()
        )
    })?;
    let y = cx.tensor(b).map_err(|_| {
        format!(
            "`{op}`: right operand must be a tensor or a number, got {}",
            b.describe()
        )
    })?;
    let r = match op {
        "@" => matmul(cx, "matmul (@)", &x, &y)?,
        _ => elementwise2(cx, name, &x, &y)?,
    };
    Ok(Value::Tensor(r))
}

/// A bool tensor converted to a float type: `select(c, 1, 0)` (no longer bool).
fn to_float(cx: &mut Cx, x: Tensor) -> Tensor {
    if !is_bool(cx.terms, &x) {
        return x;
    }
    x.map(cx.terms, |t, e| {
        let (one, zero) = (t.one(), t.zero());
        t.select(e, one, zero)
    })
}

/// Whether `x` is a bool tensor in PyTorch: every element a comparison or a logical
/// combination (an all-constant tensor counts as float: `torch.ones` is).
pub(crate) fn is_bool(terms: &Terms, x: &Tensor) -> bool {
    x.elems.iter().all(|&e| terms.is_boolean(e))
        && x.elems.iter().any(|&e| terms.as_const(e).is_none())
}

/// Rounding toward zero: `q < 0 ? ceil(q) : floor(q)`.
fn trunc(t: &mut Terms, q: TermId) -> TermId {
    let z = t.zero();
    let neg = t.cmp(CmpOp::Lt, q, z);
    let c = t.call(Func::Ceil, q);
    let f = t.call(Func::Floor, q);
    t.select(neg, c, f)
}

/// The binary elementwise ops by canonical name (`add`, `gt`, `maximum`, `&`, ...).
fn elementwise2(cx: &mut Cx, name: &str, x: &Tensor, y: &Tensor) -> R<Tensor> {
    let cmp = |op: CmpOp| move |t: &mut Terms, a: TermId, b: TermId| t.cmp(op, a, b);
    // PyTorch's bool tensors: `+` and `*` stay bool (or, and); `-` is refused.
    if is_bool(cx.terms, x) && is_bool(cx.terms, y) {
        match name {
            "add" => return binary(cx, name, x, y, |t, a, b| t.or(a, b)),
            "mul" => return binary(cx, name, x, y, |t, a, b| t.and(a, b)),
            "sub" => {
                return Err(
                    "sub: subtracting two bool tensors is not supported by PyTorch \
                            (use `^`)"
                        .into(),
                )
            }
            _ => {}
        }
    }
    match name {
        "add" => binary(cx, name, x, y, |t, a, b| t.add(a, b)),
        "sub" => binary(cx, name, x, y, |t, a, b| t.sub(a, b)),
        "mul" => binary(cx, name, x, y, |t, a, b| t.mul(a, b)),
        "div" => binary(cx, name, x, y, |t, a, b| t.div(a, b)),
        // Python's `//` and `%` on tensors are torch.floor_divide and torch.remainder.
        "//" | "floor_divide" => binary(cx, "floor_divide (//)", x, y, |t, a, b| {
            let q = t.div(a, b);
            t.call(Func::Floor, q)
        }),
        "trunc_divide" => binary(cx, "div (rounding_mode='trunc')", x, y, |t, a, b| {
            let q = t.div(a, b);
            trunc(t, q)
        }),
        // The remainder takes the sign of the divisor: `a - b * floor(a / b)`.
        "%" | "remainder" => binary(cx, "remainder (%)", x, y, |t, a, b| {
            let q = t.div(a, b);
            let f = t.call(Func::Floor, q);
            let bf = t.mul(b, f);
            t.sub(a, bf)
        }),
        // C's fmod takes the sign of the dividend: `a - b * trunc(a / b)`.
        "fmod" => binary(cx, name, x, y, |t, a, b| {
            let q = t.div(a, b);
            let f = trunc(t, q);
            let bf = t.mul(b, f);
            t.sub(a, bf)
        }),
        "maximum" => binary(cx, name, x, y, |t, a, b| t.max(a, b)),
        "minimum" => binary(cx, name, x, y, |t, a, b| t.min(a, b)),
        "lt" => binary(cx, name, x, y, cmp(CmpOp::Lt)),
        "gt" => binary(cx, name, x, y, cmp(CmpOp::Gt)),
        "le" => binary(cx, name, x, y, cmp(CmpOp::Le)),
        "ge" => binary(cx, name, x, y, cmp(CmpOp::Ge)),
        "eq" => binary(cx, name, x, y, cmp(CmpOp::Eq)),
        "ne" => binary(cx, name, x, y, cmp(CmpOp::Ne)),
        "&" => binary(cx, "logical_and (&)", x, y, |t, a, b| t.and(a, b)),
        "|" => binary(cx, "logical_or (|)", x, y, |t, a, b| t.or(a, b)),
        _ => Err(format!("unsupported operator `{name}`")),
    }
}

// ---- reductions --------------------------------------------------------------------

/// The dims to reduce: all for `None`, else the normalised, distinct dims.
fn reduce_dims(op: &str, x: &Tensor, dims: Option<Vec<i64>>) -> R<Vec<usize>> {
    let Some(dims) = dims else {
        return Ok((0..x.ndim()).collect());
    };
    let mut out = Vec::new();
    for d in dims {
        let n = x
            .dim(d)
            .map_err(|m| format!("{op}: {m} for input of shape {}", x.shape_str()))?;
        if x.ndim() == 0 {
            continue;
        }
        if out.contains(&n) {
            return Err(format!("{op}: dim {d} appears more than once"));
        }
        out.push(n);
    }
    Ok(out)
}

fn one_dim(op: &str, x: &Tensor, d: i64) -> R<usize> {
    x.dim(d)
        .map_err(|m| format!("{op}: {m} for input of shape {}", x.shape_str()))
}

fn sum(cx: &mut Cx, x: &Tensor, dims: &[usize], keepdim: bool) -> Tensor {
    x.reduce(cx.terms, dims, keepdim, |t, ops| t.sum(ops))
}

fn count(x: &Tensor, dims: &[usize]) -> i64 {
    dims.iter().map(|&d| x.shape[d] as i64).product()
}

fn mean(cx: &mut Cx, x: &Tensor, dims: &[usize], keepdim: bool) -> Tensor {
    let n = count(x, dims);
    let s = sum(cx, x, dims, keepdim);
    s.map(cx.terms, |t, e| {
        let n = t.int(n);
        t.div(e, n)
    })
}

fn amax(cx: &mut Cx, x: &Tensor, dims: &[usize], keepdim: bool) -> Tensor {
    x.reduce(cx.terms, dims, keepdim, |t, ops| t.maxn(ops))
}

fn amin(cx: &mut Cx, x: &Tensor, dims: &[usize], keepdim: bool) -> Tensor {
    x.reduce(cx.terms, dims, keepdim, |t, ops| t.minn(ops))
}

/// Variance with `correction` (1: unbiased, 0: population).
fn var(cx: &mut Cx, x: &Tensor, dims: &[usize], correction: i64, keepdim: bool) -> R<Tensor> {
    let m = mean(cx, x, dims, true);
    let d = binary(cx, "var", x, &m, |t, a, b| t.sub(a, b))?;
    let sq = d.map(cx.terms, |t, e| t.powi(e, 2));
    let s = sum(cx, &sq, dims, keepdim);
    // PyTorch divides by max(0, N - correction); dividing by 0 gives inf, or NaN for a
    // zero sum (`e * inf`: the term store would fold `0 * (1/0)` to 0).
    let n = (count(x, dims) - correction).max(0);
    Ok(s.map(cx.terms, |t, e| {
        if n == 0 {
            let inf = t.inf(false);
            return t.mul(e, inf);
        }
        let n = t.int(n);
        t.div(e, n)
    }))
}

/// `exp(x - max) / sum(exp(x - max))` along `dim`: PyTorch's numerically stable form.
fn softmax(cx: &mut Cx, x: &Tensor, dim: usize) -> R<Tensor> {
    let m = amax(cx, x, &[dim], true);
    let d = binary(cx, "softmax", x, &m, |t, a, b| t.sub(a, b))?;
    let e = d.map(cx.terms, |t, v| t.call(Func::Exp, v));
    let s = sum(cx, &e, &[dim], true);
    binary(cx, "softmax", &e, &s, |t, a, b| t.div(a, b))
}

/// `(x - max) - log(sum(exp(x - max)))`.
fn log_softmax(cx: &mut Cx, x: &Tensor, dim: usize) -> R<Tensor> {
    let m = amax(cx, x, &[dim], true);
    let d = binary(cx, "log_softmax", x, &m, |t, a, b| t.sub(a, b))?;
    let e = d.map(cx.terms, |t, v| t.call(Func::Exp, v));
    let s = sum(cx, &e, &[dim], true);
    let l = s.map(cx.terms, |t, v| t.call(Func::Log, v));
    binary(cx, "log_softmax", &d, &l, |t, a, b| t.sub(a, b))
}

/// `m + log(sum(exp(x - m)))`, `m` the max. PyTorch uses 0 for `m` where the max is
/// ±inf (a row of -inf gives -inf, not NaN); over real inputs the max is finite, and a
/// comparison with ±inf in the term makes `decide` answer UNKNOWN (it stops at any
/// infinity), so that corner is left out until decide reads `m == inf` as false
/// (tests/torch_diff/generate.py leaves those rows out of logsumexp's cases).
fn logsumexp(cx: &mut Cx, x: &Tensor, dims: &[usize], keepdim: bool) -> R<Tensor> {
    let m = amax(cx, x, dims, true);
    let d = binary(cx, "logsumexp", x, &m, |t, a, b| t.sub(a, b))?;
    let e = d.map(cx.terms, |t, v| t.call(Func::Exp, v));
    let s = sum(cx, &e, dims, true);
    let r = binary(cx, "logsumexp", &m, &s, |t, a, b| {
        let l = t.call(Func::Log, b);
        t.add(a, l)
    })?;
    if keepdim {
        Ok(r)
    } else {
        let shape = (0..x.ndim())
            .filter(|d| !dims.contains(d))
            .map(|d| x.shape[d])
            .collect();
        Ok(r.reshape(shape))
    }
}

/// `F.normalize`: `x / max(norm_p(x, dim), eps)`, for p = 1 (`sum |x|`) and p = 2
/// (`sqrt(sum x^2)`).
fn normalize(
    cx: &mut Cx,
    x: &Tensor,
    p: Option<BigRational>,
    dim: usize,
    eps: TermId,
) -> R<Tensor> {
    if x.ndim() == 0 {
        return Err("normalize: expects a tensor with at least one dimension".into());
    }
    let norm = match p.and_then(|p| p.to_integer().to_i32().filter(|_| p.is_integer())) {
        Some(1) => {
            let a = x.map(cx.terms, |t, e| t.call(Func::Abs, e));
            sum(cx, &a, &[dim], true)
        }
        Some(2) => {
            let sq = x.map(cx.terms, |t, e| t.powi(e, 2));
            sum(cx, &sq, &[dim], true).map(cx.terms, |t, e| t.call(Func::Sqrt, e))
        }
        _ => {
            return Err(
                "normalize: argument `p` must be 1 or 2 (other norms are not supported)".into(),
            )
        }
    };
    let denom = norm.map(cx.terms, |t, n| t.max(n, eps));
    binary(cx, "normalize", x, &denom, |t, a, b| t.div(a, b))
}

/// The trailing dims a `normalized_shape` covers, checked against the input.
fn normalized_dims(op: &str, x: &Tensor, ns: &[usize]) -> R<Vec<usize>> {
    if ns.len() > x.ndim() || x.shape[x.ndim() - ns.len()..] != *ns {
        return Err(format!(
            "{op}: normalized_shape {} does not match the trailing dims of input shape {}",
            fmt_shape(ns),
            x.shape_str()
        ));
    }
    Ok((x.ndim() - ns.len()..x.ndim()).collect())
}

fn affine_param(op: &str, name: &str, p: &Tensor, ns: &[usize]) -> R<()> {
    if p.shape != ns {
        return Err(format!(
            "{op}: {name} has shape {} but normalized_shape is {}",
            p.shape_str(),
            fmt_shape(ns)
        ));
    }
    Ok(())
}

/// `(x - mean) * rsqrt(var + eps) * weight + bias`, population variance.
fn layer_norm(
    cx: &mut Cx,
    x: &Tensor,
    ns: &[usize],
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    eps: TermId,
) -> R<Tensor> {
    let op = "layer_norm";
    let dims = normalized_dims(op, x, ns)?;
    let m = mean(cx, x, &dims, true);
    let d = binary(cx, op, x, &m, |t, a, b| t.sub(a, b))?;
    let sq = d.map(cx.terms, |t, e| t.powi(e, 2));
    let v = mean(cx, &sq, &dims, true);
    let r = v.map(cx.terms, |t, e| {
        let s = t.add(e, eps);
        t.call(Func::Rsqrt, s)
    });
    let mut y = binary(cx, op, &d, &r, |t, a, b| t.mul(a, b))?;
    if let Some(w) = w {
        affine_param(op, "weight", w, ns)?;
        y = binary(cx, op, &y, w, |t, a, b| t.mul(a, b))?;
    }
    if let Some(b) = b {
        affine_param(op, "bias", b, ns)?;
        y = binary(cx, op, &y, b, |t, a, b| t.add(a, b))?;
    }
    Ok(y)
}

/// `x * rsqrt(mean(x^2) + eps) * weight`.
fn rms_norm(cx: &mut Cx, x: &Tensor, ns: &[usize], w: Option<&Tensor>, eps: TermId) -> R<Tensor> {
    let op = "rms_norm";
    let dims = normalized_dims(op, x, ns)?;
    let sq = x.map(cx.terms, |t, e| t.powi(e, 2));
    let ms = mean(cx, &sq, &dims, true);
    let r = ms.map(cx.terms, |t, e| {
        let s = t.add(e, eps);
        t.call(Func::Rsqrt, s)
    });
    let mut y = binary(cx, op, x, &r, |t, a, b| t.mul(a, b))?;
    if let Some(w) = w {
        affine_param(op, "weight", w, ns)?;
        y = binary(cx, op, &y, w, |t, a, b| t.mul(a, b))?;
    }
    Ok(y)
}

// ---- linear algebra ----------------------------------------------------------------

/// `torch.matmul`: 1-D operands are promoted (and the added dim removed), batch dims
/// broadcast; each element is one n-ary sum of products.
fn matmul(cx: &mut Cx, op: &str, a: &Tensor, b: &Tensor) -> R<Tensor> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(format!(
            "{op}: both arguments need at least 1 dimension, got shapes {} and {}",
            a.shape_str(),
            b.shape_str()
        ));
    }
    let a2 = if a.ndim() == 1 {
        a.reshape(vec![1, a.shape[0]])
    } else {
        a.clone()
    };
    let b2 = if b.ndim() == 1 {
        b.reshape(vec![b.shape[0], 1])
    } else {
        b.clone()
    };
    let (n, k) = (a2.shape[a2.ndim() - 2], a2.shape[a2.ndim() - 1]);
    let (k2, m) = (b2.shape[b2.ndim() - 2], b2.shape[b2.ndim() - 1]);
    if k != k2 {
        return Err(format!(
            "{op}: shapes {} and {} cannot be multiplied ({k} != {k2})",
            a.shape_str(),
            b.shape_str()
        ));
    }
    let batch = broadcast_shapes(&a2.shape[..a2.ndim() - 2], &b2.shape[..b2.ndim() - 2])
        .ok_or_else(|| {
            format!(
                "{op}: batch dims of shapes {} and {} cannot be broadcast together",
                a.shape_str(),
                b.shape_str()
            )
        })?;
    let full = |s: &[usize]| -> Vec<usize> { batch.iter().chain(s).copied().collect() };
    let a3 = a2.broadcast_to(&full(&[n, k]))?;
    let b3 = b2.broadcast_to(&full(&[k, m]))?;
    let nb = numel(&batch);
    let mut elems = Vec::with_capacity(nb * n * m);
    let mut prods = Vec::with_capacity(k);
    for bi in 0..nb {
        for i in 0..n {
            for j in 0..m {
                prods.clear();
                for kk in 0..k {
                    let x = a3.elems[bi * n * k + i * k + kk];
                    let y = b3.elems[bi * k * m + kk * m + j];
                    prods.push(cx.terms.mul(x, y));
                }
                elems.push(cx.terms.sum(&prods));
            }
        }
    }
    let mut shape = batch.clone();
    if a.ndim() > 1 {
        shape.push(n);
    }
    if b.ndim() > 1 {
        shape.push(m);
    }
    Ok(Tensor::new(shape, elems))
}

// ---- layout --------------------------------------------------------------------------

/// Resolves one `-1` in a requested shape against `numel`.
fn infer_shape(op: &str, want: &[i64], total: usize, from: &[usize]) -> R<Vec<usize>> {
    let bad = || {
        format!(
            "{op}: shape {want:?} is invalid for input of shape {} ({total} elements)",
            fmt_shape(from)
        )
    };
    let mut hole = None;
    let mut known = 1usize;
    let mut out = Vec::with_capacity(want.len());
    for (i, &d) in want.iter().enumerate() {
        if d == -1 {
            if hole.is_some() {
                return Err(bad());
            }
            hole = Some(i);
            out.push(0);
        } else {
            let d = usize::try_from(d).map_err(|_| bad())?;
            known = known.checked_mul(d).ok_or_else(bad)?;
            out.push(d);
        }
    }
    match hole {
        Some(i) if known != 0 && total.is_multiple_of(known) => out[i] = total / known,
        None if known == total => {}
        _ => return Err(bad()),
    }
    Ok(out)
}

fn chunk_sizes(n: usize, chunks: usize) -> Vec<usize> {
    let size = n.div_ceil(chunks.max(1)).max(1);
    let mut out = Vec::new();
    let mut start = 0;
    while start < n {
        out.push(size.min(n - start));
        start += size;
    }
    if out.is_empty() {
        out.push(0);
    }
    out
}

fn split_at(x: &Tensor, dim: usize, sizes: &[usize]) -> Value {
    let mut start = 0;
    let mut parts = Vec::new();
    for &s in sizes {
        parts.push(Value::Tensor(x.slice(dim, start, s, 1)));
        start += s;
    }
    Value::Tuple(parts)
}

fn cat(op: &str, parts: &[Tensor], dim: i64) -> R<Tensor> {
    let Some(first) = parts.first() else {
        return Err(format!("{op}: expected a non-empty list of tensors"));
    };
    let d = one_dim(op, first, dim)?;
    if first.ndim() == 0 {
        return Err(format!(
            "{op}: zero-dimensional tensors cannot be concatenated"
        ));
    }
    for p in &parts[1..] {
        let same = p.ndim() == first.ndim()
            && (0..p.ndim()).all(|i| i == d || p.shape[i] == first.shape[i]);
        if !same {
            return Err(format!(
                "{op}: tensors must have the same shape except in dimension {dim}, got {} and {}",
                first.shape_str(),
                p.shape_str()
            ));
        }
    }
    Ok(concat(parts, d))
}

fn like(cx: &mut Cx, x: &Tensor, v: TermId) -> Tensor {
    let _ = cx;
    Tensor::full(&x.shape, v)
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
    let t = |v: Tensor| Ok(Value::Tensor(v));
    // Elementwise unary ops on one term.
    let unary: Option<fn(&mut Terms, TermId) -> TermId> = match op {
        "abs" => Some(|t, x| t.call(Func::Abs, x)),
        "neg" => Some(|t, x| t.neg(x)),
        "exp" => Some(|t, x| t.call(Func::Exp, x)),
        "exp2" => Some(|t, x| t.call(Func::Exp2, x)),
        "expm1" => Some(|t, x| {
            let e = t.call(Func::Exp, x);
            let m1 = t.int(-1);
            t.add(e, m1)
        }),
        "log" => Some(|t, x| t.call(Func::Log, x)),
        "log2" => Some(|t, x| t.call(Func::Log2, x)),
        "log1p" => Some(|t, x| {
            let one = t.one();
            let s = t.add(one, x);
            t.call(Func::Log, s)
        }),
        "sqrt" => Some(|t, x| t.call(Func::Sqrt, x)),
        "rsqrt" => Some(|t, x| t.call(Func::Rsqrt, x)),
        "reciprocal" => Some(|t, x| t.recip(x)),
        "square" => Some(|t, x| t.powi(x, 2)),
        "sin" => Some(|t, x| t.call(Func::Sin, x)),
        "cos" => Some(|t, x| t.call(Func::Cos, x)),
        "tanh" => Some(|t, x| t.call(Func::Tanh, x)),
        "erf" => Some(|t, x| t.call(Func::Erf, x)),
        "floor" => Some(|t, x| t.call(Func::Floor, x)),
        "ceil" => Some(|t, x| t.call(Func::Ceil, x)),
        // sign(0) = 0, and PyTorch's sign(NaN) is 0 too (both comparisons are false).
        "sign" => Some(|t, x| {
            let z = t.zero();
            let (pos, neg) = (t.cmp(CmpOp::Gt, x, z), t.cmp(CmpOp::Lt, x, z));
            let (one, m1) = (t.one(), t.int(-1));
            let n = t.select(neg, m1, z);
            t.select(pos, one, n)
        }),
        "sigmoid" => Some(sigmoid),
        "silu" => Some(|t, x| {
            let s = sigmoid(t, x);
            t.mul(x, s)
        }),
        "relu" => Some(|t, x| {
            let z = t.zero();
            t.max(x, z)
        }),
        _ => None,
    };
    if let Some(f) = unary {
        let x = a.tensor(cx, a.names[0])?;
        return t(x.map(cx.terms, f));
    }
    match op {
        "relu6" => {
            let x = a.tensor(cx, "input")?;
            let (lo, hi) = (Tensor::scalar(cx.int(0)), Tensor::scalar(cx.int(6)));
            t(clamp(cx, op, &x, Some(&lo), Some(&hi))?)
        }
        "leaky_relu" => {
            let x = a.tensor(cx, "input")?;
            let s = a.number(cx, "negative_slope", Some("0.01"))?;
            t(activations::leaky_relu(cx, &x, s))
        }
        "elu" => {
            let x = a.tensor(cx, "input")?;
            let al = a.number(cx, "alpha", Some("1"))?;
            t(activations::elu(cx, &x, al))
        }
        "gelu" => {
            let x = a.tensor(cx, "input")?;
            match a.str("approximate", "none")?.as_str() {
                "none" => t(activations::gelu_erf(cx, &x)?),
                "tanh" => t(activations::gelu_tanh(cx, &x)?),
                other => Err(format!(
                    "gelu: argument `approximate` must be 'none' or 'tanh', got '{other}'"
                )),
            }
        }
        "softplus" => {
            let x = a.tensor(cx, "input")?;
            let beta = a.number(cx, "beta", Some("1"))?;
            let threshold = a.number(cx, "threshold", Some("20"))?;
            t(activations::softplus(cx, &x, beta, threshold))
        }
        "hardtanh" => {
            let x = a.tensor(cx, "input")?;
            let lo = a.number(cx, "min_val", Some("-1"))?;
            let hi = a.number(cx, "max_val", Some("1"))?;
            if let (Some(l), Some(h)) = (cx.terms.as_const(lo), cx.terms.as_const(hi)) {
                if l > h {
                    return Err("hardtanh: min_val cannot be greater than max_val".into());
                }
            }
            let (lo, hi) = (Tensor::scalar(lo), Tensor::scalar(hi));
            t(clamp(cx, op, &x, Some(&lo), Some(&hi))?)
        }
        "clamp" => {
            let x = a.tensor(cx, "input")?;
            let lo = a.opt_tensor(cx, "min")?;
            let hi = a.opt_tensor(cx, "max")?;
            if lo.is_none() && hi.is_none() {
                return Err("clamp: at least one of `min` and `max` must be given".into());
            }
            t(clamp(cx, op, &x, lo.as_ref(), hi.as_ref())?)
        }
        "glu" => {
            let x = a.tensor(cx, "input")?;
            let d = one_dim(op, &x, a.int("dim")?.unwrap_or(-1))?;
            let n = x.shape.get(d).copied().unwrap_or(1);
            if n % 2 != 0 || x.ndim() == 0 {
                return Err(format!(
                    "glu: dimension {d} of shape {} must have even size",
                    x.shape_str()
                ));
            }
            let (p, q) = (x.slice(d, 0, n / 2, 1), x.slice(d, n / 2, n / 2, 1));
            let s = q.map(cx.terms, sigmoid);
            t(binary(cx, op, &p, &s, |t, a, b| t.mul(a, b))?)
        }
        "pow" => power(cx, op, a.req("input")?, a.req("exponent")?),
        "where" => {
            let c = a.tensor(cx, "condition")?;
            let x = a.tensor(cx, "input")?;
            let y = a.tensor(cx, "other")?;
            t(select3(cx, op, &c, &x, &y)?)
        }
        "add" | "sub" => {
            let x = a.tensor(cx, "input")?;
            let mut y = a.tensor(cx, "other")?;
            if a.get("alpha").is_some() {
                let al = a.number(cx, "alpha", None)?;
                y = y.map(cx.terms, |t, e| t.mul(al, e));
            }
            t(elementwise2(cx, op, &x, &y)?)
        }
        "div" => {
            let x = a.tensor(cx, "input")?;
            let y = a.tensor(cx, "other")?;
            let name = match a.get("rounding_mode") {
                None => "div",
                Some(Value::Str(m)) if m == "floor" => "floor_divide",
                Some(Value::Str(m)) if m == "trunc" => "trunc_divide",
                Some(v) => {
                    return Err(a.bad("rounding_mode", "None, 'trunc' or 'floor'", v));
                }
            };
            t(elementwise2(cx, name, &x, &y)?)
        }
        "maximum" | "minimum" | "mul" | "floor_divide" | "remainder" | "fmod" | "gt" | "lt"
        | "ge" | "le" | "eq" | "ne" => {
            let x = a.tensor(cx, "input")?;
            let y = a.tensor(cx, "other")?;
            t(elementwise2(cx, op, &x, &y)?)
        }
        "sum" | "mean" | "prod" | "amax" | "amin" | "logsumexp" => {
            let x = a.tensor(cx, "input")?;
            let dims = reduce_dims(op, &x, a.ints("dim")?)?;
            let keep = a.bool("keepdim", false)?;
            if op == "mean" && is_bool(cx.terms, &x) {
                return Err(
                    "mean: input is a bool tensor; PyTorch's mean needs a floating \
                            dtype (write `.sum()` / N or `.double()` first)"
                        .into(),
                );
            }
            t(match op {
                "sum" => sum(cx, &x, &dims, keep),
                "mean" => mean(cx, &x, &dims, keep),
                "prod" => x.reduce(cx.terms, &dims, keep, |t, ops| t.product(ops)),
                "amax" => amax(cx, &x, &dims, keep),
                "amin" => amin(cx, &x, &dims, keep),
                _ => logsumexp(cx, &x, &dims, keep)?,
            })
        }
        "max" | "min" => {
            let x = a.tensor(cx, "input")?;
            let keep = a.bool("keepdim", false)?;
            match a.get("dim") {
                None => {
                    let dims: Vec<usize> = (0..x.ndim()).collect();
                    t(if op == "max" {
                        amax(cx, &x, &dims, false)
                    } else {
                        amin(cx, &x, &dims, false)
                    })
                }
                Some(Value::Int(d)) => {
                    let dims = reduce_dims(op, &x, Some(vec![*d]))?;
                    Ok(Value::MaxResult(if op == "max" {
                        amax(cx, &x, &dims, keep)
                    } else {
                        amin(cx, &x, &dims, keep)
                    }))
                }
                Some(other) => {
                    // torch.max(a, b) is maximum(a, b).
                    let y = cx
                        .tensor(other)
                        .map_err(|_| a.bad("dim", "an int or a tensor", other))?;
                    let name = if op == "max" { "maximum" } else { "minimum" };
                    t(elementwise2(cx, name, &x, &y)?)
                }
            }
        }
        "var" | "std" => {
            let x = a.tensor(cx, "input")?;
            let dims = reduce_dims(op, &x, a.ints("dim")?)?;
            let keep = a.bool("keepdim", false)?;
            let correction = match (a.get("correction"), a.get("unbiased")) {
                (Some(_), Some(_)) => {
                    return Err(format!(
                        "{op}: give either `correction` or `unbiased`, not both"
                    ))
                }
                (Some(Value::Int(c)), None) => *c,
                (Some(v), None) => return Err(a.bad("correction", "an int", v)),
                (None, _) => a.bool("unbiased", true)? as i64,
            };
            let v = var(cx, &x, &dims, correction, keep)?;
            t(if op == "std" {
                v.map(cx.terms, |t, e| t.call(Func::Sqrt, e))
            } else {
                v
            })
        }
        "softmax" | "log_softmax" => {
            let x = a.tensor(cx, "input")?;
            let d = a.req_int("dim")?;
            let d = one_dim(op, &x, d)?;
            if x.ndim() == 0 {
                let one = Tensor::scalar(cx.int(if op == "softmax" { 1 } else { 0 }));
                return t(one);
            }
            t(if op == "softmax" {
                softmax(cx, &x, d)?
            } else {
                log_softmax(cx, &x, d)?
            })
        }
        "normalize" => {
            let x = a.tensor(cx, "input")?;
            let d = one_dim(op, &x, a.int("dim")?.unwrap_or(1))?;
            let p = a.number(cx, "p", Some("2"))?;
            let p = cx.terms.as_const(p).cloned();
            let eps = a.number(cx, "eps", Some("1e-12"))?;
            t(normalize(cx, &x, p, d, eps)?)
        }
        "layer_norm" | "rms_norm" => {
            let x = a.tensor(cx, "input")?;
            let ns = a.shape("normalized_shape")?;
            let w = a.opt_tensor(cx, "weight")?;
            if op == "layer_norm" {
                let b = a.opt_tensor(cx, "bias")?;
                let eps = a.number(cx, "eps", Some("1e-5"))?;
                t(layer_norm(cx, &x, &ns, w.as_ref(), b.as_ref(), eps)?)
            } else {
                let eps = match a.get("eps") {
                    Some(_) => a.number(cx, "eps", None)?,
                    None => {
                        let e = cx.float.epsilon();
                        cx.terms.float(e)
                    }
                };
                t(rms_norm(cx, &x, &ns, w.as_ref(), eps)?)
            }
        }
        "matmul" | "mm" | "bmm" => {
            let x = a.tensor(cx, "input")?;
            let y = a.tensor(cx, "other")?;
            let want = match op {
                "mm" => Some(2),
                "bmm" => Some(3),
                _ => None,
            };
            if let Some(n) = want {
                if x.ndim() != n || y.ndim() != n {
                    return Err(format!(
                        "{op}: expects two {n}-D tensors, got shapes {} and {}",
                        x.shape_str(),
                        y.shape_str()
                    ));
                }
                if n == 3 && x.shape[0] != y.shape[0] {
                    return Err(format!(
                        "bmm: batch sizes differ in shapes {} and {}",
                        x.shape_str(),
                        y.shape_str()
                    ));
                }
            }
            t(matmul(cx, op, &x, &y)?)
        }
        "linear" => {
            let x = a.tensor(cx, "input")?;
            let w = a.tensor(cx, "weight")?;
            if w.ndim() > 2 || w.ndim() == 0 {
                return Err(format!(
                    "linear: weight must be 1-D or 2-D, got shape {}",
                    w.shape_str()
                ));
            }
            let wt = if w.ndim() == 2 { w.transpose(0, 1) } else { w };
            let mut y = matmul(cx, op, &x, &wt)?;
            if let Some(b) = a.opt_tensor(cx, "bias")? {
                y = binary(cx, op, &y, &b, |t, a, b| t.add(a, b))?;
            }
            t(y)
        }
        "transpose" => {
            let x = a.tensor(cx, "input")?;
            let d0 = one_dim(op, &x, a.req_int("dim0")?)?;
            let d1 = one_dim(op, &x, a.req_int("dim1")?)?;
            if x.ndim() == 0 {
                return t(x);
            }
            t(x.transpose(d0, d1))
        }
        "t" => {
            let x = a.tensor(cx, "input")?;
            match x.ndim() {
                0 | 1 => t(x),
                2 => t(x.transpose(0, 1)),
                _ => Err(format!(
                    "t: expects a tensor with <= 2 dimensions, got shape {}",
                    x.shape_str()
                )),
            }
        }
        "permute" => {
            let x = a.tensor(cx, "input")?;
            let dims = a.ints("dims")?.ok_or_else(|| a.missing("dims"))?;
            let mut perm = Vec::new();
            for d in &dims {
                perm.push(one_dim(op, &x, *d)?);
            }
            let mut sorted = perm.clone();
            sorted.sort_unstable();
            if sorted != (0..x.ndim()).collect::<Vec<_>>() {
                return Err(format!(
                    "permute: {dims:?} is not a permutation of the dims of shape {}",
                    x.shape_str()
                ));
            }
            t(x.permute(&perm))
        }
        "reshape" => {
            let x = a.tensor(cx, "input")?;
            let want = a.ints("shape")?.unwrap_or_default();
            let shape = infer_shape(op, &want, x.elems.len(), &x.shape)?;
            t(x.reshape(shape))
        }
        "expand" => {
            let x = a.tensor(cx, "input")?;
            let want = a.ints("size")?.unwrap_or_default();
            let lead = want.len().checked_sub(x.ndim()).ok_or_else(|| {
                format!(
                    "expand: size {want:?} has fewer dims than shape {}",
                    x.shape_str()
                )
            })?;
            let mut shape = Vec::new();
            for (i, &w) in want.iter().enumerate() {
                shape.push(if w == -1 && i >= lead {
                    x.shape[i - lead]
                } else {
                    usize::try_from(w).map_err(|_| format!("expand: invalid size {want:?}"))?
                });
            }
            t(x.broadcast_to(&shape).map_err(|m| format!("expand: {m}"))?)
        }
        "flatten" => {
            let x = a.tensor(cx, "input")?;
            if x.ndim() == 0 {
                return t(x.reshape(vec![1]));
            }
            let s = one_dim(op, &x, a.int("start_dim")?.unwrap_or(0))?;
            let e = one_dim(op, &x, a.int("end_dim")?.unwrap_or(-1))?;
            if s > e {
                return Err("flatten: start_dim cannot come after end_dim".into());
            }
            let mut shape = x.shape[..s].to_vec();
            shape.push(x.shape[s..=e].iter().product());
            shape.extend_from_slice(&x.shape[e + 1..]);
            t(x.reshape(shape))
        }
        "unsqueeze" => {
            let x = a.tensor(cx, "input")?;
            let d = a.req_int("dim")?;
            let d = norm_dim(d, x.ndim() + 1)
                .map_err(|m| format!("unsqueeze: {m} for input of shape {}", x.shape_str()))?;
            let mut shape = x.shape.clone();
            shape.insert(d, 1);
            t(x.reshape(shape))
        }
        "squeeze" => {
            let x = a.tensor(cx, "input")?;
            let dims = match a.ints("dim")? {
                None => (0..x.ndim()).collect(),
                Some(ds) => reduce_dims(op, &x, Some(ds))?,
            };
            let shape = (0..x.ndim())
                .filter(|d| !(dims.contains(d) && x.shape[*d] == 1))
                .map(|d| x.shape[d])
                .collect();
            t(x.reshape(shape))
        }
        "chunk" | "split" => {
            let x = a.tensor(cx, "input")?;
            if x.ndim() == 0 {
                return Err(format!(
                    "{op}: expects a tensor with at least one dimension"
                ));
            }
            let d = one_dim(op, &x, a.int("dim")?.unwrap_or(0))?;
            let n = x.shape[d];
            let sizes = if op == "chunk" {
                let c = a.req_int("chunks")?;
                if c <= 0 {
                    return Err(format!("chunk: number of chunks must be positive, got {c}"));
                }
                chunk_sizes(n, c as usize)
            } else {
                match a.req("split_size_or_sections")? {
                    Value::Int(s) if *s > 0 => {
                        let s = *s as usize;
                        (0..n.div_ceil(s)).map(|i| s.min(n - i * s)).collect()
                    }
                    Value::Tuple(_) => {
                        let sizes = a.shape("split_size_or_sections")?;
                        if sizes.iter().sum::<usize>() != n {
                            return Err(format!(
                                "split: sections {sizes:?} do not add up to {n}, the size of dim {d} of shape {}",
                                x.shape_str()
                            ));
                        }
                        sizes
                    }
                    v => {
                        return Err(a.bad(
                            "split_size_or_sections",
                            "a positive int or a list of ints",
                            v,
                        ))
                    }
                }
            };
            Ok(split_at(&x, d, &sizes))
        }
        "cat" | "stack" => {
            let parts = a.tensors(cx, "tensors")?;
            let dim = a.int("dim")?.unwrap_or(0);
            if op == "cat" {
                return t(cat(op, &parts, dim)?);
            }
            let Some(first) = parts.first() else {
                return Err("stack: expected a non-empty list of tensors".into());
            };
            if let Some(p) = parts.iter().find(|p| p.shape != first.shape) {
                return Err(format!(
                    "stack: all tensors must have the same shape, got {} and {}",
                    first.shape_str(),
                    p.shape_str()
                ));
            }
            let d = norm_dim(dim, first.ndim() + 1)
                .map_err(|m| format!("stack: {m} for inputs of shape {}", first.shape_str()))?;
            let ups: Vec<Tensor> = parts
                .iter()
                .map(|p| {
                    let mut s = p.shape.clone();
                    s.insert(d, 1);
                    p.reshape(s)
                })
                .collect();
            t(concat(&ups, d))
        }
        "contiguous" => t(a.tensor(cx, "input")?),
        "to" => {
            let x = a.tensor(cx, "input")?;
            let dtype = a
                .vals
                .iter()
                .flatten()
                .any(|v| matches!(v, Value::Dtype(_)))
                || matches!(a.get("args"), Some(Value::Tuple(v)) if v.iter().any(|v| matches!(v, Value::Dtype(_))));
            t(if dtype { to_float(cx, x) } else { x })
        }
        "float" | "double" | "half" | "bfloat16" => {
            let to = match op {
                "float" => FloatType::F32,
                "double" => FloatType::F64,
                "half" => FloatType::F16,
                _ => FloatType::BF16,
            };
            narrowing(op, cx.float, to)?;
            let x = a.tensor(cx, "input")?;
            t(to_float(cx, x))
        }
        "size" => {
            let x = a.tensor(cx, "input")?;
            match a.int("dim")? {
                Some(d) => {
                    let d = one_dim(op, &x, d)?;
                    Ok(Value::Int(x.shape.get(d).copied().unwrap_or(1) as i64))
                }
                None => Ok(Value::Tuple(
                    x.shape.iter().map(|&s| Value::Int(s as i64)).collect(),
                )),
            }
        }
        "dim" => Ok(Value::Int(a.tensor(cx, "input")?.ndim() as i64)),
        "zeros" | "ones" => {
            let shape = a.shape("size")?;
            let v = cx.int((op == "ones") as i64);
            t(Tensor::full(&shape, v))
        }
        "full" => {
            let shape = a.shape("size")?;
            let v = a.number(cx, "fill_value", None)?;
            t(Tensor::full(&shape, v))
        }
        "zeros_like" | "ones_like" => {
            let x = a.tensor(cx, "input")?;
            let v = cx.int((op == "ones_like") as i64);
            t(like(cx, &x, v))
        }
        "full_like" => {
            let x = a.tensor(cx, "input")?;
            let v = a.number(cx, "fill_value", None)?;
            t(like(cx, &x, v))
        }
        "cross_entropy" => {
            let x = a.tensor(cx, "input")?;
            let target = a.tensor(cx, "target")?;
            for unsupported in ["weight", "size_average", "reduce"] {
                if a.get(unsupported).is_some() {
                    return Err(format!("cross_entropy: `{unsupported}` is not supported"));
                }
            }
            let ignore_index = a.int("ignore_index")?.unwrap_or(-100);
            let smoothing = a.number(cx, "label_smoothing", Some("0"))?;
            let reduction = a.str("reduction", "mean")?;
            t(losses::cross_entropy(
                cx,
                &x,
                &target,
                ignore_index,
                smoothing,
                &reduction,
            )?)
        }
        _ => Err(format!("{op}: not implemented")),
    }
}

/// Ops PyTorch has that specs cannot express, with the reason.
pub(crate) fn unsupported_reason(name: &str) -> Option<&'static str> {
    match name {
        "nll_loss" | "argmax" | "argmin" | "gather" | "index_select" | "embedding" | "one_hot"
        | "topk" | "sort" => {
            Some("needs integer indices or targets, which specs cannot express (tensors are real)")
        }
        "dropout" => Some("is random"),
        _ => None,
    }
}
