//! Shape moves over lanes of any kind (the bounded run's elements, the all-sizes run's
//! lanes): the TTIR ops that only move lanes (`tt.splat`, `tt.broadcast`,
//! `tt.expand_dims`/`tt.reshape`, `tt.trans`, `tt.join`) are read here once
//! ([`lane_move`]) for both TTIR interpreters.
//!
//! Invariant: every result lane is a copy of one source lane, at the row-major position
//! the move defines; nothing here computes a value.

use super::error::ErrorKind;
use super::table::OpKind;
use super::value::strides;
use crate::triton_ir::ast::{Attr, Op};

/// A shaped run of lanes (a value of either interpreter, borrowed).
pub(crate) type Lanes<'v, L> = (&'v [usize], &'v [L]);

/// What a lane move gives: the result's shape and lanes, or why not.
pub(crate) type Moved<L> = Result<(Vec<usize>, Vec<L>), (ErrorKind, String)>;

/// Whether ops of `kind` only move lanes ([`lane_move`] reads them).
pub(crate) fn is_lane_move(kind: OpKind) -> bool {
    matches!(
        kind,
        OpKind::Splat | OpKind::Broadcast | OpKind::Reshape | OpKind::Trans | OpKind::Join
    )
}

/// The result of lane move `op` (of kind `kind`, see [`is_lane_move`]) on `args`.
pub(crate) fn lane_move<L: Clone>(kind: OpKind, op: &Op, args: &[Lanes<L>]) -> Moved<L> {
    let malformed = |m: String| Err((ErrorKind::Malformed, m));
    let out_shape = || -> Vec<usize> {
        op.result_types
            .first()
            .map(|t| t.shape().iter().map(|&d| d.max(0) as usize).collect())
            .unwrap_or_default()
    };
    let arg = |i: usize| -> Result<Lanes<L>, (ErrorKind, String)> {
        args.get(i).copied().ok_or_else(|| {
            (
                ErrorKind::Malformed,
                format!("expects at least {} operands, has {}", i + 1, args.len()),
            )
        })
    };
    {
        match kind {
            OpKind::Splat => match arg(0)? {
                (_, [one]) => {
                    let shape = out_shape();
                    let n = shape.iter().product();
                    Ok((shape, vec![one.clone(); n]))
                }
                _ => malformed("splat of a non-scalar".into()),
            },
            OpKind::Broadcast => {
                let (from, lanes) = arg(0)?;
                let to = out_shape();
                broadcast(from, lanes, &to)
                    .map(|l| (to, l))
                    .map_err(|m| (ErrorKind::Malformed, m))
            }
            OpKind::Reshape => {
                if op.attrs.contains_key("allow_reorder") {
                    return Err((
                        ErrorKind::Unsupported,
                        "reshape with allow_reorder has no fixed element order".into(),
                    ));
                }
                let (from, lanes) = arg(0)?;
                let shape = out_shape();
                if shape.iter().product::<usize>() != lanes.len() {
                    return malformed(format!("{from:?} cannot become {shape:?}"));
                }
                Ok((shape, lanes.to_vec()))
            }
            OpKind::Trans => {
                let (from, lanes) = arg(0)?;
                let order: Vec<usize> = match op.attr("order") {
                    Some(Attr::Array(v)) => v.iter().map(|&i| i.max(0) as usize).collect(),
                    _ => (0..from.len()).rev().collect(),
                };
                transpose(from, lanes, &order).map_err(|m| (ErrorKind::Malformed, m))
            }
            OpKind::Join => {
                let ((a_shape, a), (b_shape, b)) = (arg(0)?, arg(1)?);
                if a_shape != b_shape {
                    return malformed("join of tensors of different shapes".into());
                }
                let mut shape = a_shape.to_vec();
                shape.push(2);
                let lanes = a
                    .iter()
                    .zip(b)
                    .flat_map(|(x, y)| [x.clone(), y.clone()])
                    .collect();
                Ok((shape, lanes))
            }
            _ => Err((
                ErrorKind::Malformed,
                format!("{} does not only move lanes", op.name),
            )),
        }
    }
}

/// One result of [`split`]: its shape and lanes.
pub(crate) type Half<L> = (Vec<usize>, Vec<L>);

/// `tt.split`: a tensor whose last axis is 2 as its two halves (`[..., 0]` and
/// `[..., 1]`), the inverse of `tt.join`. Its two results are why it is not a
/// [`lane_move`].
pub(crate) fn split<L: Clone>(from: &[usize], lanes: &[L]) -> Result<[Half<L>; 2], String> {
    if from.last() != Some(&2) || lanes.len() != from.iter().product::<usize>() {
        return Err(format!(
            "tt.split of a tensor shaped {from:?} (its last axis must be 2)"
        ));
    }
    let shape = from[..from.len() - 1].to_vec();
    let half = |k: usize| lanes.iter().skip(k).step_by(2).cloned().collect();
    Ok([(shape.clone(), half(0)), (shape, half(1))])
}

