//! Reductions over dims: sum, mean, prod, amax/amin, max/min, var/std, softmax,
//! log_softmax, logsumexp.

use super::super::tensor::Tensor;
use super::super::value::{Cx, Value};
use super::args::{one_dim, reduce_dims, Args};
use super::elementwise::{binary, elementwise2, is_bool};
use crate::term::Func;

type R<T> = Result<T, String>;

/// The ops whose arms are in this file.
pub(super) const OPS: &[&str] = &[
    "sum",
    "mean",
    "prod",
    "amax",
    "amin",
    "logsumexp",
    "max",
    "min",
    "var",
    "std",
    "softmax",
    "softmin",
    "log_softmax",
    "argmax",
    "argmin",
];

pub(super) fn sum(cx: &mut Cx, x: &Tensor, dims: &[usize], keepdim: bool) -> Tensor {
    x.reduce(cx.terms, dims, keepdim, |t, ops| t.sum(ops))
}

pub(super) fn count(x: &Tensor, dims: &[usize]) -> i64 {
    dims.iter().map(|&d| x.shape[d] as i64).product()
}

pub(super) fn mean(cx: &mut Cx, x: &Tensor, dims: &[usize], keepdim: bool) -> Tensor {
    let n = count(x, dims);
    let s = sum(cx, x, dims, keepdim);
    s.map(cx.terms, |t, e| {
        let n = t.int(n);
        t.div(e, n)
    })
}

pub(super) fn amax(cx: &mut Cx, x: &Tensor, dims: &[usize], keepdim: bool) -> Tensor {
    x.reduce(cx.terms, dims, keepdim, |t, ops| t.maxn(ops))
}

pub(super) fn amin(cx: &mut Cx, x: &Tensor, dims: &[usize], keepdim: bool) -> Tensor {
    x.reduce(cx.terms, dims, keepdim, |t, ops| t.minn(ops))
}

/// Variance with `correction` (1: unbiased, 0: population).
pub(super) fn var(
    cx: &mut Cx,
    x: &Tensor,
    dims: &[usize],
    correction: i64,
    keepdim: bool,
) -> R<Tensor> {
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
pub(super) fn softmax(cx: &mut Cx, x: &Tensor, dim: usize) -> R<Tensor> {
    let m = amax(cx, x, &[dim], true);
    let d = binary(cx, "softmax", x, &m, |t, a, b| t.sub(a, b))?;
    let e = d.map(cx.terms, |t, v| t.call(Func::Exp, v));
    let s = sum(cx, &e, &[dim], true);
    binary(cx, "softmax", &e, &s, |t, a, b| t.div(a, b))
}

/// `(x - max) - log(sum(exp(x - max)))`.
pub(super) fn log_softmax(cx: &mut Cx, x: &Tensor, dim: usize) -> R<Tensor> {
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
pub(super) fn logsumexp(cx: &mut Cx, x: &Tensor, dims: &[usize], keepdim: bool) -> R<Tensor> {
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

/// The arms of the reductions.
pub(super) fn call(cx: &mut Cx, a: &Args) -> R<Value> {
    let op = a.op;
    let t = |v: Tensor| Ok(Value::Tensor(v));
    match op {
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
        "argmax" | "argmin" => {
            let x = a.tensor(cx, "input")?;
            let keep = a.bool("keepdim", false)?;
            let max = op == "argmax";
            match a.int("dim")? {
                None => {
                    if x.elems.is_empty() {
                        return Err(format!("{op}: the input has no elements"));
                    }
                    let flat = x.reshape(vec![x.elems.len()]);
                    let r = flat.reduce(cx.terms, &[0], false, |t, row| t.arg_extreme(row, max));
                    let shape = if keep { vec![1; x.ndim()] } else { vec![] };
                    t(r.reshape(shape))
                }
                Some(d) => {
                    let dims = reduce_dims(op, &x, Some(vec![d]))?;
                    if dims.iter().any(|&d| x.shape[d] == 0) {
                        return Err(format!("{op}: cannot reduce over an empty dimension"));
                    }
                    t(x.reduce(cx.terms, &dims, keep, |t, row| t.arg_extreme(row, max)))
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
        "softmax" | "softmin" | "log_softmax" => {
            let x = a.tensor(cx, "input")?;
            let d = a.req_int("dim")?;
            let d = one_dim(op, &x, d)?;
            if x.ndim() == 0 {
                let one = Tensor::scalar(cx.int(if op == "log_softmax" { 0 } else { 1 }));
                return t(one);
            }
            t(if op == "softmax" {
                softmax(cx, &x, d)?
            } else if op == "softmin" {
                // PyTorch's softmin is softmax of the negated input.
                let n = x.map(cx.terms, |t, e| t.neg(e));
                softmax(cx, &n, d)?
            } else {
                log_softmax(cx, &x, d)?
            })
        }
        _ => unreachable!("{op} is not in this file's OPS"),
    }
}
