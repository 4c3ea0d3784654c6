//! Shape moves over lanes of any kind (the bounded run's elements, the all-sizes run's
//! lanes): broadcast and transpose only move lanes, so both TTIR interpreters share
//! them.
//!
//! Invariant: every result lane is a copy of one source lane, at the row-major position
//! the move defines; nothing here computes a value.

use super::value::strides;

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
    fn transpose_permutes_axes() {
        let lanes = [0, 1, 2, 3, 4, 5];
        let (shape, out) = transpose(&[2, 3], &lanes, &[1, 0]).unwrap();
        assert_eq!(shape, [3, 2]);
        assert_eq!(out, [0, 3, 1, 4, 2, 5]);
        assert!(transpose(&[2, 3], &lanes, &[0, 0]).is_err());
        assert!(transpose(&[2, 3], &lanes, &[0]).is_err());
    }
}
