//! Prefix sums for every size: `cumsum` (and `cumprod`) of a formula at a symbolic
//! index, and the loop invariant of a kernel that carries a running total across column
//! blocks (`carry += tl.sum(x)` after storing `tl.cumsum(x) + carry`).
//!
//! The formula side: element `j` along the axis is the sum (product) of the operand's
//! elements `0..=j`. Where the path fixes `j` to a number (a lane of one block) that
//! sum is built term by term, as `formula::instantiate` builds it on an instance. Where
//! `j = q + c` still varies (`q` without a constant term, `c` a number, `q >= 0` on the
//! path), a prefix sum is peeled by its definition, `P(j) = P(j - 1) + x[j]`, down to
//! `P(q - 1) + x[q] + … + x[q + c]`, and `P(q - 1)` is one atom ([`prefix_atom`]).
//!
//! The kernel side ([`Run::carried_prefixes`]): a store inside a loop `t = lo + step·u`
//! whose value reads a carried float `acc` gets `acc` replaced by `P(t - 1)` at the
//! store's row, once that is proved by induction over the trips: at the first trip
//! `acc` is its initial value and `P(lo - 1)` is the empty prefix (0, with `lo = 0`);
//! and every trip with a next one (`t + step < hi`) carries `P(t - 1)` to
//! `P(t - 1) + x[t] + … + x[t + step - 1] = P(t + step - 1)`, decided equal in every
//! mask case of the body. The row must not move with the trip.
//!
//! Invariant: a scan expands only over the prefix its definition gives; the two sides
//! name a prefix alike only through [`prefix_atom`], and the kernel's side only after
//! both induction steps are proved for the loop's every trip. Anything else is left as
//! it is (the store then fails to match, never a guess). Float sums are read as exact
//! reals (reassociated), as every sum of the all-sizes proof is.

use super::at_index::{reduction_atom, AtIndex, AtomIndex, R};
use super::lane::{Lane, Val};
use super::run::Run;
use super::summary::{contains_any, Case, LoopCtx};
use super::sym::{Cond, Poly, Rel};
use crate::decide::{self, Verdict};
use crate::formula::{Formula, ScanOp};
use crate::term::TermId;
use std::collections::HashMap;
use std::rc::Rc;

/// The atom for the prefix `scan[.., m, ..]` of scan node `f` (its text names it) at
/// `idx` with position `m` along `axis`: both sides name a prefix only this way.
pub fn prefix_atom(
    terms: &mut crate::term::Terms,
    f: &Formula,
    idx: &[Poly],
    axis: usize,
    m: &Poly,
) -> TermId {
    let mut at = idx.to_vec();
    at[axis] = m.clone();
    reduction_atom(terms, &f.to_string(), &at)
}

/// The most elements a scan is written out over at one index (a block's lanes are far
/// fewer): beyond it the all-sizes step says it does not read the scan.
const MAX_PREFIX: i128 = 1 << 14;

impl AtIndex<'_> {
    /// `op(arg, axis)` (the scan node `f`) at `idx`.
    pub(super) fn scan_at(
        &mut self,
        f: &Formula,
        op: ScanOp,
        axis: usize,
        arg: &Formula,
        idx: &[Poly],
    ) -> R<TermId> {
        let Some(j) = idx.get(axis) else {
            return Err(format!("axis {axis} of a rank-{} index", idx.len()));
        };
        let j = j.subst(self.pinned);
        let c = j.constant_term();
        let q = j.sub(&Poly::constant(c));
        if !(0..=MAX_PREFIX).contains(&c) {
            return Err(format!("`{f}` at position {j} along its axis"));
        }
        let mut terms = Vec::with_capacity(c as usize + 2);
        if q.as_const().is_none() {
            // Peeled by the definition down to P(q - 1): right for every q >= 0.
            if op != ScanOp::Sum || !(self.holds)(&Cond::cmp(Rel::Le, &Poly::default(), &q)) {
                return Err(format!(
                    "`{f}` at a position along its axis that varies with the sizes ({j}) is not read for all sizes yet"
                ));
            }
            let before = q.sub(&Poly::constant(1));
            terms.push(prefix_atom(self.terms, f, idx, axis, &before));
        }
        for k in 0..=c {
            let mut at = idx.to_vec();
            at[axis] = q.add(&Poly::constant(k));
            terms.push(self.at(arg, &at)?);
        }
        Ok(match op {
            ScanOp::Sum => self.terms.sum(&terms),
            ScanOp::Prod => self.terms.product(&terms),
        })
    }
}

/// A carried lane `(k, j)` at one row (the store's index with its scan axis zeroed).
type RowLane = ((usize, usize), Vec<Poly>);

/// One loop over sizes as `loops.rs` ran it: what the induction needs.
pub(super) struct CarryLoop<'l> {
    pub init: &'l [Rc<Val>],
    /// Each carried lane's accumulator atom (floats only).
    pub accs: &'l [Vec<Option<TermId>>],
    pub cases: &'l [Case],
    /// The first store the body's real run recorded.
    pub stores_from: usize,
    pub var: &'l str,
    pub valid: &'l [Cond],
    pub lo: &'l Poly,
    pub hi: &'l Poly,
    pub step: i128,
}

