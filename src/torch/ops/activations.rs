//! Activations with parameters, each written as PyTorch defines it (ATen's CPU kernels
//! and `torch.nn.functional`'s documentation), thresholds and defaults included. The
//! differential test `tests/it/torch_diff.rs` holds every one against real PyTorch.

use super::super::tensor::Tensor;
use super::super::value::{Cx, Value};
use super::args::Args;
use super::elementwise::clamp;
use crate::term::{CmpOp, Func, TermId, Terms};
use num_traits::{Signed, Zero};

type R<T> = Result<T, String>;

/// `x > 0 ? x : neg(x)`, elementwise (leaky_relu, elu: PyTorch tests `x > 0`, so NaN
/// takes the negative branch, which propagates it).
pub(super) fn where_positive(
    cx: &mut Cx,
    x: &Tensor,
    neg: impl Fn(&mut Terms, TermId) -> TermId,
) -> Tensor {
    x.map(cx.terms, |t, e| {
        let z = t.zero();
        let c = t.cmp(CmpOp::Gt, e, z);
        let n = neg(t, e);
        t.select(c, e, n)
    })
}

/// `F.leaky_relu`: `x > 0 ? x : negative_slope * x`.
pub(super) fn leaky_relu(cx: &mut Cx, x: &Tensor, slope: TermId) -> Tensor {
    where_positive(cx, x, move |t, e| t.mul(slope, e))
}

/// `F.elu`: `x > 0 ? x : alpha * (exp(x) - 1)`.
pub(super) fn elu(cx: &mut Cx, x: &Tensor, alpha: TermId) -> Tensor {
    where_positive(cx, x, move |t, e| {
        let ex = t.call(Func::Exp, e);
        let m1 = t.int(-1);
        let em1 = t.add(ex, m1);
        t.mul(alpha, em1)
    })
}

/// `F.softplus`: `beta * x > threshold ? x : log(1 + exp(beta * x)) / beta`. Above the
/// threshold PyTorch returns `x` itself (not the nearly equal `log(1 + e^x)`, which
/// overflows f32 beyond x ≈ 88.7).
pub(super) fn softplus(cx: &mut Cx, x: &Tensor, beta: TermId, threshold: TermId) -> Tensor {
    x.map(cx.terms, |t, e| {
        let be = t.mul(beta, e);
        let above = t.cmp(CmpOp::Gt, be, threshold);
        let ex = t.call(Func::Exp, be);
        let one = t.one();
        let s = t.add(one, ex);
        let l = t.call(Func::Log, s);
        let soft = t.div(l, beta);
        t.select(above, e, soft)
    })
}

/// `F.gelu(approximate='none')`: `0.5 * x * (1 + erf(x / sqrt(2)))`.
pub(super) fn gelu_erf(cx: &mut Cx, x: &Tensor) -> Result<Tensor, String> {
    let half = cx.decimal("0.5")?;
    let c = cx.real(std::f64::consts::FRAC_1_SQRT_2);
    Ok(x.map(cx.terms, |t, e| {
        let s = t.mul(e, c);
        let erf = t.call(Func::Erf, s);
        let one = t.one();
        let p = t.add(one, erf);
        t.product(&[half, e, p])
    }))
}

/// `F.gelu(approximate='tanh')`: `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))`.
pub(super) fn gelu_tanh(cx: &mut Cx, x: &Tensor) -> Result<Tensor, String> {
    let half = cx.decimal("0.5")?;
    let c = cx.real((2.0 / std::f64::consts::PI).sqrt());
    let k = cx.decimal("0.044715")?;
    Ok(x.map(cx.terms, |t, e| {
        let cube = t.powi(e, 3);
        let kc = t.mul(k, cube);
        let inner = t.add(e, kc);
        let arg = t.mul(c, inner);
        let th = t.call(Func::Tanh, arg);
        let one = t.one();
        let p = t.add(one, th);
        t.product(&[half, e, p])
    }))
}

