//! Lazy masks: a lane condition that the path does not decide becomes a *guard* inside
//! the value instead of a fork of the whole run.
//!
//! Forking on every lane of every mask multiplies the cases: a tiled matmul's row,
//! column and K masks give 17 × 17 × 17 cases at 16-wide blocks, each running the whole
//! K loop. With lazy masks a masked load lane is `select(g, x[i], other)`, where `g` is a
//! boolean atom standing for the lane's integer condition (one atom per condition); a
//! masked store lane is recorded with the condition as its guard, as a store inside a
//! loop is. The conditions are only looked at where a value is needed:
//! - a reduction's summand `select(g, s, 0)` is the summand `s` on the part of the
//!   domain where `g` holds ([`Run::split_guards`]), which the loop matching already
//!   proves equal to the reduction's extent;
//! - a stored value is read under its store's guard, which settles the guards it
//!   implies ([`Run::settle`]); any guard still open there stops the attempt.
//!
//! Each candidate constraint is tried with lazy masks first and then forking
//! (`super::run`): a reduction within one block (all lanes of a row in one tile) is read
//! only by forking, which pins the row length on each path.
//!
//! Invariant: a guard atom is only ever replaced by the truth value of its condition
//! where the solver proves that value, or inside a piece whose conditions record the
//! assumption; so every piece a proof uses holds exactly where its conditions do.

use super::lane::{unsupported, R};
use super::mask::{conjuncts, Classes};
use super::run::Run;

pub(super) use super::mask::MaskLane;
use super::sym::Cond;
use crate::exec::domain::Binary;
use crate::term::{CmpOp, TermId};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// Most guards one summand or stored value may depend on (its pieces are enumerated).
const MAX_GUARDS: usize = 6;

/// Most rebuilt nodes [`Run::substitute`] keeps over all assignments before starting
/// afresh (a bound on memory, not on what is proved).
const MAX_SUBST_MEMO: usize = 1 << 20;

