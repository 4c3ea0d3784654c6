//! Elementwise ops: the unary table, broadcasting binary
//! ops, comparisons, `where`, `clamp`, `pow`, `glu`.

use super::super::tensor::{broadcast_shapes, zip, Tensor};
use super::super::value::{Cx, Value};
use super::args::{one_dim, Args};
use crate::term::{CmpOp, Func, TermId, Terms};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive};

type R<T> = Result<T, String>;

/// The ops whose arms are in this file.
pub(super) const OPS: &[&str] = &[
    "masked_fill",
    "clamp",
    "glu",
    "pow",
    "where",
    "add",
    "sub",
    "div",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "mul",
    "floor_divide",
    "remainder",
    "fmod",
    "gt",
    "lt",
    "ge",
    "le",
    "eq",
    "ne",
];

/// The elementwise unary ops on one term, by canonical name.
pub(super) fn unary(op: &str) -> Option<fn(&mut Terms, TermId) -> TermId> {
    match op {
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
        // Half to even, as PyTorch rounds (`round(2.5) = 2`).
        "round" => Some(|t, x| t.call(Func::Rint, x)),
        // sign(0) = 0, and PyTorch's sign(NaN) is 0 too (both comparisons are false).
        "sign" => Some(|t, x| t.sign(x)),
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
    }
}

// ---- elementwise helpers on single terms ---------------------------------------------

pub(super) fn sigmoid(t: &mut Terms, x: TermId) -> TermId {
    let nx = t.neg(x);
    let e = t.call(Func::Exp, nx);
    let one = t.one();
    let d = t.add(one, e);
    t.recip(d)
}

pub(super) fn binary(
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

pub(super) fn select3(cx: &mut Cx, op: &str, c: &Tensor, a: &Tensor, b: &Tensor) -> R<Tensor> {
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
    // A condition that is not a comparison is a bool tensor read as numbers (an
    // input mask): true where it is non-zero, as PyTorch reads a bool.
    let elems = (0..c.elems.len())
        .map(|i| {
            let mut ci = c.elems[i];
            if !cx.terms.is_boolean(ci) && cx.terms.as_const(ci).is_none() {
                let zero = cx.terms.zero();
                ci = cx.terms.cmp(CmpOp::Ne, ci, zero);
            }
            cx.terms.select(ci, a.elems[i], b.elems[i])
        })
        .collect();
    Ok(Tensor::new(shape, elems))
}

pub(super) fn clamp(
    cx: &mut Cx,
    op: &str,
    x: &Tensor,
    lo: Option<&Tensor>,
    hi: Option<&Tensor>,
) -> R<Tensor> {
    let mut y = x.clone();
    if let Some(lo) = lo {
        y = binary(cx, op, &y, lo, |t, a, b| t.max(a, b))?;
    }
    if let Some(hi) = hi {
        y = binary(cx, op, &y, hi, |t, a, b| t.min(a, b))?;
    }
    Ok(y)
}

/// `base ** exponent` for a constant exponent: integers → powi, ±1/2 → sqrt/rsqrt,
/// any other real `k` → `exp(k · log base)` (PyTorch's value: NaN at a negative base).
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
            "{op}: the exponent must be a constant number, got {}",
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
        // A real exponent (already rounded to the float type, as PyTorch passes it):
        // exp(k·log x), NaN for x < 0 as in PyTorch.
        x.map(cx.terms, |t, e| t.pow_real(e, k.clone()))
    };
    Ok(Value::Tensor(y))
}

/// A bool tensor converted to a float type: `select(c, 1, 0)` (no longer bool).
pub(super) fn to_float(cx: &mut Cx, x: Tensor) -> Tensor {
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
pub(super) fn trunc(t: &mut Terms, q: TermId) -> TermId {
    let z = t.zero();
    let neg = t.cmp(CmpOp::Lt, q, z);
    let c = t.call(Func::Ceil, q);
    let f = t.call(Func::Floor, q);
    t.select(neg, c, f)
}

/// The binary elementwise ops by canonical name (`add`, `gt`, `maximum`, `&`, ...).
pub(super) fn elementwise2(cx: &mut Cx, name: &str, x: &Tensor, y: &Tensor) -> R<Tensor> {
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
        // maximum/minimum propagate NaN; fmax/fmin return the operand that is not NaN.
        "maximum" => binary(cx, name, x, y, |t, a, b| t.max(a, b)),
        "minimum" => binary(cx, name, x, y, |t, a, b| t.min(a, b)),
        "fmax" => binary(cx, name, x, y, |t, a, b| t.maxnum(a, b)),
        "fmin" => binary(cx, name, x, y, |t, a, b| t.minnum(a, b)),
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

/// The arms of the elementwise ops with arguments.
pub(super) fn call(cx: &mut Cx, a: &Args) -> R<Value> {
    let op = a.op;
    let t = |v: Tensor| Ok(Value::Tensor(v));
    match op {
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
        "masked_fill" => {
            // `where(mask, value, input)` with the mask broadcast to the input's shape
            // (PyTorch keeps the input's shape) and `value` one number.
            let x = a.tensor(cx, "input")?;
            let m = a.tensor(cx, "mask")?;
            let m = m.broadcast_to(&x.shape).map_err(|_| {
                format!(
                    "masked_fill: the mask of shape {} does not broadcast to the input's \
                     shape {}",
                    m.shape_str(),
                    x.shape_str()
                )
            })?;
            if m.elems.iter().any(|&e| !cx.terms.is_boolean(e)) {
                return Err(
                    "masked_fill: the mask must be a bool tensor (a comparison, \
                            or ones/zeros/full with dtype=torch.bool)"
                        .into(),
                );
            }
            let v = a.number(cx, "value", None)?;
            let v = Tensor::scalar(v);
            t(select3(cx, op, &m, &v, &x)?)
        }
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
        "maximum" | "minimum" | "fmax" | "fmin" | "mul" | "floor_divide" | "remainder" | "fmod"
        | "gt" | "lt" | "ge" | "le" | "eq" | "ne" => {
            let x = a.tensor(cx, "input")?;
            let y = a.tensor(cx, "other")?;
            t(elementwise2(cx, op, &x, &y)?)
        }
        _ => unreachable!("{op} is not in this file's OPS"),
    }
}
