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
//! The linear recurrence `linear_recurrence(a, x, axis)` is read the same way, by its
//! definition `R(j) = a[j]·R(j - 1) + x[j]` from `R(-1) = 0`: term by term where the
//! path fixes `j` (an associative scan of affine maps in one block), peeled down to the
//! atom `R(q - 1)` where `j = q + c` varies ([`AtIndex::recurrence_at`]). A loop that
//! carries the state `h' = g·h + e` ([`Run::recurrence_final`]: `g`, `e` free of every
//! carried float) and stores it at every trip gets `h` replaced by `R(t - 1)` after the
//! same induction: `h` starts at 0, and each trip with a next one turns `R(t - 1)` into
//! `R(t + step - 1)` by the definition, unfolded `step` times. The first trip is checked
//! with `R(-1) = 0` itself, the others with the atom, so the step is exactly the
//! definition at the step's index (no quantifier). Where a later trip fails the step,
//! Z3's sizes for it are the witness the caller replays.
//!
//! Invariant: a scan expands only over the prefix its definition gives; the two sides
//! name a prefix alike only through [`prefix_atom`], and the kernel's side only after
//! both induction steps are proved for the loop's every trip. Anything else is left as
//! it is (the store then fails to match, never a guess). Float sums are read as exact
//! reals (reassociated), as every sum of the all-sizes proof is; so is the recurrence,
//! whose associative scan combines in a tree order on the GPU (the verdict says so,
//! [`REASSOCIATED`]).

use super::at_index::{reduction_atom, AtIndex, AtomIndex, R};
use super::lane::{small_witness, Lane, Unsupported, Val};
use super::run::Run;
use super::summary::{contains_any, Case, LoopCtx, Reach};
use super::sym::{Cond, Poly, Rel};
use crate::decide::{self, Verdict};
use crate::formula::{Formula, ScanOp};
use crate::term::{Node, TermId};
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
    /// The position `j` of `idx` along `axis` (the path's pinned sizes substituted),
    /// split as `q + c`: `q` the part that varies with the sizes, `c` its constant term,
    /// which must lie in `0..=MAX_PREFIX` (the terms peeled off the scan `f`).
    fn axis_position(&self, f: &Formula, axis: usize, idx: &[Poly]) -> R<(Poly, Poly, i128)> {
        let Some(j) = idx.get(axis) else {
            return Err(format!("axis {axis} of a rank-{} index", idx.len()));
        };
        let j = j.subst(self.pinned);
        let c = j.constant_term();
        let q = j.sub(&Poly::constant(c));
        if !(0..=MAX_PREFIX).contains(&c) {
            return Err(format!("`{f}` at position {j} along its axis"));
        }
        Ok((j, q, c))
    }

    /// `op(arg, axis)` (the scan node `f`) at `idx`.
    pub(super) fn scan_at(
        &mut self,
        f: &Formula,
        op: ScanOp,
        axis: usize,
        arg: &Formula,
        idx: &[Poly],
    ) -> R<TermId> {
        let (j, q, c) = self.axis_position(f, axis, idx)?;
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

    /// `linear_recurrence(a, x, axis)` (the node `f`) at `idx`: from `R(-1) = 0`
    /// (`R(0) = x[0]`, `a[0]` never read) where the path fixes the position, else from
    /// the atom `R(q - 1)` of a varying position `q + c` (`q >= 0` on the path).
    pub(super) fn recurrence_at(
        &mut self,
        f: &Formula,
        axis: usize,
        (a, x): (&Formula, &Formula),
        idx: &[Poly],
    ) -> R<TermId> {
        let (j, q, c) = self.axis_position(f, axis, idx)?;
        let at = |k: i128| {
            let mut i = idx.to_vec();
            i[axis] = q.add(&Poly::constant(k));
            i
        };
        let (mut h, first) = if q.as_const().is_none() {
            if !(self.holds)(&Cond::cmp(Rel::Le, &Poly::default(), &q)) {
                return Err(format!(
                    "`{f}` at a position along its axis ({j}) not known to be at least {c}"
                ));
            }
            let before = q.sub(&Poly::constant(1));
            (prefix_atom(self.terms, f, idx, axis, &before), 0)
        } else {
            (self.at(x, &at(0))?, 1)
        };
        for k in first..=c {
            let (ak, xk) = (self.at(a, &at(k))?, self.at(x, &at(k))?);
            let ah = self.terms.mul(ak, h);
            h = self.terms.add(ah, xk);
        }
        Ok(h)
    }
}

/// What a verdict that read a linear recurrence assumes: the formula is over the reals,
/// where the GPU's tree order of an associative scan is a reassociation of the loop's.
pub const REASSOCIATED: &str = "linear_recurrence read over the reals (an associative scan's \
     tree order of its affine maps is a reassociation of h[t] = a[t]·h[t-1] + x[t]; in f32 \
     the orders round differently)";

