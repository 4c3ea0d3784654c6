//! Reading at integer indices given as data: `torch.gather`, `F.embedding`,
//! `F.nll_loss`, the class pick of `F.cross_entropy`, and advanced indexing
//! `x[torch.arange(M), t]`, `w[ids]`.
//!
//! An index element that is a constant reads its cell. One that depends on integer
//! input data is split over the values the launch declares for that tensor (its
//! `values`; where the kernel's launch declares none, PyTorch's valid indices of the
//! dimension) with the gather tree of `term/gather.rs`, the same term a kernel's
//! gather builds, so a kernel that reads the same cells is the same term. A declared
//! value PyTorch would reject (outside the dimension, or negative where the op does not
//! wrap) is an error naming it: the spec has no value there. A value the op ignores
//! (cross-entropy's `ignore_index`) gets no cell (the tree's `0`), and the op selects
//! it away.

use super::args::Args;
use crate::term::{CmpOp, TermId, Terms};
use crate::torch::tensor::{broadcast_shapes, Tensor};
use crate::torch::value::{Cx, Value};
use std::sync::Arc;

type R<T> = Result<T, String>;

/// How an op treats an index.
#[derive(Clone, Copy)]
pub(super) struct IndexRule<'a> {
    pub op: &'a str,
    /// Negative indices count from the end (advanced indexing), else they are errors.
    pub wrap: bool,
    /// This value reads nothing (`ignore_index`).
    pub ignore: Option<i64>,
}

/// The value at integer indices `idx` (one term per dimension of `dims`), each a
/// constant or integer data; `cell` reads the element at concrete indices.
pub(super) fn pick(
    terms: &mut Terms,
    idx: &[TermId],
    dims: &[usize],
    rule: IndexRule,
    cell: &mut dyn FnMut(&mut Terms, &[usize]) -> TermId,
) -> R<TermId> {
    Ok(pick_ignoring(terms, idx, dims, rule, cell)?.0)
}

/// [`pick`], and whether some declared index value is the rule's ignored one (else
/// no declared input is ignored, and the caller's ignore test is vacuous: leaving it
/// out keeps the spec's term the kernel's where the kernel has no such test).
pub(super) fn pick_ignoring(
    terms: &mut Terms,
    idx: &[TermId],
    dims: &[usize],
    rule: IndexRule,
    cell: &mut dyn FnMut(&mut Terms, &[usize]) -> TermId,
) -> R<(TermId, bool)> {
    // The data the indices read, with their values.
    let mut leaves: Vec<(TermId, Arc<[i64]>)> = Vec::new();
    for &i in idx {
        if terms.as_const(i).is_some() {
            continue;
        }
        let found = match terms.index_leaves(i) {
            Ok(l) => l,
            Err(e) => {
                // An index tensor no launch declares (a spec checked on its own): it
                // takes PyTorch's valid indices of its dimension.
                let crate::term::Node::Input { tensor, .. } = terms.node(i) else {
                    return Err(format!("{}: {e}", rule.op));
                };
                if terms.int_input(tensor).is_some() {
                    return Err(format!("{}: {e}", rule.op));
                }
                let k = idx.iter().position(|&j| j == i).unwrap_or(0);
                let n = dims.get(k).copied().unwrap_or(0) as i64;
                let lo = if rule.wrap { -n } else { 0 };
                let mut v: Vec<i64> = (lo..n).collect();
                v.extend(rule.ignore);
                v.sort_unstable();
                v.dedup();
                vec![(i, v.into())]
            }
        };
        for l in found {
            if !leaves.iter().any(|m| m.0 == l.0) {
                leaves.push(l);
            }
        }
    }
    leaves.sort_by_key(|l| l.0);
    let ids: Vec<TermId> = leaves.iter().map(|l| l.0).collect();
    let mut cells = Vec::new();
    for vals in Terms::index_cases(&leaves) {
        let mut at = Vec::with_capacity(idx.len());
        let mut ignored = false;
        for (k, &i) in idx.iter().enumerate() {
            let f = terms.fix_leaves(i, &ids, &vals);
            let v = terms
                .as_const(f)
                .filter(|c| c.is_integer())
                .and_then(|c| c.to_integer().to_string().parse::<i64>().ok())
                .ok_or_else(|| format!("{}: an index is not an integer", rule.op))?;
            if rule.ignore == Some(v) {
                ignored = true;
                break;
            }
            let n = dims[k] as i64;
            let w = if rule.wrap && v < 0 { v + n } else { v };
            if !(0..n).contains(&w) {
                let data = leaves
                    .iter()
                    .zip(&vals)
                    .map(|((l, _), v)| format!("{} = {v}", terms.display(*l)))
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(format!(
                    "{}: index {v} is out of bounds for a dimension of size {n} when {data} \
                     (PyTorch raises an error there; declare the index tensor's `values` in \
                     the launch so that every value is a valid index{})",
                    rule.op,
                    match rule.ignore {
                        Some(i) => format!(" or {i}"),
                        None => String::new(),
                    }
                ));
            }
            at.push(w as usize);
        }
        cells.push((!ignored).then(|| cell(terms, &at)));
    }
    let ignores = cells.iter().any(Option::is_none);
    if leaves.is_empty() {
        return Ok((cells[0].unwrap_or_else(|| terms.zero()), ignores));
    }
    Ok((terms.gather(&leaves, &cells), ignores))
}

