//! Reading a stored value back as the formula's terms: the partials (loop results) and
//! guarded lanes a term combines are merged and matched to one of the formula's
//! reductions ([`Run::resolve`]), each summand decided equal to the reduction's summand
//! at some index and the indices proved to be the reduction's extent (`extent.rs`).
//!
//! Invariant: a partial is replaced only by a reduction proved equal to it for every
//! size on the path.

use super::at_index::{reduction_atom, AtIndex, Template};
use super::lane::{unsupported, Unsupported, R};
use super::run::Run;
use super::summary::{input_atoms_of, HoleSlots, Part};
use super::sym::{Cond, Poly};
use crate::decide::{self, Verdict};
use crate::exec::domain::Binary;
use crate::term::{Node, TermId, Terms};
use std::collections::HashMap;
use z3::SatResult;

impl Run<'_, '_, '_> {
    /// `t` with every partial replaced by the reduction it is proved to be.
    /// `memo`: sub-terms resolved earlier under the same solver context (the lanes of
    /// one store under one lane guard: a row's max and sum are resolved once per row,
    /// not once per stored element).
    pub(super) fn resolve(&mut self, t: TermId, memo: &mut HashMap<TermId, TermId>) -> R<TermId> {
        if self.partials.is_empty() && self.guards.is_empty() {
            return Ok(t);
        }
        self.resolve_in(t, memo)
    }

    pub(super) fn resolve_in(
        &mut self,
        t: TermId,
        memo: &mut HashMap<TermId, TermId>,
    ) -> R<TermId> {
        if let Some(&r) = memo.get(&t) {
            return Ok(r);
        }
        self.within_budget()?;
        let node = self.domain.terms.node(t).clone();
        let r = if self.partials.contains_key(&t) {
            let combine = self.partials[&t].combine;
            self.resolve_group(combine, &[t], memo)?
        } else {
            let kids = self.domain.terms.children(t);
            if kids.is_empty() {
                t
            } else {
                let group_op = match &node {
                    Node::Add(_) => Some(Binary::Add),
                    Node::Max(_) => Some(Binary::Max),
                    Node::Min(_) => Some(Binary::Min),
                    _ => None,
                };
                // Operands first (a reduction nested in an operand becomes its atom).
                let mut resolved = Vec::with_capacity(kids.len());
                for &k in &kids {
                    resolved.push(if self.partials.contains_key(&k) {
                        k
                    } else {
                        self.resolve_in(k, memo)?
                    });
                }
                // Partials this node combines with their own operation are one group,
                // with the operands a mask lane still guards (the lanes of a reduction
                // within one block, or a tile peeled off before the loop).
                let (group, rest): (Vec<TermId>, Vec<TermId>) = resolved.iter().partition(|&&k| {
                    group_op.is_some()
                        && match self.partials.get(&k) {
                            Some(p) => Some(p.combine) == group_op,
                            None => self.guarded_lane(k),
                        }
                });
                // With guarded lanes in the group, the unguarded operands beside them
                // (lane 0, which every mask lets through) are likely its other summands:
                // tried first with all of them, then without.
                let mut whole = None;
                if let Some(op) = group_op {
                    let others: Vec<TermId> = rest
                        .iter()
                        .copied()
                        .filter(|k| !self.partials.contains_key(k))
                        .collect();
                    if group.iter().any(|k| !self.partials.contains_key(k)) && !others.is_empty() {
                        let all: Vec<TermId> = group.iter().chain(&others).copied().collect();
                        let lanes_only = all.iter().all(|k| !self.partials.contains_key(k));
                        // A guess: what it adds beyond a reduction is no bug hint.
                        self.record_suspects = false;
                        let r = self.resolve_guess(op, &all, lanes_only, memo);
                        self.record_suspects = true;
                        match r {
                            Ok(t) => whole = Some((t, others)),
                            Err(e) if e.witness.is_some() && !lanes_only => return Err(e),
                            Err(_) => {}
                        }
                    }
                }
                let mut new_kids = Vec::with_capacity(rest.len() + 1);
                let (grouped, rest) = match whole {
                    Some((t, others)) => {
                        new_kids.push(t);
                        let rest: Vec<TermId> =
                            rest.into_iter().filter(|k| !others.contains(k)).collect();
                        (None, rest)
                    }
                    None => (Some(group), rest),
                };
                for k in rest {
                    // A partial of another operation stands alone.
                    new_kids.push(if self.partials.contains_key(&k) {
                        self.resolve_in(k, memo)?
                    } else {
                        k
                    });
                }
                if let (Some(group), Some(op)) = (grouped, group_op) {
                    let lanes_only = group.iter().all(|k| !self.partials.contains_key(k));
                    if lanes_only && self.one_mask(&group) {
                        new_kids.extend(group);
                    } else if !group.is_empty() {
                        match self.resolve_guess(op, &group, lanes_only, memo) {
                            Ok(t) => new_kids.push(t),
                            // Guarded lanes that are no reduction (`x[j] - m` on a
                            // masked lane) stay for an enclosing one or the store.
                            // (Lanes grouped by this guess prove nothing when they fail,
                            // with sizes or without: a masked row's dot is no reduction
                            // over the masked-off case.)
                            Err(_) if lanes_only => new_kids.extend(group),
                            Err(e) => return Err(e),
                        }
                    }
                }
                if new_kids == kids {
                    t
                } else {
                    self.domain.terms.with_children(t, &new_kids)
                }
            }
        };
        memo.insert(t, r);
        Ok(r)
    }

    /// An error once the verification's work limit is spent (one step per call):
    /// matching loop results can take long between the interpreter's own checks.
    pub(super) fn within_budget(&self) -> R<()> {
        if self.setup.work.step(1).is_err() {
            return unsupported(self.setup.work.reason("while matching loop results"));
        }
        Ok(())
    }

    /// [`Self::resolve_group`] for a group that holds guarded lanes; a group of lanes
    /// only that failed once is not tried again (attention's scores put the same lanes
    /// in front of every stored element).
    pub(super) fn resolve_guess(
        &mut self,
        op: Binary,
        group: &[TermId],
        lanes_only: bool,
        memo: &mut HashMap<TermId, TermId>,
    ) -> R<TermId> {
        let key = (op, group.to_vec());
        if lanes_only && self.failed_lane_groups.contains(&key) {
            return unsupported("guarded lanes that are no reduction of the formula");
        }
        let cached = (op, group.to_vec(), self.store_guard.clone());
        let cacheable = lanes_only && self.loops.is_empty();
        if cacheable {
            if let Some(&t) = self.resolved_lane_groups.get(&cached) {
                return Ok(t);
            }
        }
        let r = self.resolve_group(op, group, memo);
        match &r {
            // Lanes that are no reduction stay lanes whatever the reason (see
            // `resolve_in`), so a failure with sizes is not retried either.
            Err(_) if lanes_only => {
                self.failed_lane_groups.insert(key);
            }
            Ok(t) if cacheable => {
                self.resolved_lane_groups.insert(cached, *t);
            }
            _ => {}
        }
        r
    }

    /// The reduction the partials `group` (combined by `op`) together compute.
    pub(super) fn resolve_group(
        &mut self,
        op: Binary,
        group: &[TermId],
        memo: &mut HashMap<TermId, TermId>,
    ) -> R<TermId> {
        let mut items: Vec<(Part, TermId)> = Vec::new();
        for p in group {
            let parts = match self.partials.get(p) {
                Some(partial) => partial.parts.clone(),
                // A guarded operand: one summand, no loop.
                None => vec![Part {
                    vars: Vec::new(),
                    cond: Vec::new(),
                    summands: vec![*p],
                }],
            };
            for part in parts {
                for &s in &part.summands {
                    let s = self.resolve_in(s, memo)?;
                    // A lazily masked summand counts only where its guards hold.
                    for (conds, piece) in self.split_guards(s, op)? {
                        let mut part = part.clone();
                        part.cond.extend(conds);
                        items.push((part, piece));
                    }
                }
            }
        }
        // Borrowed from the setup, not cloned: `AtMemo` keys on the nodes' addresses.
        let setup = self.setup;
        let templates: Vec<&Template> = setup
            .templates
            .iter()
            .filter(|t| t.combine == op && !t.arg)
            .collect();
        if std::env::var_os("LIFT_DEBUG_VERIFY").is_some() {
            let t = &*self.domain.terms;
            eprintln!("  resolve_group {op:?}: {} items", items.len());
            for (part, s) in items.iter().take(3) {
                eprintln!("    {:?} {}", part.cond, t.display(*s));
            }
        }
        let mut why = String::from("a loop result that matches no reduction of the formula");
        for tmpl in templates {
            match self.match_template(tmpl, op, &items) {
                Ok(Some(t)) => {
                    self.suspect = None;
                    return Ok(t);
                }
                Ok(None) => {}
                Err(e) => {
                    if e.witness.is_some() {
                        self.suspect = None;
                        return Err(e);
                    }
                    why = e.message;
                }
            }
        }
        // Sizes where a summand the formula lacks is added, if one was seen: the
        // replay there decides (a hint, never a refutation by itself).
        match self.suspect.take() {
            Some(w) => Err(Unsupported {
                message: format!("{why} (a summand the formula does not have is added)"),
                line: 0,
                loc: Default::default(),
                witness: Some(w),
            }),
            None => unsupported(why),
        }
    }

    /// Whether each pair (formula summand, kernel summand) is equal with the factors
    /// both sides share divided out (`v[j, d]` in attention's `p[r, j] · v[j, d]`),
    /// and the pairs not proved that way (to be decided whole, [`Self::decide_whole`]).
    /// What remains after dividing out is decided once per run (`decided`): the rows'
    /// `p` is proved once, not once per stored column. Dividing out is sound for
    /// equality (`a = b` gives `a·f = b·f`).
    pub(super) fn decide_summands(
        &mut self,
        pairs: &[(TermId, TermId)],
    ) -> (Vec<bool>, Vec<usize>) {
        let stripped: Vec<(TermId, TermId)> = pairs
            .iter()
            .map(|&(a, b)| strip_common_factors(self.domain.terms, a, b))
            .collect();
        let todo: Vec<(TermId, TermId)> = {
            let mut seen = std::collections::HashSet::new();
            stripped
                .iter()
                .copied()
                .filter(|p| !self.decided.contains_key(p) && seen.insert(*p))
                .collect()
        };
        let verdicts = decide::decide_all(self.domain.terms, &todo, &decide::Options::default());
        for (p, v) in todo.iter().zip(verdicts) {
            self.decided.insert(*p, matches!(v, Verdict::Equal { .. }));
        }
        if std::env::var_os("LIFT_DEBUG_VERIFY").is_some() {
            eprintln!(
                "  decide_summands: {} pairs, {} decided now",
                pairs.len(),
                todo.len()
            );
        }
        let equal: Vec<bool> = stripped.iter().map(|p| self.decided[p]).collect();
        let whole: Vec<usize> = (0..pairs.len())
            .filter(|&k| !equal[k] && stripped[k] != pairs[k])
            .collect();
        (equal, whole)
    }

    /// `equal[k]` for each `k` of `whole`: the pair decided with its shared factors,
    /// all of them in one batch.
    pub(super) fn decide_whole(
        &mut self,
        pairs: &[(TermId, TermId)],
        whole: &[usize],
        equal: &mut [bool],
    ) {
        if whole.is_empty() {
            return;
        }
        let again: Vec<(TermId, TermId)> = whole.iter().map(|&k| pairs[k]).collect();
        if std::env::var_os("LIFT_DEBUG_VERIFY").is_some() {
            eprintln!("  decide_summands: {} decided whole", again.len());
        }
        let verdicts = decide::decide_all(self.domain.terms, &again, &decide::Options::default());
        for (&k, v) in whole.iter().zip(verdicts) {
            equal[k] = matches!(v, Verdict::Equal { .. });
        }
    }

    /// The atom of `tmpl` when `items` are exactly its summands; `None` when they do
    /// not look like them; an error (with sizes where it fails, when Z3 finds them)
    /// when they look like them but the domain is not the reduction's.
    pub(super) fn match_template(
        &mut self,
        tmpl: &Template,
        op: Binary,
        items: &[(Part, TermId)],
    ) -> R<Option<TermId>> {
        // Sizes the path fixes read as their values on the formula side, as the kernel
        // side expands them (attention's head dimension D == 16 in its scores).
        let pinned = self.store_pinned.clone();
        let mut atoms = super::at_index::AtomIndex::new();
        let rank = match &tmpl.node {
            crate::formula::Formula::MatMul(..) => 2,
            crate::formula::Formula::Reduce { arg, .. } => {
                let mut holds = |_: &Cond| false;
                let at = AtIndex {
                    terms: self.domain.terms,
                    shapes: self.setup.input_shapes,
                    pinned: &pinned,
                    holds: &mut holds,
                    atoms: &mut atoms,
                    memo: None,
                    labels: self.setup.labels,
                };
                match at.shape(arg) {
                    Ok(s) => s.len().saturating_sub(1),
                    Err(_) => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        let holes: Vec<Poly> = (0..rank).map(|k| Poly::sym(&format!("#o{k}"))).collect();
        let iota = Poly::sym("#i");
        // The summand at the holes, read for its input atoms, is the same term for
        // every group under the same pinned sizes unless reading it asked the solver
        // (a `cat` or a triangle at the holes): kept only where it asked nothing.
        let known = self
            .placeholders
            .get(tmpl.key.as_str())
            .and_then(|by_pinned| by_pinned.get(&pinned));
        let placeholder = match known {
            Some(known) => known.clone(),
            None => {
                let asked = std::cell::Cell::new(false);
                let solver = &self.solver;
                let smt = self.smt;
                let mut holds = |c: &Cond| {
                    asked.set(true);
                    smt.holds(solver, c)
                };
                let mut at = AtIndex {
                    terms: self.domain.terms,
                    shapes: self.setup.input_shapes,
                    pinned: &pinned,
                    holds: &mut holds,
                    atoms: &mut atoms,
                    memo: None,
                    labels: self.setup.labels,
                };
                let read = at
                    .summand(&tmpl.node, &holes, &iota)
                    .ok()
                    .and_then(|ph| Some((ph, at.reduced_extent(&tmpl.node).ok()?)))
                    .map(|(ph, extent)| (input_atoms_of(self.domain.terms, &atoms, ph), extent));
                if !asked.get() {
                    self.placeholders
                        .entry(tmpl.key.clone())
                        .or_default()
                        .insert(pinned.clone(), read.clone());
                }
                read
            }
        };
        let Some((shape_atoms, extent)) = placeholder else {
            return Ok(None);
        };
        // Bind the holes from each summand's input atoms. A summand that binds no index
        // of this reduction (or another outer index) is an extra, settled below.
        let mut outer: Option<Vec<Poly>> = None;
        let mut index: Vec<Option<Poly>> = Vec::with_capacity(items.len());
        let slots = HoleSlots::new(&shape_atoms);
        for (part, s) in items {
            let bound = slots.bind(&mut self.first_atoms, self.domain.terms, &self.atoms, *s);
            let bind = || -> Option<(Poly, Vec<Poly>)> {
                let i = bound.get("#i").cloned()?;
                let mut o = Vec::with_capacity(rank);
                for k in 0..rank {
                    let p = bound.get(&format!("#o{k}"))?;
                    let mut names = Vec::new();
                    p.symbols(&mut names);
                    if names.iter().any(|n| part.vars.iter().any(|v| **n == **v)) {
                        return None;
                    }
                    o.push(p.clone());
                }
                Some((i, o))
            };
            index.push(match bind() {
                Some((i, o)) => match &outer {
                    Some(prev) if *prev != o => None,
                    _ => {
                        outer = Some(o);
                        Some(i)
                    }
                },
                None => None,
            });
        }
        let Some(outer) = outer else {
            return Ok(None);
        };
        self.within_budget()?;
        // Each summand equals the reduction's summand at its index.
        let mut pairs = Vec::with_capacity(items.len());
        let mut paired = Vec::with_capacity(items.len());
        {
            let solver = &self.solver;
            let smt = self.smt;
            let mut holds = |c: &Cond| smt.holds(solver, c);
            let mut scratch = super::at_index::AtomIndex::new();
            let mut at = AtIndex {
                terms: self.domain.terms,
                shapes: self.setup.input_shapes,
                pinned: &pinned,
                holds: &mut holds,
                atoms: &mut scratch,
                memo: Some(&mut self.at_memo),
                labels: self.setup.labels,
            };
            for (k, ((_, s), i)) in items.iter().zip(&index).enumerate() {
                let Some(i) = i else { continue };
                let Ok(want) = at.summand(&tmpl.node, &outer, i) else {
                    return Ok(None);
                };
                pairs.push((want, *s));
                paired.push(k);
            }
        }
        let (mut equal, whole) = self.decide_summands(&pairs);
        // The pairs to decide whole are read below only when no common scale makes
        // every pair equal, or when all of them might be equal. One of them that the
        // refuter separates before any proof is `NotEqual` in their batch too (see
        // `decide::refuted_before_proving`), so not all are: they wait for the scale.
        let mut whole_left = match whole.first() {
            Some(&k) if refuted_early(self.domain.terms, pairs[k]) => whole,
            _ => {
                self.decide_whole(&pairs, &whole, &mut equal);
                Vec::new()
            }
        };
        let mut scale = None;
        if !equal.iter().all(|&e| e) {
            // Every summand the formula's times one constant `c` (scores scaled by
            // log2(e) before a base-2 softmax): the reduction is `c` times the formula's
            // (for a max or min only when c > 0).
            // Or, in a sum, one factor every kernel summand shares (attention computed
            // in one block divides each `p` by the row sum before `p @ v`, where the
            // spec's `(e @ v) / s` divides once): the sum is that factor times the
            // formula's, the factor being the same term for every index.
            let ct = match self.common_scale(&pairs, op) {
                Some(c) => Some(self.domain.terms.constant(c)),
                None => self.common_factor(&pairs, op),
            };
            if let Some(ct) = ct {
                let t = &mut *self.domain.terms;
                let scaled: Vec<(TermId, TermId)> =
                    pairs.iter().map(|&(w, s)| (t.mul(ct, w), s)).collect();
                if all_decided_equal(t, &scaled) {
                    scale = Some(ct);
                    equal = vec![true; pairs.len()];
                    whole_left.clear();
                }
            }
        }
        // No scale: the pairs' own verdicts, from the batch they would have been
        // decided in before the scale was tried (which their verdicts could not pass).
        self.decide_whole(&pairs, &whole_left, &mut equal);
        if !equal.iter().any(|&e| e) {
            return Ok(None);
        }
        // The summands that are this reduction's, and the extras.
        let mut mine = vec![false; items.len()];
        for (&k, &e) in paired.iter().zip(&equal) {
            mine[k] = e;
        }
        let extras: Vec<usize> = (0..items.len()).filter(|&k| !mine[k]).collect();
        // An extra whose conditions cannot hold here adds nothing; one that can is a
        // summand the formula does not have (a masked key's `exp(0 - m)` in a row sum).
        let mut reachable = None;
        for &k in &extras {
            let c = self.part_holds(&items[k].0);
            self.solver.push();
            self.solver.assert(&c);
            let sat = self.solver.check() != SatResult::Unsat;
            if sat && reachable.is_none() {
                reachable = Some((
                    k,
                    super::lane::small_witness(&self.solver, self.smt, self.setup.sizes),
                ));
            }
            self.solver.pop(1);
            if reachable.is_some() {
                break;
            }
        }
        let kept: Vec<(Part, TermId)> = (0..items.len())
            .filter(|&k| mine[k])
            .map(|k| items[k].clone())
            .collect();
        let kept_index: Vec<Poly> = index
            .iter()
            .enumerate()
            .filter(|(k, _)| mine[*k])
            .map(|(_, i)| i.clone().expect("a summand of the reduction has an index"))
            .collect();
        if std::env::var_os("LIFT_DEBUG_VERIFY").is_some() {
            eprintln!(
                "  domain check {:?} {} items ({} extra) for {}",
                op,
                kept.len(),
                extras.len(),
                tmpl.key
            );
        }
        if let Some((k, witness)) = reachable {
            // Not this reduction; but when the rest is exactly its extent, the extra is
            // a likely bug: its sizes are kept as a hint for the replay.
            if self.record_suspects
                && self.suspect.is_none()
                && witness.is_some()
                && self
                    .domain_is_extent(op, &kept, &kept_index, &extent, &tmpl.key)
                    .is_ok()
            {
                if std::env::var_os("LIFT_DEBUG_VERIFY").is_some() {
                    let t = &*self.domain.terms;
                    eprintln!("  extra summand {} at {witness:?}", t.display(items[k].1));
                }
                self.suspect = witness;
            }
            return Ok(None);
        }
        self.domain_is_extent(op, &kept, &kept_index, &extent, &tmpl.key)?;
        let atom = reduction_atom(self.domain.terms, &tmpl.key, &outer);
        Ok(Some(match scale {
            Some(c) => self.domain.terms.mul(c, atom),
            None => atom,
        }))
    }

    /// The product of the factors every kernel summand of a sum has (the same terms,
    /// free of loop partials), when the formula's first summand lacks one of them;
    /// `None` otherwise. Being one term for all summands, it does not vary with the
    /// reduction's index, so it factors out of the sum exactly.
    pub(super) fn common_factor(
        &mut self,
        pairs: &[(TermId, TermId)],
        op: Binary,
    ) -> Option<TermId> {
        if op != Binary::Add {
            return None;
        }
        let t = &*self.domain.terms;
        let factors = |x: TermId| -> Vec<TermId> {
            match t.node(x) {
                Node::Mul(ops) => ops.to_vec(),
                _ => vec![x],
            }
        };
        let (want, got) = *pairs.first()?;
        let wanted = factors(want);
        let mut common: Vec<TermId> = factors(got)
            .into_iter()
            .filter(|f| t.as_const(*f).is_none() && !wanted.contains(f))
            .collect();
        for &(_, g) in &pairs[1..] {
            let mine = factors(g);
            common.retain(|f| mine.contains(f));
        }
        common.dedup();
        if common.is_empty() || common.iter().any(|&f| self.mentions(f).1) {
            return None;
        }
        Some(self.domain.terms.product(&common))
    }

    /// The constant `c` with kernel summand = `c` × formula summand, read off the first
    /// pair's constant factors; `None` when it is 1, or not positive for a max or min.
    pub(super) fn common_scale(
        &self,
        pairs: &[(TermId, TermId)],
        op: Binary,
    ) -> Option<num_rational::BigRational> {
        use num_traits::{One, Signed, Zero};
        let &(want, got) = pairs.first()?;
        let t = &*self.domain.terms;
        let factor = |x: TermId| -> num_rational::BigRational {
            match t.node(x) {
                Node::Mul(ops) => ops
                    .first()
                    .and_then(|&o| t.as_const(o).cloned())
                    .unwrap_or_else(num_rational::BigRational::one),
                _ => t
                    .as_const(x)
                    .cloned()
                    .unwrap_or_else(num_rational::BigRational::one),
            }
        };
        let (fw, fg) = (factor(want), factor(got));
        if fw.is_zero() {
            return None;
        }
        let c = fg / fw;
        let ok = !c.is_one() && !c.is_zero() && (op == Binary::Add || c.is_positive());
        ok.then_some(c)
    }
}

/// Whether the refuter separates the pair before any proof: then `decide_all` gives
/// it `NotEqual`, in whatever batch (see `decide::refuted_before_proving`).
fn refuted_early(terms: &Terms, (a, b): (TermId, TermId)) -> bool {
    decide::refuted_before_proving(terms, a, b, &decide::Options::default()).is_some()
}

/// Whether `decide_all` decides every pair `Equal`. A pair of one term on both sides
/// (not NaN) is `Equal` in any batch (`decide` answers it before anything else); one
/// that the refuter separates before any proof is `NotEqual` in any batch: the first
/// other pair is tried alone before the batch is decided (a guess's scaled summands
/// are rarely all equal).
fn all_decided_equal(terms: &Terms, pairs: &[(TermId, TermId)]) -> bool {
    let Some(&first) = pairs.iter().find(|&&(a, b)| a != b || terms.is_nan(a)) else {
        return true;
    };
    if refuted_early(terms, first) {
        return false;
    }
    let verdicts = decide::decide_all(terms, pairs, &decide::Options::default());
    verdicts.iter().all(|v| matches!(v, Verdict::Equal { .. }))
}

/// `(a, b)` with the factors both products share divided out (each shared factor as
/// often as both have it); the pair itself when they share none.
pub(super) fn strip_common_factors(terms: &mut Terms, a: TermId, b: TermId) -> (TermId, TermId) {
    let (Node::Mul(xs), Node::Mul(ys)) = (terms.node(a), terms.node(b)) else {
        return (a, b);
    };
    let (mut xs, mut ys) = (xs.to_vec(), ys.to_vec());
    let mut common = false;
    xs.retain(|x| match ys.iter().position(|y| y == x) {
        Some(i) => {
            ys.remove(i);
            common = true;
            false
        }
        None => true,
    });
    if !common {
        return (a, b);
    }
    (terms.product(&xs), terms.product(&ys))
}
