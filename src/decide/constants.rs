//! Naming two close constants an UNKNOWN comes from.
//!
//! A kernel's `0.01` is `0.01` rounded to f32 (`{ value = 0.01 }` for an f32 parameter,
//! or a literal in f32 code) while a spec written `x / 100` keeps the exact `1/100`. The
//! canonical forms then differ, but by ~1e-10 relative: no f64 point shows it, and the
//! verdict is UNKNOWN. This module finds such a pair of constants so the reason names
//! them instead of only "no point out of N shows it". It only words a reason: it never
//! changes a verdict.

use crate::term::{Node, TermId, Terms};
use num_traits::{Signed, ToPrimitive};
use rustc_hash::FxHashSet;

/// The constants (as f64 magnitudes, nonzero) reachable from `t`.
fn constants(terms: &Terms, t: TermId) -> Vec<f64> {
    let mut seen = FxHashSet::default();
    let mut stack = vec![t];
    let mut out = Vec::new();
    while let Some(t) = stack.pop() {
        if !seen.insert(t) {
            continue;
        }
        if let Node::Const(c) = terms.node(t) {
            if let Some(v) = c.abs().to_f64().filter(|v| *v != 0.0 && v.is_finite()) {
                out.push(v);
            }
        }
        terms.for_each_child(t, |c| stack.push(c));
    }
    out
}

/// A sentence naming the closest pair of constants, one used only by `a` and one only by
/// `b`, that differ by less than 1e-6 relative (but are not equal); `None` if there is
/// no such pair.
pub(super) fn close_constants(terms: &Terms, a: TermId, b: TermId) -> Option<String> {
    let (ca, cb) = (constants(terms, a), constants(terms, b));
    let mut best: Option<(f64, f64, f64)> = None;
    for &x in ca.iter().filter(|x| !cb.contains(x)) {
        for &y in cb.iter().filter(|y| !ca.contains(y)) {
            let rel = (x - y).abs() / x.max(y);
            if rel > 0.0 && rel < 1e-6 && best.is_none_or(|(_, _, r)| rel < r) {
                best = Some((x, y, rel));
            }
        }
    }
    let (x, y, rel) = best?;
    let how = |p: f64, q: f64| {
        if (q as f32) as f64 == p {
            format!(" ({} rounded to f32)", short(q))
        } else {
            String::new()
        }
    };
    Some(format!(
        "the two sides use close but different constants: {:?}{} in the first (the kernel, \
         for check) against {:?}{} in the second (relative difference {rel:.1e}); a \
         difference that small is below what the refuter's f64 points show, so write the \
         spec's constant as the kernel uses it (or pass the kernel the value it means)",
        x,
        how(x, y),
        y,
        how(y, x),
    ))
}

/// The shortest decimal that rounds to `v` as an f64, for naming a constant.
fn short(v: f64) -> String {
    format!("{v}")
}