/// `F.selu`: `scale * (x > 0 ? x : alpha * (exp(x) - 1))` with PyTorch's constants
/// (`alpha = 1.6732632423543772848170429916717`, `scale = 1.0507009873554804934193349852946`).
fn selu(cx: &mut Cx, x: &Tensor) -> R<Tensor> {
    let alpha = cx.decimal("1.6732632423543772848170429916717")?;
    let scale = cx.decimal("1.0507009873554804934193349852946")?;
    let e = elu(cx, x, alpha);
    Ok(e.map(cx.terms, |t, v| t.mul(scale, v)))
}

/// `clamp(x + 3, 0, 6) / 6` (hardsigmoid; times `x` for hardswish). NaN propagates
/// through the clamp, as in PyTorch.
fn relu6_shifted(t: &mut Terms, x: TermId) -> TermId {
    let three = t.int(3);
    let s = t.add(x, three);
    let (z, six) = (t.zero(), t.int(6));
    let lo = t.max(s, z);
    let c = t.min(lo, six);
    t.div(c, six)
}

/// `F.mish`: `x * tanh(log(1 + exp(x)))` (PyTorch's kernel has no softplus threshold).
fn mish(t: &mut Terms, x: TermId) -> TermId {
    let e = t.call(Func::Exp, x);
    let one = t.one();
    let s = t.add(one, e);
    let l = t.call(Func::Log, s);
    let th = t.call(Func::Tanh, l);
    t.mul(x, th)
}

/// `F.softsign`: `x / (1 + |x|)`.
fn softsign(t: &mut Terms, x: TermId) -> TermId {
    let a = t.call(Func::Abs, x);
    let one = t.one();
    let d = t.add(one, a);
    t.div(x, d)
}

/// `F.logsigmoid`: `min(x, 0) - log(1 + exp(-|x|))`, PyTorch's stable form (equal to
/// `-log(1 + exp(-x))` over the reals, and finite where `exp(-x)` overflows).
fn logsigmoid(t: &mut Terms, x: TermId) -> TermId {
    let z = t.zero();
    let m = t.min(x, z);
    let a = t.call(Func::Abs, x);
    let na = t.neg(a);
    let e = t.call(Func::Exp, na);
    let one = t.one();
    let s = t.add(one, e);
    let l = t.call(Func::Log, s);
    t.sub(m, l)
}

/// `F.softshrink`: `x > l ? x - l : (x < -l ? x + l : x * 0)`. PyTorch writes the
/// middle branch as `x * 0` so that NaN (which fails both tests) stays NaN; terms are
/// over the reals, where `x * 0` is 0, so the middle is `x >= -l ? 0 : x` (the same on
/// every real, and NaN on NaN).
fn softshrink(cx: &mut Cx, x: &Tensor, lambd: TermId) -> Tensor {
    x.map(cx.terms, |t, e| {
        let nl = t.neg(lambd);
        let above = t.cmp(CmpOp::Gt, e, lambd);
        let below = t.cmp(CmpOp::Lt, e, nl);
        let (sub, add) = (t.sub(e, lambd), t.add(e, lambd));
        let z = t.zero();
        let not_nan = t.cmp(CmpOp::Ge, e, nl);
        let mid = t.select(not_nan, z, e);
        let inner = t.select(below, add, mid);
        t.select(above, sub, inner)
    })
}

/// `F.hardshrink`: `-l <= x <= l ? 0 : x` (NaN fails the test and stays NaN).
fn hardshrink(cx: &mut Cx, x: &Tensor, lambd: TermId) -> Tensor {
    x.map(cx.terms, |t, e| {
        let nl = t.neg(lambd);
        let lo = t.cmp(CmpOp::Ge, e, nl);
        let hi = t.cmp(CmpOp::Le, e, lambd);
        let z = t.zero();
        let inside_hi = t.select(hi, z, e);
        t.select(lo, inside_hi, e)
    })
}

/// `F.threshold`: `x <= threshold ? value : x` (NaN fails the test and stays NaN).
fn threshold(cx: &mut Cx, x: &Tensor, th: TermId, value: TermId) -> Tensor {
    x.map(cx.terms, |t, e| {
        let c = t.cmp(CmpOp::Le, e, th);
        t.select(c, value, e)
    })
}

