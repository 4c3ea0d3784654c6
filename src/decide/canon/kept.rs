//! A [`Canon`] kept between decide calls over one term store: attention's `lse` and
//! `o` are proved in two calls, each converting every row's running max and sum; the
//! second continues the first's forms instead of converting them again.
//!
//! Invariant: a [`Detached`] is attached only to the store it was built over (grown
//! since: ids and nodes never change, so every form, atom and fact it holds is still
//! the form of its term), only under the expansion limit it was built with, and only
//! while it holds no precondition (a verdict lists the preconditions its `Canon`
//! recorded for terms it reaches: an earlier call's must not show up in a later one).

use super::state::{Atom, Canon, CondId, CondKey, Rf, RfId};
use crate::decide::poly::{Algebra, AtomId, ExpId};
use crate::term::{TermId, Terms};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

/// A [`Canon`] without its store, between two decide calls (see the module doc).
pub(crate) struct Detached {
    /// The expansion limit it was built with (`Options::max_monomials`).
    limit: usize,
    state: Fields,
}

/// Every field of a [`Canon`] but the store.
struct Fields {
    alg: Algebra,
    atoms: Vec<Atom>,
    atom_ids: FxHashMap<Atom, AtomId>,
    rfs: Vec<Rc<Rf>>,
    rf_ids: FxHashMap<Rc<Rf>, RfId>,
    pure: FxHashMap<TermId, Rc<Rf>>,
    base: FxHashMap<TermId, Rc<Rf>>,
    shifted: FxHashMap<(ExpId, ExpId), ExpId>,
    general_logs: FxHashMap<AtomId, RfId>,
    #[allow(clippy::type_complexity)]
    general_split: FxHashMap<ExpId, Rc<(ExpId, Vec<(RfId, i32)>)>>,
    dep: FxHashMap<TermId, bool>,
    conds: FxHashMap<CondKey, CondId>,
    cond_keys: Vec<CondKey>,
}

// SAFETY: the only non-`Send` parts are the `Rc`s of forms, and a `Detached` owns every
// count of each: a `Canon` hands clones of its forms only to the conversion and proof
// of one pair (`decide::prove`, `decide_shared`), which drop them before the chunk ends
// and the `Canon` is detached; the preconditions, the one list of forms a verdict
// reads, are empty (see `detach`). Moving it to another thread moves every owner.
unsafe impl Send for Detached {}

impl<'t> Canon<'t> {
    /// The forms for a later call (see the module doc), `None` where this `Canon`
    /// recorded a precondition. The case and the extremum splitting are dropped: the
    /// next pair starts from the empty case ([`Canon::next_pair`]).
    pub fn detach(self, limit: usize) -> Option<Detached> {
        if !self.pre.is_empty() {
            return None;
        }
        let state = Fields {
            alg: self.alg,
            atoms: self.atoms,
            atom_ids: self.atom_ids,
            rfs: self.rfs,
            rf_ids: self.rf_ids,
            pure: self.pure,
            base: self.base,
            shifted: self.shifted,
            general_logs: self.general_logs,
            general_split: self.general_split,
            dep: self.dep,
            conds: self.conds,
            cond_keys: self.cond_keys,
        };
        Some(Detached { limit, state })
    }

    /// `kept` over `terms`, the store it was detached from, where it was built under
    /// `limit`; the caller starts its first pair with [`Canon::next_pair`].
    pub fn attach(terms: &'t Terms, kept: Detached, limit: usize) -> Option<Canon<'t>> {
        if kept.limit != limit {
            return None;
        }
        let s = kept.state;
        Some(Canon {
            terms,
            alg: s.alg,
            atoms: s.atoms,
            atom_ids: s.atom_ids,
            rfs: s.rfs,
            rf_ids: s.rf_ids,
            pure: s.pure,
            branch: FxHashMap::default(),
            base: s.base,
            shifted: s.shifted,
            general_logs: s.general_logs,
            general_split: s.general_split,
            dep: s.dep,
            conds: s.conds,
            cond_keys: s.cond_keys,
            assignment: FxHashMap::default(),
            split_extrema: false,
            pre: Vec::new(),
            pre_seen: FxHashSet::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::canon::Dag;
    use crate::decide::{decide_rows_continuing, decide_rows_reusing, Decided, Kept, Options};
    use crate::decide::{PreKind, Verdict};
    use crate::term::TermId;

    /// A `Canon` that recorded a precondition (`y ≠ 0` for `y⁻¹`) is not carried on,
    /// and one built under another expansion limit is not attached.
    #[test]
    fn forms_with_a_precondition_or_another_limit_are_not_continued() {
        let mut t = Terms::new();
        let y = t.input("y", &[0]);
        let inv = t.powi(y, -1);
        let mut c = Canon::new(&t, &Dag::new(&t, &[inv]), 100);
        assert!(c.convert(inv).is_ok());
        assert_eq!(c.pre.first().map(|p| p.0), Some(PreKind::NonZero));
        assert!(c.detach(100).is_none());
        let sq = t.product(&[y, y]);
        let mut c = Canon::new(&t, &Dag::new(&t, &[sq]), 100);
        assert!(c.convert(sq).is_ok());
        let kept = c.detach(100).expect("no precondition");
        assert!(Canon::attach(&t, kept, 200).is_none());
    }

    /// Rows `s_i = x_i0 + x_i1 + x_i2` proved in one call, then products by `s_i` in a
    /// second that continues the first's forms: the verdicts are those of a fresh
    /// `Canon`, and a wrong twin among them (one addend short) is refuted.
    #[test]
    fn a_continued_call_decides_as_a_fresh_one_and_refutes_a_wrong_twin() {
        let mut t = Terms::new();
        let (mut first, mut second) = (Vec::new(), Vec::new());
        for i in 0..4 {
            let x: Vec<TermId> = (0..3).map(|j| t.input("x", &[i, j])).collect();
            let s = t.sum(&x);
            let y = t.input("y", &[i]);
            let square = t.product(&[s, s]);
            let by_x: Vec<TermId> = x.iter().map(|&xj| t.product(&[xj, s])).collect();
            first.push((square, t.sum(&by_x)));
            let sy = t.product(&[s, y]);
            let addends = if i == 2 { 2 } else { 3 };
            let by_y: Vec<TermId> = x[..addends].iter().map(|&xj| t.product(&[xj, y])).collect();
            second.push((sy, t.sum(&by_y)));
        }
        let opts = Options::default();
        let none = Decided::none();
        let mut kept = Kept::default();
        let proved = decide_rows_continuing(&t, &first, &opts, 4, &none, &mut kept);
        assert!(proved.iter().all(Verdict::is_equal), "{proved:?}");
        assert!(
            kept.slots.iter().any(Option::is_some),
            "the first call's forms are kept"
        );
        let continued = decide_rows_continuing(&t, &second, &opts, 4, &none, &mut kept);
        let fresh = decide_rows_reusing(&t, &second, &opts, 4, &none);
        assert_eq!(continued, fresh);
        let wrong: Vec<bool> = continued.iter().map(Verdict::is_not_equal).collect();
        assert_eq!(wrong, [false, false, true, false]);
        assert!(continued[3].is_equal());
    }
}