/// `torch.gather(input, dim, index)`: `out[p] = input[p with p[dim] = index[p]]`.
fn gather(cx: &mut Cx, x: &Tensor, dim: usize, index: &Tensor) -> R<Tensor> {
    if index.ndim() != x.ndim() || (0..x.ndim()).any(|d| d != dim && index.shape[d] > x.shape[d]) {
        return Err(format!(
            "gather: index of shape {} does not fit input of shape {} along dim {dim}",
            index.shape_str(),
            x.shape_str()
        ));
    }
    let rule = IndexRule {
        op: "gather",
        wrap: false,
        ignore: None,
    };
    let mut out = Vec::with_capacity(index.elems.len());
    for (flat, &i) in index.elems.iter().enumerate() {
        let p = crate::exec::value::unravel(flat, &index.shape);
        let e = pick(cx.terms, &[i], &[x.shape[dim]], rule, &mut |_, at| {
            let mut q = p.clone();
            q[dim] = at[0];
            x.at(&q)
        })?;
        out.push(e);
    }
    Ok(Tensor::new(index.shape.clone(), out))
}

/// Advanced indexing `x[i0, i1, ...]` by integer tensors over the leading dims
/// (broadcast together), the other dims kept.
pub(crate) fn advanced_index(cx: &mut Cx, x: &Tensor, idx: &[Tensor]) -> R<Tensor> {
    if idx.is_empty() || idx.len() > x.ndim() {
        return Err(format!(
            "too many indices for a tensor of shape {}",
            x.shape_str()
        ));
    }
    let mut shape: Vec<usize> = Vec::new();
    for t in idx {
        shape = broadcast_shapes(&shape, &t.shape).ok_or_else(|| {
            format!(
                "index tensors of shapes {} cannot be broadcast together",
                idx.iter()
                    .map(|t| t.shape_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })?;
    }
    let idx: Vec<Tensor> = idx
        .iter()
        .map(|t| t.broadcast_to(&shape))
        .collect::<R<_>>()?;
    let k = idx.len();
    let rest = &x.shape[k..];
    let rule = IndexRule {
        op: "indexing",
        wrap: true,
        ignore: None,
    };
    let n_rest: usize = rest.iter().product();
    let n_idx: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n_idx * n_rest);
    for p in 0..n_idx {
        let terms: Vec<TermId> = idx.iter().map(|t| t.elems[p]).collect();
        for r in 0..n_rest {
            let tail = crate::exec::value::unravel(r, rest);
            let e = pick(cx.terms, &terms, &x.shape[..k], rule, &mut |_, at| {
                let mut q = at.to_vec();
                q.extend(&tail);
                x.at(&q)
            })?;
            out.push(e);
        }
    }
    let mut out_shape = shape;
    out_shape.extend_from_slice(rest);
    Ok(Tensor::new(out_shape, out))
}

/// `-input[i, target[i]]` per row (0 where `target[i] == ignore_index`), and whether
/// the row counts (1 or 0): the per-row terms of `nll_loss`.
pub(super) fn nll_rows(
    cx: &mut Cx,
    op: &str,
    x: &Tensor,
    target: &Tensor,
    ignore_index: i64,
) -> R<(Vec<TermId>, Vec<TermId>)> {
    if x.ndim() != 2 || target.shape != [x.shape[0]] {
        return Err(format!(
            "{op}: expects input [N, C] and target [N] (class indices); got {} and {}",
            x.shape_str(),
            target.shape_str()
        ));
    }
    let (n, c) = (x.shape[0], x.shape[1]);
    let rule = IndexRule {
        op,
        wrap: false,
        ignore: Some(ignore_index),
    };
    let (mut picks, mut valid) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        let (p, ignores) =
            pick_ignoring(cx.terms, &[target.elems[i]], &[c], rule, &mut |_, at| {
                x.elems[i * c + at[0]]
            })?;
        let t = &mut *cx.terms;
        let (zero, one) = (t.zero(), t.one());
        if !ignores {
            picks.push(p);
            valid.push(one);
            continue;
        }
        let ignore = t.int(ignore_index);
        let keep = t.cmp(CmpOp::Ne, target.elems[i], ignore);
        picks.push(t.select(keep, p, zero));
        valid.push(t.select(keep, one, zero));
    }
    Ok((picks, valid))
}

