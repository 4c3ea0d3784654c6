//! Verdicts other term stores already reached: the pairs a proof there decided `Equal`
//! with no precondition, found again in a new store by [`Terms::translate`].
//!
//! Why: a bounded replay at a batch of 2 proves, for its first batch element, the very
//! element pairs the launch's instance proved (flash attention: half of the replay's
//! 1,632 pairs, each a whole causal row), and a replay along the sequence proves again
//! the rows an earlier one had; each replay builds them afresh in its own store.
//!
//! Invariant: a pair is taken as `Equal` only when both its terms translate into one
//! recording store (node for node, the same inputs, params and constants) to a pair
//! recorded there, both stores declare the same integer inputs (the refuter's points
//! read them) and the options are those the record was decided under: the verdict
//! recorded is `decide`'s on the same terms by the same procedure (only the chunk whose
//! canonical forms it shared differs). `Equal` claims the two sides are the same
//! function, so deciding the same terms again can never give `NotEqual` (a point where
//! they differ beyond rounding); nothing else is reused (a `NotEqual` or `Unknown` pair
//! is decided again), and a replay refutes only with a pair it decided `NotEqual`.

use super::Options;
use crate::term::{TermId, Terms};
use rustc_hash::{FxHashMap, FxHashSet};

/// The pairs of one store decided `Equal` with no precondition under the default
/// [`Options`] (what [`crate::prove::prove_with`] records).
pub type EqualPairs = FxHashSet<(TermId, TermId)>;

/// Stores and their recorded pairs, searched in order.
#[derive(Clone, Default)]
pub struct Decided<'t> {
    sources: Vec<(&'t Terms, &'t EqualPairs)>,
}

impl<'t> Decided<'t> {
    /// No store: nothing is reused.
    pub const fn none() -> Self {
        Decided {
            sources: Vec::new(),
        }
    }

    /// `self` with the pairs `equal` of `terms` searched too.
    pub fn with(mut self, terms: &'t Terms, equal: &'t EqualPairs) -> Self {
        if !equal.is_empty() {
            self.sources.push((terms, equal));
        }
        self
    }

    /// Whether nothing can be reused.
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    /// For each of `pairs` (terms of `terms`): whether it is a recorded pair of some
    /// source (see the module documentation). All `false` under other options.
    pub fn known(&self, terms: &Terms, pairs: &[(TermId, TermId)], opts: &Options) -> Vec<bool> {
        let mut known = vec![false; pairs.len()];
        if *opts != Options::default() {
            return known;
        }
        for &(source, equal) in &self.sources {
            if !terms.same_declarations(source) {
                continue;
            }
            let mut memo = FxHashMap::default();
            for (k, &(a, b)) in known.iter_mut().zip(pairs) {
                if *k {
                    continue;
                }
                let Some(a) = terms.translate(a, source, &mut memo) else {
                    continue;
                };
                let Some(b) = terms.translate(b, source, &mut memo) else {
                    continue;
                };
                *k = equal.contains(&(a, b));
            }
        }
        known
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::{decide, SpecSide, Verdict};
    use crate::term::Func;

    /// `exp(x0 - m)` and its kernel-shaped twin `exp(x0) / exp(m)` in a fresh store,
    /// `m = max(x0, x1)`, with `wrong` the twin's exponent off by `x1`.
    fn pair(t: &mut Terms, wrong: bool) -> (TermId, TermId) {
        let (x0, x1) = (t.input("x", &[0]), t.input("x", &[1]));
        let m = t.max(x0, x1);
        let d = t.sub(x0, m);
        let a = t.call(Func::Exp, d);
        let top = if wrong { t.add(x0, x1) } else { x0 };
        let e = t.call(Func::Exp, top);
        let em = t.call(Func::Exp, m);
        (a, t.div(e, em))
    }

    fn recorded() -> (Terms, EqualPairs) {
        let mut t = Terms::new();
        // Other terms first, so the ids differ from a fresh store's.
        let y = t.input("y", &[3]);
        let _ = t.call(Func::Exp, y);
        let (a, b) = pair(&mut t, false);
        assert_eq!(
            decide(&t, a, b, &Options::default()),
            Verdict::Equal {
                preconditions: vec![]
            }
        );
        let equal = EqualPairs::from_iter([(a, b)]);
        (t, equal)
    }

    #[test]
    fn the_same_pair_in_another_store_is_known() {
        let (t, equal) = recorded();
        let decided = Decided::none().with(&t, &equal);
        let mut fresh = Terms::new();
        let p = pair(&mut fresh, false);
        assert_eq!(decided.known(&fresh, &[p], &Options::default()), [true]);
    }

    #[test]
    fn a_wrong_twin_other_options_or_other_declarations_are_not_known() {
        let (t, equal) = recorded();
        let decided = Decided::none().with(&t, &equal);
        let mut fresh = Terms::new();
        let right = pair(&mut fresh, false);
        let wrong = pair(&mut fresh, true);
        let opts = Options::default();
        assert_eq!(decided.known(&fresh, &[wrong, right], &opts), [false, true]);
        // The twin is no renaming of a known pair: it is decided, and refuted.
        assert!(decide(&fresh, wrong.0, wrong.1, &opts).is_not_equal());
        // Swapped sides are another pair.
        assert_eq!(decided.known(&fresh, &[(right.1, right.0)], &opts), [false]);
        let spec = Options {
            spec: SpecSide::Left,
            ..Options::default()
        };
        assert_eq!(decided.known(&fresh, &[right], &spec), [false]);
        // An integer input the recording store did not declare changes the points.
        fresh.declare_int_input("x", 0, 3);
        assert_eq!(decided.known(&fresh, &[right], &opts), [false]);
    }

    /// Rows whose pairs are all known are `Equal` without being decided (no classes are
    /// walked); one pair not known among them, a wrong twin, is still decided and refuted.
    #[test]
    fn rows_all_known_are_equal_and_a_wrong_twin_among_them_is_refuted() {
        let (t, equal) = recorded();
        let decided = Decided::none().with(&t, &equal);
        let opts = Options::default();
        let mut fresh = Terms::new();
        let right = pair(&mut fresh, false);
        let all = crate::decide::decide_rows_reusing(&fresh, &[right, right], &opts, 2, &decided);
        assert!(all.iter().all(|v| matches!(
            v,
            Verdict::Equal { preconditions } if preconditions.is_empty()
        )));
        let wrong = pair(&mut fresh, true);
        let mixed = crate::decide::decide_rows_reusing(&fresh, &[right, wrong], &opts, 2, &decided);
        assert!(matches!(mixed[0], Verdict::Equal { .. }));
        assert!(mixed[1].is_not_equal());
    }
}
