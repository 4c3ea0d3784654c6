//! Activations with parameters, each written as PyTorch defines it (ATen's CPU kernels
//! and `torch.nn.functional`'s documentation), thresholds and defaults included. The
//! differential test `tests/torch_diff.rs` holds every one against real PyTorch.

use super::super::tensor::Tensor;
use super::super::value::Cx;
use crate::term::{CmpOp, Func, TermId, Terms};

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
