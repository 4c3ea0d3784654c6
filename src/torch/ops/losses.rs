//! Losses, as `torch.nn.functional` defines them (defaults included: `ignore_index=-100`,
//! `label_smoothing=0`, `reduction='mean'`).

use super::super::tensor::Tensor;
use super::super::value::Cx;
use super::super::value::Value;
use super::args::Args;
use super::reductions::logsumexp;
use super::R;
use crate::term::{CmpOp, TermId};
use num_traits::Zero;

/// `F.cross_entropy` over class indices: per row `i` with `target[i] != ignore_index`,
/// `(1 - s) * (lse_i - x[i, target[i]]) + s * (lse_i - mean_c x[i, c])` (`s` the label
/// smoothing); ignored rows are 0 and left out of the mean's count (all rows ignored:
/// 0/0, NaN, as in PyTorch). Tensors are real, so the class is picked with selects:
/// `sum_c select(target[i] == c, x[i, c], 0)`.
pub(super) fn cross_entropy(
    cx: &mut Cx,
    x: &Tensor,
    target: &Tensor,
    ignore_index: i64,
    smoothing: TermId,
    reduction: &str,
) -> R<Tensor> {
    if x.ndim() != 2 || target.shape != [x.shape[0]] {
        return Err(format!(
            "cross_entropy: expects input [N, C] and target [N] (class indices); got {} and {}",
            x.shape_str(),
            target.shape_str()
        ));
    }
    if !matches!(reduction, "none" | "sum" | "mean") {
        return Err(format!(
            "cross_entropy: reduction must be 'mean', 'sum' or 'none', not '{reduction}'"
        ));
    }
    let (n, c) = (x.shape[0], x.shape[1]);
    let lse = logsumexp(cx, x, &[1], false)?;
    let t = &mut *cx.terms;
    let smoothed = t.as_const(smoothing).is_none_or(|s| !s.is_zero());
    let (mut losses, mut valid) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        let row = &x.elems[i * c..(i + 1) * c];
        let picks: Vec<TermId> = (0..c)
            .map(|k| {
                let class = t.int(k as i64);
                let is_class = t.cmp(CmpOp::Eq, target.elems[i], class);
                let zero = t.zero();
                t.select(is_class, row[k], zero)
            })
            .collect();
        let picked = t.sum(&picks);
        let mut loss = t.sub(lse.elems[i], picked);
        if smoothed {
            let total = t.sum(row);
            let inv_c = t.constant(num_rational::BigRational::new(1.into(), (c as i64).into()));
            let mean_row = t.mul(total, inv_c);
            let smooth = t.sub(lse.elems[i], mean_row);
            let one = t.one();
            let keep = t.sub(one, smoothing);
            let a = t.mul(keep, loss);
            let b = t.mul(smoothing, smooth);
            loss = t.add(a, b);
        }
        let ignore = t.int(ignore_index);
        let is_valid = t.cmp(CmpOp::Ne, target.elems[i], ignore);
        let zero = t.zero();
        losses.push(t.select(is_valid, loss, zero));
        let one = t.one();
        valid.push(t.select(is_valid, one, zero));
    }
    Ok(match reduction {
        "none" => Tensor::new(vec![n], losses),
        "sum" => Tensor::scalar(t.sum(&losses)),
        _ => {
            let total = t.sum(&losses);
            let count = t.sum(&valid);
            Tensor::scalar(t.div(total, count))
        }
    })
}

/// The ops whose arms are in this file.
pub(super) const OPS: &[&str] = &["cross_entropy"];

/// The arms of the losses.
pub(super) fn call(cx: &mut Cx, a: &Args) -> R<Value> {
    let op = a.op;
    let t = |v: Tensor| Ok(Value::Tensor(v));
    match op {
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
            t(cross_entropy(
                cx,
                &x,
                &target,
                ignore_index,
                smoothing,
                &reduction,
            )?)
        }
        _ => unreachable!("{op} is not in this file's OPS"),
    }
}
