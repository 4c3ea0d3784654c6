//! A running argmax (or argmin), read for every trip count: PyTorch's first-index rule.
//!
//! A loop carrying a float `m` and an integer `idx` whose body, in every case that
//! changes them, computes (in any of the equal select forms)
//!
//! ```text
//! better = e(u) > m          (argmin: e(u) < m)
//! m'     = select(better, e(u), m)   or  max(m, e(u))
//! idx'   = select(better, t(u), idx)
//! ```
//!
//! leaves, after the loop, `idx` = the first index attaining the maximum of the row the
//! initial value and the iterations' summands form, when (checked below):
//! - entry: the initial `m` is the formula's summand at index `i₀` and the initial
//!   `idx` is `i₀`;
//! - each iteration pairs its summand `e(u)` (decided equal to the formula's summand at
//!   index `i(u)`) with its own index: `t(u)` is `i(u)`;
//! - order: `i(u) = a·u + b` with `a > 0` (the same in every case), so the iterations
//!   visit indices in increasing order, all above `i₀` (Z3);
//! - exit: `{i₀} ∪ {i(u)}` is exactly the reduction's extent, each index once (Z3,
//!   [`Run::domain_is_extent`]).
//!
//! Why strictness gives the first index. Invariant, after the items visited so far
//! (indices `j₀ < j₁ < … < jₖ`): `m = max xⱼ` and `idx = min{ j : xⱼ = m }`. It holds on
//! entry (one item: `m = x_{i₀}`, `idx = i₀`). One iteration with a new item `(t, v)`,
//! `t` above every index seen: if `v > m`, every earlier value is `≤ m < v`, so `t` is
//! the only index attaining `m' = v` and `idx' = t` is the first; otherwise `m' = m`
//! and the first index attaining it is still `idx < t`, which the select keeps. With
//! `v >= m` a tie `v = m` moves `idx` to `t` although `idx < t` attains the same
//! maximum: that is the *last* index, not PyTorch's, and is refused here with its own
//! reason (the bounded check then shows the tie). The reading is over the reals, as
//! every running max is read (`select(v > m, v, m) = max(m, v)`, see
//! `exec::extrema`); NaN is outside it.
//!
//! Invariant: an index lane is summarised only when every check above holds; its value
//! is then the formula's own argmax atom ([`super::at_index::reduction_atom`] of the
//! `argmax` template), which nothing else produces. Otherwise the loop is
//! [`super::lane::unsupported`] (a domain Z3 disproves comes with sizes).

use super::at_index::{real_of, reduction_atom, AtIndex, Template};
use super::lane::{unsupported, Lane, R};
use super::run::Run;
use super::summary::{
    affine_in_one, bind_holes, contains_any, input_atoms_of, Carried, Case, Part, Partial, Picked,
};
use super::sym::{Cond, Poly, Rel};
use crate::decide::{self, Verdict};
use crate::exec::domain::Binary;
use crate::term::{CmpOp, Node, TermId, Terms};
use rustc_hash::FxHashSet;
use std::collections::{BTreeMap, HashMap};
use z3::SatResult;

/// What one body case does to an `(m, idx)` pair.
enum Step {
    /// Neither changes (a masked-off iteration).
    Idle,
    /// `e(u)` replaces `m` and `t(u)` replaces `idx` when `e(u)` beats `m`.
    Update { e: TermId, t: TermId },
}

/// Final values: index lanes (value, least bound) and extremum lanes this file summarised.
type Finals = (
    HashMap<(usize, usize), (TermId, i128)>,
    HashMap<(usize, usize), TermId>,
);