/// The assumption to state for outputs whose formulas read a linear recurrence.
pub fn assumptions<'f>(formulas: impl IntoIterator<Item = &'f Formula>) -> Vec<String> {
    fn reads(f: &Formula) -> bool {
        matches!(f, Formula::Recurrence { .. }) || f.children().into_iter().any(reads)
    }
    if formulas.into_iter().any(reads) {
        vec![REASSOCIATED.to_string()]
    } else {
        Vec::new()
    }
}

/// What a carried lane is proved to be at the start of trip `t`: the prefix `P(t - 1)`
/// of a cumsum of `arg`, or the state `R(t - 1)` of a linear recurrence of `a`, `x`.
enum Carry<'f> {
    Prefix(&'f Formula),
    Recurrence(&'f Formula, &'f Formula),
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
    /// Every store of the loop's body that reads a carried running total or recurrence
    /// state, that value replaced by the prefix of the store's cumsum (the state of its
    /// linear recurrence) it is proved to be (module doc). Err where a recurrence's
    /// induction fails, with sizes of a trip where its step fails when Z3 finds some.
    pub(super) fn carried_prefixes(&mut self, l: &CarryLoop) -> Result<(), Unsupported> {
        let mut lane_of: HashMap<TermId, (usize, usize)> = HashMap::new();
        for (k, ks) in l.accs.iter().enumerate() {
            for (j, a) in ks.iter().enumerate() {
                if let Some(a) = a {
                    lane_of.insert(*a, (k, j));
                }
            }
        }
        if lane_of.is_empty() || l.stores_from >= self.path.stores.len() {
            return Ok(());
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
            let (axis, carry) = match &f {
                Formula::Scan {
                    op: ScanOp::Sum,
                    axis,
                    arg,
                } => (*axis, Carry::Prefix(arg)),
                Formula::Recurrence { axis, a, x } => (*axis, Carry::Recurrence(a, x)),
                _ => continue,
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
                            let p = self.carry_invariant(l, lane, &f, &carry, axis, &idx)?;
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
        Ok(())
    }

    /// `P(t - 1)` (`R(t - 1)`) at the store's row when carried lane `lane` is that
    /// value at every trip (proved by induction), else `None`; for a recurrence, Err
    /// instead (with a trip's sizes where the step fails, if Z3 finds one).
    fn carry_invariant(
        &mut self,
        l: &CarryLoop,
        (k, j): (usize, usize),
        f: &Formula,
        carry: &Carry,
        axis: usize,
        idx: &[Poly],
    ) -> Result<Option<TermId>, Unsupported> {
        let recurrence = matches!(carry, Carry::Recurrence(..));
        let fail = |why: &str, witness| {
            if recurrence {
                Err(Unsupported {
                    message: format!("a loop's state read as `{f}`: {why}"),
                    line: 0,
                    loc: Default::default(),
                    witness,
                })
            } else {
                Ok(None)
            }
        };
        // The row stays put over the trips.
        let mut names = Vec::new();
        for (a, p) in idx.iter().enumerate() {
            if a != axis {
                p.symbols(&mut names);
            }
        }
        if axis >= idx.len() || names.iter().any(|n| **n == *l.var) {
            return fail("its row moves with the loop's trip", None);
        }
        // The first trip: the carried value starts at 0, the empty prefix P(-1) (the
        // recurrence's R(-1)).
        let Some(Lane::Float(init)) = l.init.get(k).and_then(|v| v.lanes.get(j)) else {
            return fail("not a float lane", None);
        };
        if *init != self.domain.terms.zero() {
            return fail("the state does not start at 0 (R(-1) = 0)", None);
        }
        if l.lo.as_const() != Some(0) || l.step <= 0 {
            return fail("the loop does not count up from 0", None);
        }
        let Some(acc) = l.accs.get(k).and_then(|a| a.get(j)).copied().flatten() else {
            return fail("not a carried float", None);
        };
        let u = Poly::sym(l.var);
        let t = l.lo.add(&u.scale(l.step));
        let before = prefix_atom(self.domain.terms, f, idx, axis, &t.sub(&Poly::constant(1)));
        let zero = self.domain.terms.zero();
        // Each trip with a next one carries the value entering it over `step` positions
        // by the definition: from the atom on later trips, from 0 itself on the first.
        let Some(later) = self.carried_over(carry, idx, axis, &t, l.step, before) else {
            return fail("its operands are not read at the trip's positions", None);
        };
        let Some(first) = self.carried_over(carry, idx, axis, &t, l.step, zero) else {
            return fail("its operands are not read at the trip's positions", None);
        };
        let next_trip = Cond::cmp(Rel::Lt, &t.add(&Poly::constant(l.step)), l.hi);
        let trips = [
            (Cond::cmp(Rel::Le, &Poly::constant(1), &u), before, later),
            (Cond::cmp(Rel::Eq, &u, &Poly::default()), zero, first),
        ];
        for case in l.cases {
            let Some(Lane::Float(next)) = case.outs.get(k).and_then(|v| v.lanes.get(j)) else {
                return fail("a case leaves it a non-float", None);
            };
            for (trip, from, want) in &trips {
                let map: rustc_hash::FxHashMap<TermId, TermId> =
                    [(acc, *from)].into_iter().collect();
                let next = self.domain.terms.substitute(*next, &map);
                // Under the trip's conditions (a loop context of its own keeps the run's
                // caches of what holds outside loops clean).
                self.solver.push();
                self.loops.push(LoopCtx {
                    var: l.var.to_string(),
                    valid: l.valid.to_vec(),
                    cond_from: self.path.cond.len(),
                });
                for c in l.valid.iter().chain(&case.cond).chain([&next_trip, trip]) {
                    self.solver.assert(&self.smt.cond(c));
                }
                let possible = self.solver.check() != z3::SatResult::Unsat;
                let got = possible.then(|| self.settle_known_guards(next));
                let equal = got.is_none_or(|got| {
                    let v = decide::decide(self.domain.terms, *want, got, &Default::default());
                    matches!(v, Verdict::Equal { preconditions } if preconditions.is_empty())
                });
                // Sizes of a later trip where the step fails: the replay decides.
                let witness = (!equal && *from == before)
                    .then(|| small_witness(&self.solver, self.smt, self.setup.sizes))
                    .flatten();
                self.loops.pop();
                self.solver.pop(1);
                if !equal {
                    return fail(
                        "a trip with a next one does not carry R(t-1) to a[t]·R(t-1) + x[t]",
                        witness,
                    );
                }
            }
        }
        Ok(Some(before))
    }

    /// The carried value after positions `t .. t + step` from `from`: `from + x[t] + …`
    /// (a prefix), or `a[t + step - 1]·(… (a[t]·from + x[t]) …) + x[t + step - 1]` (a
    /// recurrence); `None` where an operand is not read at those positions.
    fn carried_over(
        &mut self,
        carry: &Carry,
        idx: &[Poly],
        axis: usize,
        t: &Poly,
        step: i128,
        from: TermId,
    ) -> Option<TermId> {
        let mut atoms = AtomIndex::new();
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
        let mut h = from;
        let mut sum = vec![from];
        for d in 0..step {
            let mut i2 = idx.to_vec();
            i2[axis] = t.add(&Poly::constant(d));
            match carry {
                Carry::Prefix(arg) => sum.push(at.at(arg, &i2).ok()?),
                Carry::Recurrence(a, x) => {
                    let (ad, xd) = (at.at(a, &i2).ok()?, at.at(x, &i2).ok()?);
                    let ah = at.terms.mul(ad, h);
                    h = at.terms.add(ah, xd);
                }
            }
        }
        let out = match carry {
            Carry::Prefix(_) => at.terms.sum(&sum),
            Carry::Recurrence(..) => h,
        };
        for (a, v) in atoms {
            self.atoms.entry(a).or_insert(v);
        }
        Some(out)
    }

    /// A float lane whose every body case is affine in its own accumulator `acc`,
    /// `g·acc + e` with `g` and `e` free of every carried float (a linear recurrence's
    /// state, `h = a·h + x`): its value after the loop, an atom of its own that no
    /// formula names (stores inside the loop read the state through
    /// [`Run::carried_prefixes`]; one after it does not match). `None` otherwise.
    pub(super) fn recurrence_final(
        &mut self,
        n: usize,
        (k, j): (usize, usize),
        acc: TermId,
        reads_acc: &mut Reach,
        cases: &[Case],
    ) -> Option<TermId> {
        let t = &*self.domain.terms;
        // Free of every carried float (`reads_acc` asks for any of them).
        let free = |r: &mut Reach, x: TermId| !r.contains(t, x);
        // `acc`, or a product with `acc` once and other factors free of carried floats.
        let scaled = |r: &mut Reach, x: TermId| {
            x == acc
                || matches!(t.node(x), Node::Mul(fs)
                    if fs.iter().filter(|&&f| f == acc).count() == 1
                        && fs.iter().all(|&f| f == acc || free(r, f)))
        };
        let r = reads_acc;
        for case in cases {
            let Some(Lane::Float(after)) = case.outs.get(k).and_then(|v| v.lanes.get(j)) else {
                return None;
            };
            let affine = free(r, *after)
                || scaled(r, *after)
                || matches!(t.node(*after), Node::Add(kids)
                    if kids.iter().filter(|&&c| !free(r, c)).count() == 1
                        && kids.iter().all(|&c| free(r, c) || scaled(r, c)));
            if !affine {
                return None;
            }
        }
        Some(
            self.domain
                .terms
                .carried_param(&format!("recurrence{n}.{k}.{j}")),
        )
    }
}
