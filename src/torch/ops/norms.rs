//! Normalizations: `F.normalize`, `layer_norm`, `rms_norm`.

use super::super::tensor::{fmt_shape, Tensor};
use super::super::value::{Cx, Value};
use super::args::Args;
use super::elementwise::binary;
use super::reductions::{mean, one_dim, sum};
use super::R;
use crate::term::{Func, TermId};
use num_rational::BigRational;
use num_traits::ToPrimitive;

/// The ops whose arms are in this file.
pub(super) const OPS: &[&str] = &["normalize", "layer_norm", "rms_norm"];

/// `F.normalize`: `x / max(norm_p(x, dim), eps)`, for p = 1 (`sum |x|`) and p = 2
/// (`sqrt(sum x^2)`).
pub(super) fn normalize(
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
        _ => unreachable!("{op} is not in this file's OPS"),
    }
}