/// `F.tanhshrink`: `x - tanh(x)`.
fn tanhshrink(t: &mut Terms, x: TermId) -> TermId {
    let th = t.call(Func::Tanh, x);
    t.sub(x, th)
}

/// The ops whose arms are in this file.
pub(super) const OPS: &[&str] = &[
    "relu6",
    "leaky_relu",
    "elu",
    "gelu",
    "softplus",
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
];

/// The arms of the activations with parameters.
pub(super) fn call(cx: &mut Cx, a: &Args) -> R<Value> {
    let op = a.op;
    let t = |v: Tensor| Ok(Value::Tensor(v));
    match op {
        "relu6" => {
            let x = a.tensor(cx, "input")?;
            let (lo, hi) = (Tensor::scalar(cx.int(0)), Tensor::scalar(cx.int(6)));
            t(clamp(cx, op, &x, Some(&lo), Some(&hi))?)
        }
        "leaky_relu" => {
            let x = a.tensor(cx, "input")?;
            let s = a.number(cx, "negative_slope", Some("0.01"))?;
            t(leaky_relu(cx, &x, s))
        }
        "elu" => {
            let x = a.tensor(cx, "input")?;
            let al = a.number(cx, "alpha", Some("1"))?;
            t(elu(cx, &x, al))
        }
        "celu" => {
            // PyTorch's celu is its elu kernel with the input scaled by 1/alpha:
            // `x > 0 ? x : alpha * (exp(x / alpha) - 1)`.
            let x = a.tensor(cx, "input")?;
            let al = a.number(cx, "alpha", Some("1"))?;
            if cx.terms.as_const(al).is_some_and(|v| v.is_zero()) {
                return Err("celu: argument `alpha` must not be 0 (PyTorch divides by it)".into());
            }
            Ok(Value::Tensor(where_positive(cx, &x, move |t, e| {
                let s = t.div(e, al);
                let ex = t.call(Func::Exp, s);
                let m1 = t.int(-1);
                let em1 = t.add(ex, m1);
                t.mul(al, em1)
            })))
        }
        "softshrink" | "hardshrink" => {
            let x = a.tensor(cx, "input")?;
            let l = a.number(cx, "lambd", Some("0.5"))?;
            if op == "softshrink" && cx.terms.as_const(l).is_some_and(|v| v.is_negative()) {
                return Err("softshrink: argument `lambd` must be at least 0".into());
            }
            t(if op == "softshrink" {
                softshrink(cx, &x, l)
            } else {
                hardshrink(cx, &x, l)
            })
        }
        "threshold" => {
            let x = a.tensor(cx, "input")?;
            let th = a.number(cx, "threshold", None)?;
            let v = a.number(cx, "value", None)?;
            t(threshold(cx, &x, th, v))
        }
        "gelu" => {
            let x = a.tensor(cx, "input")?;
            match a.str("approximate", "none")?.as_str() {
                "none" => t(gelu_erf(cx, &x)?),
                "tanh" => t(gelu_tanh(cx, &x)?),
                other => Err(format!(
                    "gelu: argument `approximate` must be 'none' or 'tanh', got '{other}'"
                )),
            }
        }
        "softplus" => {
            let x = a.tensor(cx, "input")?;
            let beta = a.number(cx, "beta", Some("1"))?;
            let threshold = a.number(cx, "threshold", Some("20"))?;
            t(softplus(cx, &x, beta, threshold))
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
        "selu" => {
            let x = a.tensor(cx, "input")?;
            t(selu(cx, &x)?)
        }
        "hardsigmoid" | "hardswish" | "mish" | "softsign" | "logsigmoid" | "tanhshrink" => {
            let x = a.tensor(cx, "input")?;
            let f: fn(&mut Terms, TermId) -> TermId = match op {
                "hardsigmoid" => relu6_shifted,
                "hardswish" => |t, e| {
                    let h = relu6_shifted(t, e);
                    t.mul(e, h)
                },
                "mish" => mish,
                "softsign" => softsign,
                "tanhshrink" => tanhshrink,
                _ => logsigmoid,
            };
            t(x.map(cx.terms, f))
        }
        _ => unreachable!("{op} is not in this file's OPS"),
    }
}