impl Run<'_, '_, '_> {
    /// The boolean atom standing for `c` (one per condition).
    pub(super) fn guard(&mut self, c: &Cond) -> TermId {
        if let Some(&g) = self.guard_terms.get(c) {
            return g;
        }
        let n = self.guard_terms.len();
        let terms = &mut *self.domain.terms;
        let p = terms.param(&format!("guard#{n}"));
        let zero = terms.zero();
        let g = terms.cmp(CmpOp::Gt, p, zero);
        self.guard_terms.insert(c.clone(), g);
        self.guards.insert(g, c.clone());
        g
    }

    /// `c` on this path: decided (forking) in a forking run; in a lazy run `Guard`
    /// when both values are feasible.
    pub(super) fn mask_lane(&mut self, c: &Cond) -> R<MaskLane> {
        let decided = |b: bool| if b { MaskLane::On } else { MaskLane::Off };
        if !self.setup.lazy_masks {
            return Ok(decided(self.decide(c)?));
        }
        if let Some(b) = self.memo.get(c).copied().or_else(|| self.known(c)) {
            return Ok(decided(b));
        }
        self.opened_guard = true;
        Ok(MaskLane::Guard(c.clone()))
    }

    /// The value of `c` when the path fixes it (no fork).
    fn known(&mut self, c: &Cond) -> Option<bool> {
        if let Some(b) = c.as_const() {
            return Some(b);
        }
        // The lane's mask is assumed, so each of its conjuncts holds.
        if self.assumed.contains(c) {
            return Some(true);
        }
        let cacheable = self.loops.is_empty();
        let key = (c.clone(), self.store_guard.clone());
        if cacheable {
            if let Some(&b) = self.known_cache.get(&key) {
                return b;
            }
            // Open on the path and over symbols its constraints do not link to the
            // store mask's: open under the mask too (see [`Classes`]).
            if let Some(g) = self.store_guard.clone() {
                if self.known_cache.get(&(c.clone(), None)) == Some(&None) && !self.linked(c, &g) {
                    return None;
                }
            }
        } else if let Some(&b) = self.lane_known.as_ref().and_then(|m| m.get(c)) {
            return b;
        }
        let b = match c {
            // A conjunction from its conjuncts (each cached: a tile's lanes repeat
            // their row and column conditions): false when one is, true when all are;
            // open when the open ones are unlinked; otherwise it can only be false,
            // which one query asks.
            Cond::And(cs) => {
                let each: Vec<Option<bool>> = cs.iter().map(|c| self.known(c)).collect();
                if each.contains(&Some(false)) {
                    Some(false)
                } else if each.iter().all(|b| *b == Some(true)) {
                    Some(true)
                } else {
                    let open: Vec<&Cond> = cs
                        .iter()
                        .zip(&each)
                        .filter(|(_, b)| b.is_none())
                        .map(|(c, _)| c)
                        .collect();
                    if self.unlinked(&open) {
                        None
                    } else {
                        self.holds(&c.clone().not()).then_some(false)
                    }
                }
            }
            _ if self.holds(c) => Some(true),
            _ => self.holds(&c.clone().not()).then_some(false),
        };
        if cacheable {
            self.known_cache.insert(key, b);
            // Open under the mask means open on the path, which assumes less.
            if b.is_none() && self.store_guard.is_some() {
                self.known_cache.insert((c.clone(), None), None);
            }
        } else if let Some(m) = self.lane_known.as_mut() {
            m.insert(c.clone(), b);
        }
        b
    }

    /// The symbol classes of the solver's context: the base, the path's choices, the
    /// loops' iteration ranges (the store mask is left out; callers add it).
    fn classes(&mut self) -> &Classes {
        let stamp = (self.path.cond.len(), self.loops.len(), self.loop_count);
        if self.classes.as_ref().is_none_or(|k| k.stamp != stamp) {
            let conds = self
                .setup
                .base
                .iter()
                .chain(&self.path.cond)
                .chain(self.loops.iter().flat_map(|l| &l.valid));
            self.classes = Some(Classes::new(conds, stamp));
        }
        self.classes.as_ref().expect("just built")
    }

    /// Whether the context's constraints link a symbol of `a` to one of `b`.
    fn linked(&mut self, a: &Cond, b: &Cond) -> bool {
        let (mut sa, mut sb) = (Vec::new(), Vec::new());
        a.symbols(&mut sa);
        b.symbols(&mut sb);
        self.classes().link(&sa, &sb)
    }

    /// Whether no two of `open` are linked in the context, the store mask included
    /// (two conditions that both touch the mask's symbols are linked through it).
    /// Then, each being open, their conjunction is open.
    fn unlinked(&mut self, open: &[&Cond]) -> bool {
        let syms: Vec<Vec<Arc<str>>> = open
            .iter()
            .map(|c| {
                let mut v = Vec::new();
                c.symbols(&mut v);
                v
            })
            .collect();
        let mask = self.store_guard.as_ref().map(|g| {
            let mut v = Vec::new();
            g.symbols(&mut v);
            v
        });
        let classes = self.classes();
        let touches: Vec<bool> = syms
            .iter()
            .map(|s| mask.as_ref().is_some_and(|m| classes.link(s, m)))
            .collect();
        for i in 0..syms.len() {
            for j in i + 1..syms.len() {
                if classes.link(&syms[i], &syms[j]) || (touches[i] && touches[j]) {
                    return false;
                }
            }
        }
        true
    }

    /// The guard atoms `t` mentions, sorted. Memoised for the run, node by node, as
    /// [`Self::mentions`] is: a store's summands share their row's max and sum, whose
    /// guards were otherwise collected again for every summand and every split.
    pub(super) fn guards_in(&mut self, t: TermId) -> Rc<[TermId]> {
        let mut stack = vec![(t, false)];
        while let Some((x, expanded)) = stack.pop() {
            if self.guards_memo.contains_key(&x) {
                continue;
            }
            if self.guards.contains_key(&x) {
                self.guards_memo.insert(x, Rc::from([x]));
                continue;
            }
            let kids = self.domain.terms.children(x);
            if expanded {
                let sets: Vec<&Rc<[TermId]>> = kids
                    .iter()
                    .map(|k| &self.guards_memo[k])
                    .filter(|s| !s.is_empty())
                    .collect();
                // A node over one child's guards shares that child's set.
                let r = match sets.split_first() {
                    None => self.no_guards.clone(),
                    Some((first, rest)) if rest.iter().all(|s| s == first) => Rc::clone(first),
                    Some(_) => {
                        let mut all: Vec<TermId> =
                            sets.iter().flat_map(|s| s.iter().copied()).collect();
                        all.sort_unstable();
                        all.dedup();
                        Rc::from(all)
                    }
                };
                self.guards_memo.insert(x, r);
            } else {
                stack.push((x, true));
                for k in kids {
                    if !self.guards_memo.contains_key(&k) {
                        stack.push((k, false));
                    }
                }
            }
        }
        Rc::clone(&self.guards_memo[&t])
    }

    /// `t` with each guard of `assign` replaced by its truth value. Sub-terms that
    /// mention none of them are kept as they are, unwalked; the rebuilt ones are kept
    /// per assignment for the run (a row's stored elements settle the same guards in
    /// the same shared sub-terms, the row's scores, max and sum), as the result is a
    /// function of the term and the assignment alone.
    fn substitute(&mut self, t: TermId, assign: &HashMap<TermId, bool>) -> TermId {
        fn go(
            terms: &mut crate::term::Terms,
            guards: &rustc_hash::FxHashMap<TermId, Rc<[TermId]>>,
            t: TermId,
            assign: &[(TermId, bool)],
            memo: &mut rustc_hash::FxHashMap<TermId, TermId>,
        ) -> TermId {
            let value = |g: &TermId| {
                assign
                    .binary_search_by_key(g, |&(a, _)| a)
                    .ok()
                    .map(|k| assign[k].1)
            };
            if let Some(b) = value(&t) {
                return if b { terms.one() } else { terms.zero() };
            }
            if !guards[&t].iter().any(|g| value(g).is_some()) {
                return t;
            }
            if let Some(&r) = memo.get(&t) {
                return r;
            }
            let kids = terms.children(t);
            let new: Vec<TermId> = kids
                .iter()
                .map(|&k| go(terms, guards, k, assign, memo))
                .collect();
            let r = if new == kids {
                t
            } else {
                terms.with_children(t, &new)
            };
            memo.insert(t, r);
            r
        }
        // Every node under `t` gets its guards memoised here.
        self.guards_in(t);
        let mut key: Vec<(TermId, bool)> = assign.iter().map(|(&g, &b)| (g, b)).collect();
        key.sort_unstable();
        if self.subst_memo_nodes > MAX_SUBST_MEMO {
            self.subst_memo.clear();
            self.subst_memo_nodes = 0;
        }
        let memo = self.subst_memo.entry(key.clone()).or_default();
        let before = memo.len();
        let r = go(self.domain.terms, &self.guards_memo, t, &key, memo);
        self.subst_memo_nodes += memo.len() - before;
        r
    }

    /// `t` with every guard the solver decides replaced by its value.
    fn settle_known(&mut self, t: TermId) -> (TermId, Vec<TermId>) {
        self.settle_known_where(t, |_| true)
    }

    /// [`Self::settle_known`] asking the solver only about the guards `ask` picks; the
    /// others stay open.
    fn settle_known_where(
        &mut self,
        t: TermId,
        ask: impl Fn(&Cond) -> bool,
    ) -> (TermId, Vec<TermId>) {
        let mut assign = HashMap::new();
        let mut open = Vec::new();
        for &g in self.guards_in(t).iter() {
            let c = self.guards[&g].clone();
            match ask(&c).then(|| self.known(&c)).flatten() {
                Some(b) => {
                    assign.insert(g, b);
                }
                None => open.push(g),
            }
        }
        let t = if assign.is_empty() {
            t
        } else {
            self.substitute(t, &assign)
        };
        (t, open)
    }

    /// `t` with the guards the path (and the store's guard) decides settled; the
    /// others stay.
    pub(super) fn settle_known_guards(&mut self, t: TermId) -> TermId {
        if self.guards.is_empty() {
            return t;
        }
        self.settle_known(t).0
    }

    /// Whether `t` depends on a guard and on no loop partial: an operand of a
    /// reduction over the lanes of one block.
    pub(super) fn guarded_lane(&mut self, t: TermId) -> bool {
        let (guard, partial) = self.mentions(t);
        guard && !partial
    }

    /// Whether `t` mentions a guard atom, and whether it mentions a loop partial.
    /// Memoised for the run: terms never change, and a guard or partial atom is
    /// registered as it is made, before any term holds it (resolving asks this of
    /// every operand of every sum, so an unmemoised walk is quadratic).
    pub(super) fn mentions(&mut self, t: TermId) -> (bool, bool) {
        let mut stack = vec![(t, false)];
        while let Some((x, expanded)) = stack.pop() {
            if self.mentions_memo.contains_key(&x) {
                continue;
            }
            let own = (self.guards.contains_key(&x), self.partials.contains_key(&x));
            if own.0 || own.1 {
                self.mentions_memo.insert(x, own);
                continue;
            }
            let kids = self.domain.terms.children(x);
            if expanded {
                let mut r = (false, false);
                for k in kids {
                    let (g, p) = self.mentions_memo[&k];
                    r = (r.0 || g, r.1 || p);
                }
                self.mentions_memo.insert(x, r);
            } else {
                stack.push((x, true));
                for k in kids {
                    if !self.mentions_memo.contains_key(&k) {
                        stack.push((k, false));
                    }
                }
            }
        }
        self.mentions_memo[&t]
    }

    /// Whether the lanes of `group` all hang on one and the same set of guards: an
    /// element-wise combination under one mask (a dot product along an unmasked axis
    /// of a masked row), never a reduction over the lanes of a block, whose lanes each
    /// have their own mask condition. Such a group is left as it is.
    pub(super) fn one_mask(&mut self, group: &[TermId]) -> bool {
        let Some((&first, rest)) = group.split_first() else {
            return false;
        };
        let first = self.guards_in(first);
        !rest.is_empty() && rest.iter().all(|&k| self.guards_in(k) == first)
    }

    /// A stored value with its guards settled by the path (and the store's guard, which
    /// the caller has asserted); a guard still open stops the attempt.
    pub(super) fn settle(&mut self, t: TermId) -> R<TermId> {
        if self.guards.is_empty() {
            return Ok(t);
        }
        let (t, open) = self.settle_known(t);
        if !open.is_empty() {
            return unsupported(
                "a stored value depends on a mask lane its store does not fix (lazy masks)",
            );
        }
        Ok(t)
    }

    /// `c` without the conjuncts the store's mask has (outside loops, where the mask
    /// holds wherever the piece is used): a matmul's `row < M and k < K` lane is
    /// `k < K` for every store lane of that row, so the pieces of every row are alike
    /// and their domain check is made once.
    fn under_store_mask(&self, c: Cond) -> Cond {
        if self.store_guard.is_none() || !self.loops.is_empty() {
            return c;
        }
        // The store mask's conjuncts, asserted for the lane.
        let known = &self.assumed;
        let mine = conjuncts(&c);
        if !mine.iter().any(|x| known.contains(x)) {
            return c;
        }
        mine.into_iter()
            .filter(|x| !known.contains(x))
            .fold(Cond::Const(true), Cond::and)
    }

    /// The pieces of summand `s` of a reduction combined by `op`: each with the
    /// conditions (on the guards it depends on) under which it is the value. Pieces that
    /// are the identity of `op` (a masked-off `0` in a sum, `-inf` in a max) are left out.
    pub(super) fn split_guards(&mut self, s: TermId, op: Binary) -> R<Vec<(Vec<Cond>, TermId)>> {
        if self.guards.is_empty() {
            return Ok(vec![(Vec::new(), s)]);
        }
        // Inside loops every guard is split on (settling each first would cost two
        // solver queries per guard per summand); a piece whose conditions cannot hold
        // is left for the domain queries, where it reaches nothing. Outside loops the
        // answers are cached per store mask, so the guards over the mask's own symbols
        // are settled first (a masked row's `0` scores are no piece of the row the
        // store writes); a matmul's K-lane guards, about other sizes, are not asked.
        let (s, open) = match self.store_guard.clone() {
            Some(g) if self.loops.is_empty() => {
                let mut mask_syms = Vec::new();
                g.symbols(&mut mask_syms);
                self.settle_known_where(s, |c| {
                    let mut syms = Vec::new();
                    c.symbols(&mut syms);
                    syms.iter().all(|v| mask_syms.contains(v))
                })
            }
            _ => (s, self.guards_in(s).to_vec()),
        };
        if open.is_empty() {
            return Ok(vec![(Vec::new(), s)]);
        }
        if open.len() > MAX_GUARDS {
            if std::env::var_os("LIFT_DEBUG_VERIFY").is_some() {
                eprintln!("  too many guards in {}", self.domain.terms.display(s));
            }
            return unsupported(format!(
                "a summand depends on {} mask lanes (at most {MAX_GUARDS} are split)",
                open.len()
            ));
        }
        let mut out = Vec::new();
        for bits in 0u32..(1 << open.len()) {
            let mut assign = HashMap::new();
            let mut conds = Vec::with_capacity(open.len());
            for (k, g) in open.iter().enumerate() {
                let on = bits & (1 << k) != 0;
                assign.insert(*g, on);
                let c = self.under_store_mask(self.guards[g].clone());
                conds.push(if on { c } else { c.not() });
            }
            let piece = self.substitute(s, &assign);
            let terms = &*self.domain.terms;
            let identity = match op {
                Binary::Add => terms.as_const(piece).is_some_and(num_traits::Zero::is_zero),
                Binary::Max => terms.as_inf(piece) == Some(true),
                Binary::Min => terms.as_inf(piece) == Some(false),
                _ => false,
            };
            if !identity {
                out.push((conds, piece));
            }
        }
        Ok(out)
    }
}