/// The loss reduction of `nll_loss`/`cross_entropy`: 'none', 'sum', or 'mean' over
/// the rows that count (all ignored: 0/0, NaN, as in PyTorch).
pub(super) fn reduce_rows(
    cx: &mut Cx,
    losses: Vec<TermId>,
    valid: &[TermId],
    reduction: &str,
) -> R<Tensor> {
    let t = &mut *cx.terms;
    Ok(match reduction {
        "none" => Tensor::new(vec![losses.len()], losses),
        "sum" => Tensor::scalar(t.sum(&losses)),
        "mean" => {
            let total = t.sum(&losses);
            let count = t.sum(valid);
            Tensor::scalar(t.div(total, count))
        }
        other => {
            return Err(format!(
                "reduction must be 'mean', 'sum' or 'none', not '{other}'"
            ))
        }
    })
}

/// The ops whose arms are in this file.
pub(super) const OPS: &[&str] = &["gather", "embedding", "nll_loss"];

pub(super) fn call(cx: &mut Cx, a: &Args) -> R<Value> {
    let op = a.op;
    match op {
        "gather" => {
            let x = a.tensor(cx, "input")?;
            let dim = a
                .int("dim")?
                .ok_or_else(|| "gather: missing `dim`".to_string())?;
            let dim = crate::torch::tensor::norm_dim(dim, x.ndim())?;
            if a.get("sparse_grad")
                .is_some_and(|v| !matches!(v, Value::Bool(false)))
            {
                return Err("gather: `sparse_grad=True` is not supported".into());
            }
            let index = a.tensor(cx, "index")?;
            Ok(Value::Tensor(gather(cx, &x, dim, &index)?))
        }
        "embedding" => {
            let ids = a.tensor(cx, "input")?;
            let w = a.tensor(cx, "weight")?;
            if w.ndim() != 2 {
                return Err(format!(
                    "embedding: weight must be 2-D, got {}",
                    w.shape_str()
                ));
            }
            if a.get("max_norm").is_some_and(|v| !matches!(v, Value::None)) {
                return Err("embedding: `max_norm` (renormalising rows) is not supported".into());
            }
            Ok(Value::Tensor(
                advanced_index(cx, &w, &[ids]).map_err(|e| e.replace("indexing:", "embedding:"))?,
            ))
        }
        "nll_loss" => {
            let x = a.tensor(cx, "input")?;
            let target = a.tensor(cx, "target")?;
            for unsupported in ["weight", "size_average", "reduce"] {
                if a.get(unsupported)
                    .is_some_and(|v| !matches!(v, Value::None))
                {
                    return Err(format!("nll_loss: `{unsupported}` is not supported"));
                }
            }
            let ignore_index = a.int("ignore_index")?.unwrap_or(-100);
            let reduction = a.str("reduction", "mean")?;
            let (picks, valid) = nll_rows(cx, "nll_loss", &x, &target, ignore_index)?;
            let t = &mut *cx.terms;
            let losses = picks.iter().map(|&p| t.neg(p)).collect();
            Ok(Value::Tensor(reduce_rows(cx, losses, &valid, &reduction)?))
        }
        _ => unreachable!("{op} is not in this file's OPS"),
    }
}
