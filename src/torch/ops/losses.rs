//! Losses, as `torch.nn.functional` defines them (defaults included: `ignore_index=-100`,
//! `label_smoothing=0`, `reduction='mean'`; the legacy `size_average`/`reduce` pick the
//! reduction as PyTorch's `legacy_get_string` does), and `cosine_similarity`.

use super::super::tensor::Tensor;
use super::super::value::{Cx, Value};
use super::args::one_dim;
use super::args::Args;
use super::elementwise::binary;
use super::norms::{order, vector_norm};
use super::reductions::{logsumexp, sum};
use crate::term::{CmpOp, Func, TermId, Terms};
use num_traits::{Signed, Zero};

type R<T> = Result<T, String>;

/// `F.cross_entropy` over class indices: per row `i` with `target[i] != ignore_index`,
/// `(1 - s) * (lse_i - x[i, target[i]]) + s * (lse_i - mean_c x[i, c])` (`s` the label
/// smoothing); ignored rows are 0 and left out of the mean's count (all rows ignored:
/// 0/0, NaN, as in PyTorch). The class is picked by the gather tree over the target's
/// declared values (`gather.rs`; a target value outside the classes is an error).
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
    let rule = super::gather::IndexRule {
        op: "cross_entropy",
        wrap: false,
        ignore: Some(ignore_index),
    };
    let mut picked_rows = Vec::with_capacity(n);
    for i in 0..n {
        let row = &x.elems[i * c..(i + 1) * c];
        picked_rows.push(super::gather::pick_ignoring(
            cx.terms,
            &[target.elems[i]],
            &[c],
            rule,
            &mut |_, at| row[at[0]],
        )?);
    }
    let t = &mut *cx.terms;
    let smoothed = t.as_const(smoothing).is_none_or(|s| !s.is_zero());
    let (mut losses, mut valid) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for (i, &(picked, ignores)) in picked_rows.iter().enumerate() {
        let row = &x.elems[i * c..(i + 1) * c];
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
        // No declared target value is ignored: the test is vacuous (see `pick_ignoring`).
        let is_valid = if ignores {
            t.cmp(CmpOp::Ne, target.elems[i], ignore)
        } else {
            t.one()
        };
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
pub(super) const OPS: &[&str] = &[
    "cross_entropy",
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "kl_div",
    "cosine_similarity",
    "hinge_embedding_loss",
    "triplet_margin_loss",
];

/// The reduction: `reduction`, unless the legacy `size_average`/`reduce` are given
/// (either `None` counts as True): both True → 'mean', only `reduce` → 'sum', else 'none'.
fn reduction(a: &Args) -> R<String> {
    let legacy = a.names.contains(&"reduce")
        && (a.get("size_average").is_some() || a.get("reduce").is_some());
    if legacy {
        let size_average = a.bool("size_average", true)?;
        let reduce = a.bool("reduce", true)?;
        return Ok(match (size_average, reduce) {
            (true, true) => "mean",
            (false, true) => "sum",
            _ => "none",
        }
        .into());
    }
    a.str("reduction", "mean")
}

/// The pointwise losses `l` reduced: 'none' keeps them, 'sum' adds them, 'mean' divides
/// the sum by their count (`batchmean`, kl_div's, by the size of dim 0).
fn reduce(cx: &mut Cx, op: &str, l: Tensor, how: &str) -> R<Tensor> {
    let all: Vec<usize> = (0..l.ndim()).collect();
    match how {
        "none" => Ok(l),
        "sum" => Ok(sum(cx, &l, &all, false)),
        "mean" | "batchmean" if how == "mean" || op == "kl_div" => {
            let n = match how {
                "batchmean" if l.ndim() > 0 => l.shape[0],
                "batchmean" => 1,
                _ => l.elems.len(),
            };
            let s = sum(cx, &l, &all, false);
            Ok(s.map(cx.terms, |t, e| {
                let n = t.int(n as i64);
                t.div(e, n)
            }))
        }
        other => Err(format!(
            "{op}: reduction must be 'mean', 'sum' or 'none'{}, not '{other}'",
            if op == "kl_div" {
                " (or 'batchmean')"
            } else {
                ""
            }
        )),
    }
}

/// The elementwise weight of mse_loss, l1_loss and huber_loss (shape of `input`):
/// multiplies each loss; 'mean' is `sum(w l) / sum(w)` for mse/l1 and `mean(w l)` for
/// huber, as PyTorch computes them.
fn weighted(cx: &mut Cx, a: &Args, l: Tensor, x: &Tensor, how: &str) -> R<Tensor> {
    let op = a.op;
    let Some(w) = a.opt_tensor(cx, "weight")? else {
        return reduce(cx, op, l, how);
    };
    if w.shape != x.shape {
        return Err(format!(
            "{op}: weight of shape {} must have the shape of input, {}",
            w.shape_str(),
            x.shape_str()
        ));
    }
    let wl = binary(cx, op, &l, &w, |t, a, b| t.mul(a, b))?;
    if how != "mean" || op == "huber_loss" {
        return reduce(cx, op, wl, how);
    }
    let s = reduce(cx, op, wl, "sum")?;
    let sw = reduce(cx, op, w, "sum")?;
    binary(cx, op, &s, &sw, |t, a, b| t.div(a, b))
}

/// `|d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta` (smooth_l1) and
/// `|d| < delta ? 0.5 d^2 : delta (|d| - 0.5 delta)` (huber).
fn smooth(t: &mut Terms, d: TermId, k: TermId, huber: bool) -> TermId {
    let a = t.call(Func::Abs, d);
    let c = t.cmp(CmpOp::Lt, a, k);
    let half = t.constant(num_rational::BigRational::new(1.into(), 2.into()));
    let sq = t.powi(d, 2);
    let hsq = t.mul(half, sq);
    let hk = t.mul(half, k);
    let lin = t.sub(a, hk);
    let (inner, outer) = if huber {
        (hsq, t.mul(k, lin))
    } else {
        (t.div(hsq, k), lin)
    };
    t.select(c, inner, outer)
}

/// `xlogy(t, t) - t * x` (`log_target=False`; `xlogy(0, y) = 0`) or
/// `exp(t) * (t - x)` (`log_target=True`).
fn kl_pointwise(t: &mut Terms, x: TermId, tg: TermId, log_target: bool) -> TermId {
    if log_target {
        let e = t.call(Func::Exp, tg);
        let d = t.sub(tg, x);
        return t.mul(e, d);
    }
    let z = t.zero();
    let is0 = t.cmp(CmpOp::Eq, tg, z);
    let l = t.call(Func::Log, tg);
    let tl = t.mul(tg, l);
    let xlogy = t.select(is0, z, tl);
    let tx = t.mul(tg, x);
    t.sub(xlogy, tx)
}

/// The arms of the losses.
pub(super) fn call(cx: &mut Cx, a: &Args) -> R<Value> {
    let op = a.op;
    let t = |v: Tensor| Ok(Value::Tensor(v));
    match op {
        "mse_loss" | "l1_loss" | "smooth_l1_loss" | "huber_loss" => {
            let x = a.tensor(cx, "input")?;
            let y = a.tensor(cx, "target")?;
            let how = reduction(a)?;
            let d = binary(cx, op, &x, &y, |t, a, b| t.sub(a, b))?;
            let l = match op {
                "mse_loss" => d.map(cx.terms, |t, e| t.powi(e, 2)),
                "l1_loss" => d.map(cx.terms, |t, e| t.call(Func::Abs, e)),
                _ => {
                    let (name, default) = if op == "huber_loss" {
                        ("delta", "1.0")
                    } else {
                        ("beta", "1.0")
                    };
                    let k = a.number(cx, name, Some(default))?;
                    match cx.terms.as_const(k) {
                        Some(v) if v.is_negative() || (op == "huber_loss" && v.is_zero()) => {
                            return Err(format!(
                                "{op}: `{name}` must be {}",
                                if op == "huber_loss" {
                                    "positive"
                                } else {
                                    "non-negative"
                                }
                            ))
                        }
                        // beta = 0 is the L1 loss.
                        Some(v) if v.is_zero() => d.map(cx.terms, |t, e| t.call(Func::Abs, e)),
                        Some(_) => d.map(cx.terms, |t, e| smooth(t, e, k, op == "huber_loss")),
                        None => {
                            return Err(format!(
                                "{op}: `{name}` must be a constant number, not a symbolic scalar"
                            ))
                        }
                    }
                }
            };
            if op == "smooth_l1_loss" {
                return t(reduce(cx, op, l, &how)?);
            }
            t(weighted(cx, a, l, &x, &how)?)
        }
        "kl_div" => {
            let x = a.tensor(cx, "input")?;
            let y = a.tensor(cx, "target")?;
            let how = reduction(a)?;
            let log_target = a.bool("log_target", false)?;
            let l = binary(cx, op, &x, &y, |t, a, b| kl_pointwise(t, a, b, log_target))?;
            t(reduce(cx, op, l, &how)?)
        }
        "cosine_similarity" => {
            let x1 = a.tensor(cx, "x1")?;
            let x2 = a.tensor(cx, "x2")?;
            let eps = a.number(cx, "eps", Some("1e-8"))?;
            let prod = binary(cx, op, &x1, &x2, |t, a, b| t.mul(a, b))?;
            let shape = prod.shape.clone();
            let d = one_dim(op, &prod, a.int("dim")?.unwrap_or(1))?;
            if prod.ndim() == 0 {
                return Err("cosine_similarity: expects inputs with at least one dimension".into());
            }
            let (x1, x2) = (x1.broadcast_to(&shape)?, x2.broadcast_to(&shape)?);
            // x1.x2 / (max(|x1|, eps) * max(|x2|, eps)).
            let dot = sum(cx, &prod, &[d], false);
            let n1 = vector_norm(cx, &x1, super::norms::Order::Two, &[d], false);
            let n2 = vector_norm(cx, &x2, super::norms::Order::Two, &[d], false);
            let den = binary(cx, op, &n1, &n2, |t, a, b| {
                let a = t.max(a, eps);
                let b = t.max(b, eps);
                t.mul(a, b)
            })?;
            t(binary(cx, op, &dot, &den, |t, a, b| t.div(a, b))?)
        }
        "hinge_embedding_loss" => {
            let x = a.tensor(cx, "input")?;
            let y = a.tensor(cx, "target")?;
            let margin = a.number(cx, "margin", Some("1.0"))?;
            let how = reduction(a)?;
            // where(y != 1, max(margin - x, 0), 0) + where(y != -1, x, 0).
            let l = binary(cx, op, &x, &y, |t, x, y| {
                let (z, one, m1) = (t.zero(), t.one(), t.int(-1));
                let mx = t.sub(margin, x);
                let clamped = t.max(mx, z);
                let not1 = t.cmp(CmpOp::Ne, y, one);
                let a = t.select(not1, clamped, z);
                let notm1 = t.cmp(CmpOp::Ne, y, m1);
                let b = t.select(notm1, x, z);
                t.add(a, b)
            })?;
            t(reduce(cx, op, l, &how)?)
        }
        "triplet_margin_loss" => {
            let an = a.tensor(cx, "anchor")?;
            let po = a.tensor(cx, "positive")?;
            let ne = a.tensor(cx, "negative")?;
            let n = an.ndim();
            if !(n == 1 || n == 2) || po.ndim() != n || ne.ndim() != n {
                return Err(format!(
                    "triplet_margin_loss: anchor, positive and negative must all be 1-D or                      all 2-D, got shapes {}, {} and {}",
                    an.shape_str(),
                    po.shape_str(),
                    ne.shape_str()
                ));
            }
            let margin = a.number(cx, "margin", Some("1.0"))?;
            let p = order(cx, a, "p", false)?;
            let eps = a.number(cx, "eps", Some("1e-6"))?;
            let swap = a.bool("swap", false)?;
            let how = reduction(a)?;
            // pairwise_distance: ||u - v + eps||_p over the last dim.
            let dist = |cx: &mut Cx, u: &Tensor, v: &Tensor| -> R<Tensor> {
                let d = binary(cx, op, u, v, |t, a, b| {
                    let s = t.sub(a, b);
                    t.add(s, eps)
                })?;
                let last = d.ndim() - 1;
                Ok(vector_norm(cx, &d, p, &[last], false))
            };
            let d_ap = dist(cx, &an, &po)?;
            let mut d_an = dist(cx, &an, &ne)?;
            if swap {
                let d_pn = dist(cx, &po, &ne)?;
                d_an = binary(cx, op, &d_an, &d_pn, |t, a, b| t.min(a, b))?;
            }
            let l = binary(cx, op, &d_ap, &d_an, |t, a, b| {
                let s = t.add(margin, a);
                let v = t.sub(s, b);
                let z = t.zero();
                t.max(v, z)
            })?;
            t(reduce(cx, op, l, &how)?)
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
