//! Element pairs `decide` leaves open that read integer inputs with declared values
//! (labels `values = ["0..N", -100]`): decided again once per combination of those
//! values, each integer element fixed to a constant.
//!
//! Why: a gather is a select tree over the index's declared values (`term/gather.rs`),
//! and two sides may split it differently where a value is discarded — a kernel that
//! reads `x[row, where(t != -100, t, 0)]` has a leaf for `t < 0` that the spec's
//! ignored class does not. `decide` treats the label as a real, so the combination
//! `t < 0 ∧ t ≠ -100`, which no declared value takes, keeps the forms apart. Fixed to
//! each declared value, both sides fold to plain terms.
//!
//! Invariant: a pair is reported equal only when `decide` proves it equal at every
//! combination of the declared values of every integer element it reads — every input
//! the proof speaks of (docs/launch.md: the refuter, witnesses and cross-check pick only
//! declared values). Anything else leaves the pair as it was (unknown); the number of
//! combinations is bounded by [`MAX_COMBINATIONS`].

use crate::decide::{self, Precondition, Verdict};
use crate::term::{Node, TermId, Terms};
use std::sync::Arc;

/// Most value combinations one pair is split into.
pub const MAX_COMBINATIONS: usize = 256;

/// The integer input elements under `a` and `b` whose values are declared (or a small
/// dtype's whole range), with those values; `None` when there are none or when their
/// combinations exceed [`MAX_COMBINATIONS`].
fn declared_leaves(terms: &Terms, a: TermId, b: TermId) -> Option<Vec<(TermId, Arc<[i64]>)>> {
    let mut leaves = Vec::new();
    let mut todo = vec![a, b];
    let mut seen = rustc_hash::FxHashSet::default();
    while let Some(x) = todo.pop() {
        if !seen.insert(x) {
            continue;
        }
        if let Node::Input { tensor, .. } = terms.node(x) {
            if terms.int_input(tensor).is_some() {
                if let Some(v) = terms.int_values(tensor) {
                    leaves.push((x, v));
                }
            }
            continue;
        }
        terms.for_each_child(x, |c| todo.push(c));
    }
    leaves.sort_by_key(|l| l.0);
    let combinations = leaves
        .iter()
        .try_fold(1usize, |n, (_, v)| n.checked_mul(v.len()))?;
    (!leaves.is_empty() && combinations <= MAX_COMBINATIONS).then_some(leaves)
}

/// `a` and `b` proved equal value by value of the declared integer elements they read:
/// the preconditions of every combination's proof, or `None` where some combination is
/// not proved (or there is nothing to split over).
pub(super) fn equal_by_declared_values(
    terms: &mut Terms,
    a: TermId,
    b: TermId,
    opts: &decide::Options,
) -> Option<Vec<Precondition>> {
    let leaves = declared_leaves(terms, a, b)?;
    let ids: Vec<TermId> = leaves.iter().map(|l| l.0).collect();
    let mut pre = Vec::new();
    for vals in Terms::index_cases(&leaves) {
        let fa = terms.fix_leaves(a, &ids, &vals);
        let fb = terms.fix_leaves(b, &ids, &vals);
        match decide::decide(terms, fa, fb, opts) {
            Verdict::Equal { preconditions } => pre.extend(preconditions),
            _ => return None,
        }
    }
    Some(pre)
}
