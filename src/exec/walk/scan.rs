//! `tt.scan` for both runs (the bounded interpreter and the all-sizes run): along
//! `axis` (from the end if `reverse`), lane `k` of every result is the combine region
//! folded over lanes `0..=k` of the inputs, left to right (`tl.cumsum`, `tl.cumprod`,
//! `tl.associative_scan` with any combine function).
//!
//! Invariant: one meaning for both runs; the fold is the region run on scalars, in the
//! order Triton's inclusive scan defines (the accumulator first, then the next lane), so
//! a non-commutative combine (composing affine maps) keeps its order; from the first
//! undefined lane on (a masked-off lane loaded without `other=`) every prefix is that
//! undefined lane.

use super::{combine_lanes, malformed, operands, Control, Env};
use crate::exec::values::{lanes_along, Kind};
use crate::triton_ir::ast::{Attr, Op, Scalar};
use std::rc::Rc;

/// The results of `tt.scan` `op`, one per operand, each of the operands' shape.
pub(super) fn scan<'m, C: Control<'m>>(
    c: &mut C,
    op: &Op,
    env: &mut Env<C::T>,
) -> Result<Vec<Rc<C::T>>, C::X> {
    let inputs = operands(c, op, env)?;
    let axis = op.attr("axis").and_then(Attr::as_int).unwrap_or(0).max(0) as usize;
    let reverse = matches!(
        op.attr("reverse"),
        Some(Attr::Scalar(Scalar::Bool(true))) | Some(Attr::Unit)
    );
    let Some(first) = inputs.first() else {
        return Err(c.at(op, malformed(c, "no operands")));
    };
    let shape = C::lanes(first).0.to_vec();
    if axis >= shape.len() || shape[axis] == 0 || inputs.iter().any(|v| C::lanes(v).0 != shape) {
        return Err(c.at(op, malformed(c, format!("axis {axis} of shape {shape:?}"))));
    }
    let Some(combine) = op.regions.first() else {
        return Err(c.at(op, malformed(c, "missing combine region")));
    };
    let mut outs: Vec<Vec<C::L>> = inputs.iter().map(|v| C::lanes(v).1.to_vec()).collect();
    for mut lanes in lanes_along(&shape, axis) {
        if reverse {
            lanes.reverse();
        }
        let undef_at = |c: &C, l: usize| {
            inputs
                .iter()
                .map(|v| &C::lanes(v).1[l])
                .find(|x| matches!(c.kind(x), Kind::Undef))
                .cloned()
        };
        let mut acc: Option<Vec<C::L>> = None;
        for &l in &lanes {
            if let Some(u) = undef_at(c, l) {
                // This prefix and every later one take in an undefined lane.
                let at = lanes.iter().position(|&k| k == l).unwrap_or(0);
                for o in outs.iter_mut() {
                    for &k in &lanes[at..] {
                        o[k] = u.clone();
                    }
                }
                break;
            }
            let next: Vec<C::L> = inputs.iter().map(|v| C::lanes(v).1[l].clone()).collect();
            let new = match acc.take() {
                None => next,
                Some(mut args) => {
                    args.extend(next);
                    combine_lanes(c, op, combine, args, env)?
                }
            };
            for (o, a) in outs.iter_mut().zip(&new) {
                o[l] = a.clone();
            }
            acc = Some(new);
        }
    }
    Ok(outs
        .into_iter()
        .map(|lanes| Rc::new(c.tensor(shape.clone(), lanes)))
        .collect())
}
