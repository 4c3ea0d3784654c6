//! Norms and normalizations: `torch.norm`, `torch.linalg.vector_norm`, `F.normalize`,
//! `layer_norm`, `rms_norm`.

use super::super::tensor::{fmt_shape, Tensor};
use super::super::value::{Cx, Value};
use super::args::Args;
use super::args::{one_dim, reduce_dims};
use super::elementwise::binary;
use super::reductions::{amax, amin, mean, sum};
use crate::term::{CmpOp, Func, TermId};
use num_traits::ToPrimitive;

type R<T> = Result<T, String>;

/// The ops whose arms are in this file.
pub(super) const OPS: &[&str] = &["normalize", "norm", "vector_norm", "layer_norm", "rms_norm"];

/// The orders of a vector norm lift can express.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Order {
    /// The number of nonzero elements.
    Zero,
    One,
    Two,
    Inf,
    NegInf,
}

/// The order in argument `name` (`p` or `ord`): 0, 1, 2, ±inf, `'fro'` (2) where
/// `fro` is true; anything else is an error naming the argument.
pub(super) fn order(cx: &mut Cx, a: &Args, name: &str, fro: bool) -> R<Order> {
    let bad = |what: String| {
        Err(format!(
            "{}: argument `{name}` = {what} is not supported (only 0, 1, 2, inf and -inf{})",
            a.op,
            if fro { ", 'fro'" } else { "" }
        ))
    };
    let v = match a.get(name) {
        None => return Ok(Order::Two),
        Some(Value::Str(s)) if fro && s == "fro" => return Ok(Order::Two),
        Some(Value::Str(s)) => return bad(format!("'{s}'")),
        Some(v) => v.clone(),
    };
    let term = match cx.tensor(&v) {
        Ok(t) if t.ndim() == 0 => t.elems[0],
        _ => return Err(a.bad(name, "a number", &v)),
    };
    if let Some(neg) = cx.terms.as_inf(term) {
        return Ok(if neg { Order::NegInf } else { Order::Inf });
    }
    let Some(k) = cx.terms.as_const(term).cloned() else {
        return bad("a symbolic scalar".into());
    };
    match k.is_integer().then(|| k.to_integer().to_i32()).flatten() {
        Some(0) => Ok(Order::Zero),
        Some(1) => Ok(Order::One),
        Some(2) => Ok(Order::Two),
        _ => bad(cx.show(k.to_f64().unwrap_or(f64::NAN))),
    }
}

/// `torch.linalg.vector_norm` over `dims`: 0 counts nonzeros, 1 is `sum |x|`, 2 is
/// `sqrt(sum x^2)`, ±inf is `max`/`min |x|`.
pub(super) fn vector_norm(
    cx: &mut Cx,
    x: &Tensor,
    ord: Order,
    dims: &[usize],
    keepdim: bool,
) -> Tensor {
    match ord {
        Order::Zero => {
            let nz = x.map(cx.terms, |t, e| {
                let z = t.zero();
                let c = t.cmp(CmpOp::Ne, e, z);
                let one = t.one();
                t.select(c, one, z)
            });
            sum(cx, &nz, dims, keepdim)
        }
        Order::One => {
            let a = x.map(cx.terms, |t, e| t.call(Func::Abs, e));
            sum(cx, &a, dims, keepdim)
        }
        Order::Two => {
            let sq = x.map(cx.terms, |t, e| t.powi(e, 2));
            sum(cx, &sq, dims, keepdim).map(cx.terms, |t, e| t.call(Func::Sqrt, e))
        }
        Order::Inf | Order::NegInf => {
            let a = x.map(cx.terms, |t, e| t.call(Func::Abs, e));
            if ord == Order::Inf {
                amax(cx, &a, dims, keepdim)
            } else {
                amin(cx, &a, dims, keepdim)
            }
        }
    }
}

/// `F.normalize`: `x / max(norm_p(x, dim), eps)`.
pub(super) fn normalize(cx: &mut Cx, x: &Tensor, p: Order, dim: usize, eps: TermId) -> R<Tensor> {
    if x.ndim() == 0 {
        return Err("normalize: expects a tensor with at least one dimension".into());
    }
    let norm = vector_norm(cx, x, p, &[dim], true);
    let denom = norm.map(cx.terms, |t, n| t.max(n, eps));
    binary(cx, "normalize", x, &denom, |t, a, b| t.div(a, b))
}

/// The trailing dims a `normalized_shape` covers, checked against the input.
pub(super) fn normalized_dims(op: &str, x: &Tensor, ns: &[usize]) -> R<Vec<usize>> {
    if ns.len() > x.ndim() || x.shape[x.ndim() - ns.len()..] != *ns {
        return Err(format!(
            "{op}: normalized_shape {} does not match the trailing dims of input shape {}",
            fmt_shape(ns),
            x.shape_str()
        ));
    }
    Ok((x.ndim() - ns.len()..x.ndim()).collect())
}

pub(super) fn affine_param(op: &str, name: &str, p: &Tensor, ns: &[usize]) -> R<()> {
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
pub(super) fn layer_norm(
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
pub(super) fn rms_norm(
    cx: &mut Cx,
    x: &Tensor,
    ns: &[usize],
    w: Option<&Tensor>,
    eps: TermId,
) -> R<Tensor> {
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

/// The arms of the normalizations.
pub(super) fn call(cx: &mut Cx, a: &Args) -> R<Value> {
    let op = a.op;
    let t = |v: Tensor| Ok(Value::Tensor(v));
    match op {
        "normalize" => {
            let x = a.tensor(cx, "input")?;
            let d = one_dim(op, &x, a.int("dim")?.unwrap_or(1))?;
            let p = order(cx, a, "p", false)?;
            let eps = a.number(cx, "eps", Some("1e-12"))?;
            t(normalize(cx, &x, p, d, eps)?)
        }
        "norm" | "vector_norm" => {
            let x = a.tensor(cx, a.names[0])?;
            let ord = if op == "norm" {
                order(cx, a, "p", true)?
            } else {
                order(cx, a, "ord", false)?
            };
            let dims = reduce_dims(op, &x, a.ints("dim")?)?;
            if op == "norm" && matches!(a.get("p"), Some(Value::Str(_))) && dims.len() > 2 {
                return Err(
                    "norm: p='fro' over more than 2 dims is a matrix norm, which is not supported"
                        .into(),
                );
            }
            let keep = a.bool("keepdim", false)?;
            t(vector_norm(cx, &x, ord, &dims, keep))
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
        _ => unreachable!("{op} is not in this file's OPS"),
    }
}