impl Run<'_, '_, '_> {
    /// Every store of the loop's body that reads a carried running total, that total
    /// replaced by the prefix of the store's cumsum it is proved to be (module doc).
    pub(super) fn carried_prefixes(&mut self, l: &CarryLoop) {
        let mut lane_of: HashMap<TermId, (usize, usize)> = HashMap::new();
        for (k, ks) in l.accs.iter().enumerate() {
            for (j, a) in ks.iter().enumerate() {
                if let Some(a) = a {
                    lane_of.insert(*a, (k, j));
                }
            }
        }
        if lane_of.is_empty() || l.stores_from >= self.path.stores.len() {
            return;
        }
        let needles: rustc_hash::FxHashSet<TermId> = lane_of.keys().copied().collect();
        // One induction per carried lane and row (the lanes of a block share it).
        let mut proved: HashMap<RowLane, Option<TermId>> = HashMap::new();
        for s in l.stores_from..self.path.stores.len() {
            let st = &self.path.stores[s];
            let (Some(value), Some(idx)) = (st.value, st.index.clone()) else {
                continue;
            };
            if !contains_any(self.domain.terms, value, &needles) {
                continue;
            }
            let name = self.setup.tensors[st.tensor].name.clone();
            let Some(out) = self.setup.outputs.get(name.as_str()) else {
                continue;
            };
            let f = out.formula.clone();
            let Formula::Scan {
                op: ScanOp::Sum,
                axis,
                ref arg,
            } = f
            else {
                continue;
            };
            let mut map = rustc_hash::FxHashMap::default();
            for (&acc, &lane) in &lane_of {
                if contains_any(self.domain.terms, value, &[acc].into_iter().collect()) {
                    let mut row = idx.clone();
                    if axis < row.len() {
                        row[axis] = Poly::default();
                    }
                    let p = match proved.get(&(lane, row.clone())) {
                        Some(p) => *p,
                        None => {
                            let p = self.prefix_invariant(l, lane, &f, arg, axis, &idx);
                            proved.insert((lane, row), p);
                            p
                        }
                    };
                    match p {
                        Some(p) => {
                            map.insert(acc, p);
                        }
                        None => {
                            map.clear();
                            break;
                        }
                    }
                }
            }
            if !map.is_empty() {
                let v = self.domain.terms.substitute(value, &map);
                self.path.stores[s].value = Some(v);
            }
        }
    }

    /// `P(t - 1)` at the store's row when carried lane `lane` is that prefix at every
    /// trip (proved by induction), else `None`.
    fn prefix_invariant(
        &mut self,
        l: &CarryLoop,
        (k, j): (usize, usize),
        f: &Formula,
        arg: &Formula,
        axis: usize,
        idx: &[Poly],
    ) -> Option<TermId> {
        // The row stays put over the trips.
        let mut names = Vec::new();
        for (a, p) in idx.iter().enumerate() {
            if a != axis {
                p.symbols(&mut names);
            }
        }
        if axis >= idx.len() || names.iter().any(|n| **n == *l.var) {
            return None;
        }
        // The first trip: the running total starts at 0, the empty prefix P(-1).
        let Lane::Float(init) = l.init.get(k)?.lanes.get(j)? else {
            return None;
        };
        let zero = *init == self.domain.terms.zero();
        if l.lo.as_const() != Some(0) || !zero || l.step <= 0 {
            return None;
        }
        let acc = l.accs.get(k)?.get(j).copied().flatten()?;
        let u = Poly::sym(l.var);
        let t = l.lo.add(&u.scale(l.step));
        let before = prefix_atom(self.domain.terms, f, idx, axis, &t.sub(&Poly::constant(1)));
        // Each trip with a next one: P(t - 1) + x[t] + … + x[t + step - 1].
        let mut atoms = AtomIndex::new();
        let mut want = vec![before];
        {
            let pinned = std::collections::BTreeMap::new();
            let mut holds = |_: &Cond| false;
            let mut at = AtIndex {
                terms: self.domain.terms,
                shapes: self.setup.input_shapes,
                pinned: &pinned,
                holds: &mut holds,
                atoms: &mut atoms,
                memo: None,
                labels: self.setup.labels,
            };
            for d in 0..l.step {
                let mut i2 = idx.to_vec();
                i2[axis] = t.add(&Poly::constant(d));
                want.push(at.at(arg, &i2).ok()?);
            }
        }
        for (a, v) in atoms {
            self.atoms.entry(a).or_insert(v);
        }
        let want = self.domain.terms.sum(&want);
        let next_trip = Cond::cmp(Rel::Lt, &t.add(&Poly::constant(l.step)), l.hi);
        let map: rustc_hash::FxHashMap<TermId, TermId> = [(acc, before)].into_iter().collect();
        for case in l.cases {
            let Some(Lane::Float(next)) = case.outs.get(k).and_then(|v| v.lanes.get(j)) else {
                return None;
            };
            let next = self.domain.terms.substitute(*next, &map);
            // Under the trip's conditions (a loop context of its own keeps the run's
            // caches of what holds outside loops clean).
            self.solver.push();
            self.loops.push(LoopCtx {
                var: l.var.to_string(),
                valid: l.valid.to_vec(),
                cond_from: self.path.cond.len(),
            });
            for c in l.valid.iter().chain(&case.cond).chain([&next_trip]) {
                self.solver.assert(&self.smt.cond(c));
            }
            let possible = self.solver.check() != z3::SatResult::Unsat;
            let got = possible.then(|| self.settle_known_guards(next));
            self.loops.pop();
            self.solver.pop(1);
            let Some(got) = got else { continue };
            let v = decide::decide(self.domain.terms, want, got, &decide::Options::default());
            if !matches!(v, Verdict::Equal { preconditions } if preconditions.is_empty()) {
                return None;
            }
        }
        Some(before)
    }
}