/// The integers `tt.make_range` lists (`start..end`).
pub(crate) fn make_range(op: &Op) -> std::ops::Range<i64> {
    let start = op.attr("start").and_then(Attr::as_int).unwrap_or(0);
    let end = op.attr("end").and_then(Attr::as_int).unwrap_or(0);
    start..end
}

/// `lanes` (shaped `from`) broadcast to `to`: equal rank, unit axes stretched.
pub(crate) fn broadcast<L: Clone>(
    from: &[usize],
    lanes: &[L],
    to: &[usize],
) -> Result<Vec<L>, String> {
    if from.len() != to.len() || from.iter().zip(to).any(|(&s, &d)| s != d && s != 1) {
        return Err(format!("cannot broadcast {from:?} to {to:?}"));
    }
    let n: usize = to.iter().product();
    let mut out = Vec::with_capacity(n);
    for flat in 0..n {
        let (mut rem, mut src, mut stride) = (flat, 0, 1);
        for k in (0..to.len()).rev() {
            let i = rem % to[k];
            rem /= to[k];
            if from[k] != 1 {
                src += i * stride;
            }
            stride *= from[k];
        }
        out.push(lanes[src].clone());
    }
    Ok(out)
}

/// `lanes` (shaped `from`) with their axes permuted: result axis `k` is axis
/// `order[k]` of the source. Returns the result's shape and lanes.
pub(crate) fn transpose<L: Clone>(
    from: &[usize],
    lanes: &[L],
    order: &[usize],
) -> Result<(Vec<usize>, Vec<L>), String> {
    let rank = from.len();
    let mut seen = vec![false; rank];
    if order.len() != rank
        || order
            .iter()
            .any(|&o| o >= rank || std::mem::replace(&mut seen[o], true))
    {
        return Err(format!("bad permutation {order:?} for rank {rank}"));
    }
    let shape: Vec<usize> = order.iter().map(|&o| from[o]).collect();
    let st = strides(from);
    let mut out = Vec::with_capacity(lanes.len());
    for flat in 0..lanes.len() {
        let (mut rem, mut src) = (flat, 0);
        for k in (0..shape.len()).rev() {
            let i = rem % shape[k];
            rem /= shape[k];
            src += i * st[order[k]];
        }
        out.push(lanes[src].clone());
    }
    Ok((shape, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_stretches_unit_axes() {
        let lanes = [1, 2];
        assert_eq!(
            broadcast(&[2, 1], &lanes, &[2, 3]).unwrap(),
            [1, 1, 1, 2, 2, 2]
        );
        assert_eq!(broadcast(&[1, 2], &lanes, &[2, 2]).unwrap(), [1, 2, 1, 2]);
        assert!(broadcast(&[2], &lanes, &[2, 2]).is_err());
        assert!(broadcast(&[2, 1], &lanes, &[3, 1]).is_err());
    }

    #[test]
    fn split_undoes_join() {
        // [[0, 1], [2, 3], [4, 5]]: the even lanes and the odd lanes.
        let lanes = [0, 1, 2, 3, 4, 5];
        let [(s0, a), (s1, b)] = split(&[3, 2], &lanes).unwrap();
        assert_eq!((s0, a), (vec![3], vec![0, 2, 4]));
        assert_eq!((s1, b), (vec![3], vec![1, 3, 5]));
        // [2, 2, 2]: the halves along the last axis only.
        let lanes: Vec<i32> = (0..8).collect();
        let [(_, a), (_, b)] = split(&[2, 2, 2], &lanes).unwrap();
        assert_eq!((a, b), (vec![0, 2, 4, 6], vec![1, 3, 5, 7]));
        assert!(split(&[2, 3], &lanes[..6]).is_err());
        assert!(split(&[], &lanes[..1]).is_err());
    }

    #[test]
    fn transpose_permutes_axes() {
        let lanes = [0, 1, 2, 3, 4, 5];
        let (shape, out) = transpose(&[2, 3], &lanes, &[1, 0]).unwrap();
        assert_eq!(shape, [3, 2]);
        assert_eq!(out, [0, 3, 1, 4, 2, 5]);
        assert!(transpose(&[2, 3], &lanes, &[0, 0]).is_err());
        assert!(transpose(&[2, 3], &lanes, &[0]).is_err());
    }
}