impl Run<'_, '_, '_> {
    /// Summarises every picked index lane with a running extremum among `floats`;
    /// an error when one is no running argmax/argmin of the formula.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn summarise_argext(
        &mut self,
        n: usize,
        picks: &[Picked],
        floats: &[Carried],
        finals: &HashMap<(usize, usize), TermId>,
        all_accs: &FxHashSet<TermId>,
        var: &str,
        valid: &[Cond],
        cases: &[Case],
    ) -> R<Finals> {
        let mut idx_finals = HashMap::new();
        let mut ext_finals: HashMap<(usize, usize), TermId> = HashMap::new();
        for pick in picks {
            let mut why = String::from(
                "a data-picked loop integer that is no running argmax or argmin \
                 (no invariant template for it)",
            );
            let mut done = None;
            for m in floats {
                let steps = match self.argext_steps(pick, m, all_accs, cases) {
                    Ok(s) => s,
                    Err(e) => {
                        if let Some(e) = e {
                            why = e;
                        }
                        continue;
                    }
                };
                done = Some((*m, steps));
                break;
            }
            let Some((m, (steps, max))) = done else {
                return unsupported(why);
            };
            let mut parts = Vec::new();
            let mut lo = pick.lo;
            for (case, step) in cases.iter().zip(&steps) {
                if let Step::Update { e, t } = step {
                    let mut cond = valid.to_vec();
                    cond.extend(case.cond.iter().cloned());
                    parts.push((
                        Part {
                            vars: vec![var.to_string()],
                            cond,
                            summands: vec![*e],
                        },
                        *t,
                    ));
                }
                if let Some(Lane::DataInt(_, l)) = lane(case, pick.lane) {
                    lo = lo.min(*l);
                }
            }
            let idx = if parts.is_empty() {
                // No case changes the pair: both keep their initial values.
                pick.init
            } else {
                self.argext_atom(max, (m.init, pick.init), &parts, var)?
            };
            idx_finals.insert(pick.lane, (idx, lo));
            // The running extremum, where no other template summarised it: a running
            // max or min of the same summands (a partial like any other).
            if !finals.contains_key(&m.lane) && !ext_finals.contains_key(&m.lane) {
                let combine = if max { Binary::Max } else { Binary::Min };
                let t = if parts.is_empty() {
                    m.init
                } else {
                    let p = self
                        .domain
                        .terms
                        .carried_param(&format!("loop{n}.{}.{}", m.lane.0, m.lane.1));
                    let parts = parts.into_iter().map(|(p, _)| p).collect();
                    self.partials.insert(p, Partial { combine, parts });
                    let t = &mut *self.domain.terms;
                    if max {
                        t.max(m.init, p)
                    } else {
                        t.min(m.init, p)
                    }
                };
                ext_finals.insert(m.lane, t);
            }
        }
        Ok((idx_finals, ext_finals))
    }

    /// Each case's step of the pair (`pick`, `m`) and whether it is an argmax (else an
    /// argmin). `Err(None)`: not this pair's shape; `Err(Some(reason))`: the shape of a
    /// running arg-extreme that is not PyTorch's (ties to the last index).
    fn argext_steps(
        &mut self,
        pick: &Picked,
        m: &Carried,
        all_accs: &FxHashSet<TermId>,
        cases: &[Case],
    ) -> Result<(Vec<Step>, bool), Option<String>> {
        let mut steps = Vec::with_capacity(cases.len());
        let mut kind: Option<bool> = None;
        for case in cases {
            let (Some(Lane::DataInt(idx, _)), Some(Lane::Float(m_after))) =
                (lane(case, pick.lane), lane(case, m.lane))
            else {
                return Err(None);
            };
            let (idx, m_after) = (*idx, *m_after);
            if idx == pick.acc && m_after == m.acc {
                steps.push(Step::Idle);
                continue;
            }
            let t = &mut *self.domain.terms;
            let Node::Select(c, p, q) = t.node(idx).clone() else {
                return Err(None);
            };
            // `idx' = select(c, t, idx)`: updated when c; `select(c, idx, t)`: when !c.
            let (new_idx, when) = if q == pick.acc {
                (p, true)
            } else if p == pick.acc {
                (q, false)
            } else {
                return Err(None);
            };
            let Node::Cmp(op, l, r) = t.node(c).clone() else {
                return Err(None);
            };
            // The comparison as `e OP m`.
            let (e, op) = if r == m.acc {
                (l, op)
            } else if l == m.acc {
                (r, op.flipped())
            } else {
                return Err(None);
            };
            // The update's condition as `e OP m` (a negated comparison read over the
            // reals: `!(e <= m)` is `e > m`).
            let op = if when { op } else { op.negated() };
            let (max, strict) = match op {
                CmpOp::Gt => (true, true),
                CmpOp::Ge => (true, false),
                CmpOp::Lt => (false, true),
                CmpOp::Le => (false, false),
                CmpOp::Eq | CmpOp::Ne => return Err(None),
            };
            if contains_any(t, e, all_accs) || contains_any(t, new_idx, all_accs) {
                return Err(None);
            }
            // m' is e where the index moves, m elsewhere: the same select, or max/min.
            let m_ok = match t.node(m_after).clone() {
                Node::Select(c2, p2, q2) => {
                    c2 == c
                        && if when {
                            (p2, q2) == (e, m.acc)
                        } else {
                            (p2, q2) == (m.acc, e)
                        }
                }
                Node::Max(kids) if max => same_extreme(t, &kids, m.acc, e, true),
                Node::Min(kids) if !max => same_extreme(t, &kids, m.acc, e, false),
                _ => false,
            };
            if !m_ok {
                return Err(None);
            }
            if !strict {
                return Err(Some(format!(
                    "a running {} whose index moves on a tie (`{}`): the last index attaining \
                     it, not PyTorch's first",
                    if max { "argmax" } else { "argmin" },
                    if max { ">=" } else { "<=" },
                )));
            }
            if kind.is_some_and(|k| k != max) {
                return Err(None);
            }
            kind = Some(max);
            steps.push(Step::Update { e, t: new_idx });
        }
        Ok((steps, kind.unwrap_or(true)))
    }

    /// The formula's argmax (argmin) atom the pair computes: the initial `(value,
    /// index)` and each updating case's `(summand, index)` match one `arg` template
    /// (see the module doc for the checks).
    fn argext_atom(
        &mut self,
        max: bool,
        (m0, i0): (TermId, TermId),
        parts: &[(Part, TermId)],
        var: &str,
    ) -> R<TermId> {
        let combine = if max { Binary::Max } else { Binary::Min };
        let templates: Vec<Template> = self
            .setup
            .templates
            .iter()
            .filter(|t| t.arg && t.combine == combine)
            .cloned()
            .collect();
        let mut why = format!(
            "a running {} that matches no {} of the formula",
            if max { "argmax" } else { "argmin" },
            if max { "argmax" } else { "argmin" },
        );
        for tmpl in &templates {
            match self.argext_match(tmpl, (m0, i0), parts, var) {
                Ok(t) => return Ok(t),
                Err(e) if e.witness.is_some() => return Err(e),
                Err(e) => why = e.message,
            }
        }
        unsupported(why)
    }

    fn argext_match(
        &mut self,
        tmpl: &Template,
        (m0, i0): (TermId, TermId),
        parts: &[(Part, TermId)],
        var: &str,
    ) -> R<TermId> {
        let crate::formula::Formula::Reduce { arg, .. } = &tmpl.node else {
            return unsupported("an argmax template that is no reduction");
        };
        let pinned = BTreeMap::new();
        let mut scratch = super::at_index::AtomIndex::new();
        // The formula's summand with holes for the outer index and the reduced one.
        let (shape_atoms, extent) = {
            let solver = &self.solver;
            let smt = self.smt;
            let mut holds = |c: &Cond| smt.holds(solver, c);
            let mut at = AtIndex {
                terms: self.domain.terms,
                shapes: self.setup.input_shapes,
                pinned: &pinned,
                holds: &mut holds,
                atoms: &mut scratch,
                memo: None,
                labels: self.setup.labels,
            };
            let rank = match at.shape(arg) {
                Ok(s) => s.len().saturating_sub(1),
                Err(e) => return unsupported(e),
            };
            let holes: Vec<Poly> = (0..rank).map(|k| Poly::sym(&format!("#o{k}"))).collect();
            let ph = match at.summand(&tmpl.node, &holes, &Poly::sym("#i")) {
                Ok(t) => t,
                Err(e) => return unsupported(e),
            };
            let extent = match at.reduced_extent(&tmpl.node) {
                Ok(x) => x,
                Err(e) => return unsupported(e),
            };
            let rank_atoms = input_atoms_of(at.terms, at.atoms, ph);
            ((rank, rank_atoms), extent)
        };
        let (rank, shape_atoms) = shape_atoms;
        // Each item's (outer index, reduced index), read off its input atoms.
        let init_part = Part {
            vars: Vec::new(),
            cond: Vec::new(),
            summands: vec![m0],
        };
        let mut items: Vec<(&Part, TermId, TermId)> = vec![(&init_part, m0, i0)];
        items.extend(parts.iter().map(|(p, t)| (p, p.summands[0], *t)));
        let mut outer: Option<Vec<Poly>> = None;
        let mut index = Vec::with_capacity(items.len());
        for (part, e, _) in &items {
            let bound = bind_holes(
                &mut self.first_atoms,
                self.domain.terms,
                &self.atoms,
                &shape_atoms,
                *e,
            );
            let Some(i) = bound.get("#i").cloned() else {
                return unsupported("a running argmax summand that reads no element of its row");
            };
            let mut o = Vec::with_capacity(rank);
            for k in 0..rank {
                let Some(p) = bound.get(&format!("#o{k}")) else {
                    return unsupported("a running argmax summand with no outer index");
                };
                let mut names = Vec::new();
                p.symbols(&mut names);
                if names.iter().any(|n| part.vars.iter().any(|v| **n == **v)) {
                    return unsupported("a running argmax over a row that changes every trip");
                }
                o.push(p.clone());
            }
            match &outer {
                Some(prev) if *prev != o => {
                    return unsupported("a running argmax whose summands lie in different rows")
                }
                _ => outer = Some(o),
            }
            index.push(i);
        }
        let outer = outer.expect("the initial value is an item");
        // Each value is the formula's summand at its index (decided) ...
        let mut pairs = Vec::with_capacity(items.len());
        {
            let solver = &self.solver;
            let smt = self.smt;
            let mut holds = |c: &Cond| smt.holds(solver, c);
            let mut at = AtIndex {
                terms: self.domain.terms,
                shapes: self.setup.input_shapes,
                pinned: &pinned,
                holds: &mut holds,
                atoms: &mut scratch,
                memo: None,
                labels: self.setup.labels,
            };
            for ((_, e, _), i) in items.iter().zip(&index) {
                match at.summand(&tmpl.node, &outer, i) {
                    Ok(want) => pairs.push((want, *e)),
                    Err(e) => return unsupported(e),
                }
            }
        }
        let verdicts = decide::decide_all(self.domain.terms, &pairs, &decide::Options::default());
        if !verdicts.iter().all(|v| matches!(v, Verdict::Equal { .. })) {
            return unsupported(format!(
                "a running argmax whose values are not the summands of `{}`",
                tmpl.key
            ));
        }
        // ... and each carried index is that index.
        for ((_, _, t), i) in items.iter().zip(&index) {
            if !is_int(self.domain.terms, *t, i) {
                return unsupported(
                    "a running argmax whose index is not the position of its value in the row",
                );
            }
        }
        // Order: one affine index `a·u + b`, a > 0, in every updating case, above i₀.
        let (i0_index, loop_index) = (&index[0], &index[1..]);
        let Some(first) = loop_index.first() else {
            return unsupported("a running argmax with no updating case");
        };
        if loop_index.iter().any(|i| i != first) {
            return unsupported("a running argmax whose index differs between body cases");
        }
        match affine_in_one(first, &[var.to_string()]) {
            Some((_, a, _)) if a > 0 => {}
            _ => {
                return unsupported(
                    "a running argmax whose index does not grow with every iteration",
                )
            }
        }
        for (part, _) in parts {
            let below = Cond::cmp(Rel::Le, first, i0_index);
            self.solver.push();
            self.solver.assert(&self.part_holds(part));
            self.solver.assert(&self.smt.cond(&below));
            let r = self.solver.check();
            self.solver.pop(1);
            if r != SatResult::Unsat {
                return unsupported(
                    "a running argmax whose initial index is not below every iteration's",
                );
            }
        }
        // Exit: the indices are exactly the extent, each once.
        let owned: Vec<(Part, TermId)> = items.iter().map(|(p, e, _)| ((*p).clone(), *e)).collect();
        self.domain_is_extent(Binary::Add, &owned, &index, &extent, &tmpl.key)?;
        Ok(reduction_atom(self.domain.terms, &tmpl.key, &outer))
    }
}

/// Lane `(k, j)` of a case's result.
fn lane(case: &Case, (k, j): (usize, usize)) -> Option<&Lane> {
    case.outs.get(k).and_then(|v| v.lanes.get(j))
}

/// Whether `max(kids)` (or min) is `max(acc, e)`.
fn same_extreme(t: &mut Terms, kids: &[TermId], acc: TermId, e: TermId, max: bool) -> bool {
    if !kids.contains(&acc) {
        return false;
    }
    let rest: Vec<TermId> = kids.iter().copied().filter(|&k| k != acc).collect();
    let r = if max { t.maxn(&rest) } else { t.minn(&rest) };
    r == e
}

/// Whether the real `t` is the integer `i` (a constant, or [`real_of`] of it).
fn is_int(terms: &mut Terms, t: TermId, i: &Poly) -> bool {
    match i.as_const() {
        Some(c) => terms
            .as_const(t)
            .is_some_and(|v| *v == num_rational::BigRational::from_integer(c.into())),
        None => real_of(terms, i) == t,
    }
}
