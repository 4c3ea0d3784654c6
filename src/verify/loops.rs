//! Loops whose trip count depends on the sizes, read for every trip count at once.
//!
//! A loop `for t in range(lo, hi, step)` runs its body once, symbolically, at iteration
//! `t = lo + step·u` for a fresh integer `u` with `0 <= u` and `t < hi` (every iteration
//! at once). What it carries must fit one of two shapes:
//! - an integer or pointer that moves by the same amount `Δ` every trip (found by a
//!   probe run with the carried value as a symbol): at iteration `u` it is `init + u·Δ`;
//! - a float that the body combines with one associative operation (a running sum,
//!   max or min): `acc' = acc ⊕ e(u)` with `e` free of `acc`, so after the loop it is
//!   `init ⊕ ⨁_u e(u)`.
//!
//! Lane masks inside the body fork the body alone (each case with its condition on `u`),
//! so a summary holds for every iteration. A float result stands as an atom (a
//! [`Partial`]) until a store needs its value; [`Run::resolve`] then merges the partials
//! a term combines (`tl.sum(acc, axis=1)` of a lane-wise accumulator) and matches them
//! to one of the formula's reductions: each summand equals the reduction's summand at
//! some index (decided, atoms named by index), and Z3 proves those indices are exactly
//! the reduction's extent, each once (a sum) or at least once (a max or min). The
//! result is then the reduction's own atom ([`super::at_index::reduction_atom`]), the
//! same one the formula side builds.
//!
//! Invariant: a partial is replaced only by a reduction it is proved equal to for every
//! size on the path; anything else (another carried shape, a summand that matches no
//! reduction, a domain Z3 cannot prove) is [`Unsupported`], with sizes where the domain
//! is wrong when Z3 finds them.

use super::lane::{unsupported, Env, Flow, Lane, Val, R};
use super::run::Run;
use super::summary::{trip_count, Carried, Case, LoopCtx, Part, Partial, Picked, Reach};
use super::sym::{Cond, Poly, Rel};
use crate::decide::{self, Verdict};
use crate::exec::domain::Binary;
use crate::exec::walk;
use crate::term::{Node, TermId, Terms};
use crate::triton_ir::ast::{Op, Region};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

impl Run<'_, '_, '_> {
    /// The iteration variables and conditions a store inside loops carries.
    pub(super) fn loop_guard(&self) -> (Vec<String>, Vec<Cond>) {
        let Some(first) = self.loops.first() else {
            return (Vec::new(), Vec::new());
        };
        let mut guard: Vec<Cond> = self.loops.iter().flat_map(|l| l.valid.clone()).collect();
        guard.extend(self.path.cond[first.cond_from..].iter().cloned());
        (self.loops.iter().map(|l| l.var.clone()).collect(), guard)
    }

    /// Runs `body` once per case of its masks and branches at the iteration `valid`
    /// describes; the outer path's choices and knowledge are restored afterwards.
    fn body_cases(
        &mut self,
        op: &Op,
        body: &Region,
        args: &[Rc<Val>],
        var: &str,
        valid: &[Cond],
        env: &mut Env,
    ) -> R<Vec<Case>> {
        let outer_trail = std::mem::take(&mut self.trail);
        let outer_pos = self.pos;
        let outer_memo = self.memo.clone();
        let from = self.path.cond.len();
        self.solver.push();
        for c in valid {
            self.solver.assert(&self.smt.cond(c));
        }
        self.loops.push(LoopCtx {
            var: var.to_string(),
            valid: valid.to_vec(),
            cond_from: from,
        });
        let mut trail: Vec<bool> = Vec::new();
        let mut cases = Vec::new();
        let result = loop {
            self.trail = std::mem::take(&mut trail);
            self.pos = 0;
            self.memo = outer_memo.clone();
            self.solver.push();
            let r = walk::region(self, body, args.to_vec(), env, op.line, &op.loc);
            self.solver.pop(1);
            let cond = self.path.cond.split_off(from);
            trail = std::mem::take(&mut self.trail);
            match r {
                Ok(Flow::Yield(outs)) => cases.push(Case { cond, outs }),
                Ok(Flow::Return(_)) => break unsupported("return inside scf.for"),
                Err(e) => break Err(e),
            }
            if cases.len() > self.setup.max_paths {
                break unsupported(format!(
                    "more than {} mask/branch cases in one loop body",
                    self.setup.max_paths
                ));
            }
            if self
                .setup
                .work
                .step(1)
                .and(self.setup.work.z3(&self.solver))
                .is_err()
            {
                break unsupported(self.setup.work.reason("inside a loop body"));
            }
            while trail.last() == Some(&false) {
                trail.pop();
            }
            match trail.last_mut() {
                Some(last) => *last = false,
                None => break Ok(()),
            }
        };
        self.loops.pop();
        self.solver.pop(1);
        self.trail = outer_trail;
        self.pos = outer_pos;
        self.memo = outer_memo;
        result.map(|()| cases)
    }

    /// `scf.for` from `lo` to `hi` (not fixed by the path) by `step`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn loop_over_sizes(
        &mut self,
        op: &Op,
        body: &Region,
        lo: Poly,
        hi: Poly,
        step: i128,
        init: Vec<Rc<Val>>,
        env: &mut Env,
    ) -> R<Vec<Rc<Val>>> {
        let n = self.loop_count;
        self.loop_count += 1;
        let var = format!("u{n}");
        let u = Poly::sym(&var);
        let t = lo.add(&u.scale(step));
        let valid = vec![
            Cond::cmp(Rel::Le, &Poly::default(), &u),
            Cond::cmp(Rel::Lt, &t, &hi),
        ];
        let iv = Rc::new(Val::scalar(Lane::Int(t.clone())));

        // 1. Probe: every carried integer as a symbol, to find how much a trip moves it.
        let mut probe = vec![iv.clone()];
        let mut syms: Vec<Vec<Option<Poly>>> = Vec::new();
        for (k, v) in init.iter().enumerate() {
            let mut lanes = Vec::with_capacity(v.lanes.len());
            let mut ks = Vec::with_capacity(v.lanes.len());
            for (j, l) in v.lanes.iter().enumerate() {
                let c = Poly::sym(&format!("c{n}.{k}.{j}"));
                lanes.push(match l {
                    Lane::Int(_) => {
                        ks.push(Some(c.clone()));
                        Lane::Int(c)
                    }
                    Lane::Ptr { tensor, .. } => {
                        ks.push(Some(c.clone()));
                        Lane::Ptr {
                            tensor: *tensor,
                            off: c,
                        }
                    }
                    Lane::Float(_) => {
                        ks.push(None);
                        Lane::Float(
                            self.domain
                                .terms
                                .carried_param(&format!("probe{n}.{k}.{j}")),
                        )
                    }
                    _ => return unsupported("a loop carrying a boolean or undefined lane"),
                });
            }
            syms.push(ks);
            probe.push(Rc::new(Val {
                shape: v.shape.clone(),
                lanes,
            }));
        }
        let was_probing = self.probing;
        self.probing = true;
        let cases = self.body_cases(op, body, &probe, &var, &valid, env);
        self.probing = was_probing;
        let cases = cases?;
        // A stall the lazy twin met here, seen in the probe's cases (super::stall).
        if self.stalls_as_lazy_twin(op, body, &probe, &cases) {
            return unsupported(NOT_A_RUNNING_OP);
        }
        let mut delta: Vec<Vec<Option<Poly>>> = syms.iter().map(|k| vec![None; k.len()]).collect();
        let mut names: Vec<Arc<str>> = Vec::new();
        for ks in &syms {
            for c in ks.iter().flatten() {
                c.symbols(&mut names);
            }
        }
        names.push(Arc::from(var.as_str()));
        // Integers the data picks in some case (a running argmax's index): carried like
        // floats, as accumulator atoms, and summarised by super::argext.
        let mut picked: Vec<Vec<bool>> = syms.iter().map(|k| vec![false; k.len()]).collect();
        for case in &cases {
            for (k, out) in case.outs.iter().enumerate() {
                for (j, l) in out.lanes.iter().enumerate() {
                    let int = matches!(init[k].lanes.get(j), Some(Lane::Int(_)));
                    if int && matches!(l, Lane::DataInt(..)) {
                        picked[k][j] = true;
                    }
                }
            }
        }
        for case in &cases {
            for (k, out) in case.outs.iter().enumerate() {
                for (j, l) in out.lanes.iter().enumerate() {
                    let Some(c) = syms.get(k).and_then(|ks| ks.get(j)).cloned().flatten() else {
                        continue;
                    };
                    if picked[k][j] {
                        continue;
                    }
                    let after = match l {
                        Lane::Int(p) | Lane::Ptr { off: p, .. } => p,
                        _ => return unsupported("a carried integer becomes a non-integer"),
                    };
                    let d = after.sub(&c);
                    let mut seen = Vec::new();
                    d.symbols(&mut seen);
                    if seen.iter().any(|s| names.contains(s)) {
                        return unsupported(
                            "a carried integer that does not move by the same amount every trip",
                        );
                    }
                    match &delta[k][j] {
                        Some(prev) if *prev != d => {
                            return unsupported("a carried integer whose step depends on the case")
                        }
                        _ => delta[k][j] = Some(d),
                    }
                }
            }
        }

        // 2. The real run: integers at iteration u, floats as accumulator atoms.
        let stores_from = self.path.stores.len();
        let mut args = vec![iv];
        let mut accs: Vec<Vec<Option<TermId>>> = Vec::new();
        let mut picks: Vec<Picked> = Vec::new();
        for (k, v) in init.iter().enumerate() {
            let mut lanes = Vec::with_capacity(v.lanes.len());
            let mut ks = Vec::new();
            for (j, l) in v.lanes.iter().enumerate() {
                let d = delta[k][j].clone().unwrap_or_default();
                lanes.push(match l {
                    Lane::Int(_) if picked[k][j] => {
                        let Some((init, lo)) = self.data_int(l) else {
                            return unsupported("a data-picked loop integer with no value");
                        };
                        let acc = self.domain.terms.carried_param(&format!("acc{n}.{k}.{j}"));
                        ks.push(None);
                        picks.push(Picked {
                            lane: (k, j),
                            acc,
                            init,
                            lo,
                        });
                        Lane::DataInt(acc, lo)
                    }
                    Lane::Int(p) => {
                        ks.push(None);
                        Lane::Int(p.add(&u.mul(&d)))
                    }
                    Lane::Ptr { tensor, off } => {
                        ks.push(None);
                        Lane::Ptr {
                            tensor: *tensor,
                            off: off.add(&u.mul(&d)),
                        }
                    }
                    _ => {
                        let a = self.domain.terms.carried_param(&format!("acc{n}.{k}.{j}"));
                        ks.push(Some(a));
                        Lane::Float(a)
                    }
                });
            }
            accs.push(ks);
            args.push(Rc::new(Val {
                shape: v.shape.clone(),
                lanes,
            }));
        }
        let cases = self.body_cases(op, body, &args, &var, &valid, env)?;

        // 3. After the loop: integers moved by the trip count, floats summarised.
        let trips = trip_count(&lo, &hi, step);
        // Running sums, maxes and mins first; a sum rescaled by a running max (online
        // softmax) needs that max's final value.
        let mut finals: HashMap<(usize, usize), TermId> = HashMap::new();
        let mut rescaled: Vec<(usize, usize)> = Vec::new();
        let all_accs: rustc_hash::FxHashSet<TermId> =
            accs.iter().flatten().flatten().copied().collect();
        // Which terms read a carried float, kept for every lane of the loop (they share
        // their rows' scores and maxes).
        let mut reads_acc = Reach::any(&all_accs);
        for (k, v) in init.iter().enumerate() {
            for (j, l) in v.lanes.iter().enumerate() {
                if let (Lane::Float(init), Some(acc)) = (l, accs[k][j]) {
                    match self.summarise(
                        n,
                        (k, j),
                        *init,
                        acc,
                        &mut reads_acc,
                        &var,
                        &valid,
                        &cases,
                    )? {
                        Some(t) => {
                            finals.insert((k, j), t);
                        }
                        None => rescaled.push((k, j)),
                    }
                }
            }
        }
        // Welford's mean and M2 (src/verify/welford.rs) against a counter lane.
        let carried = |(k, j): (usize, usize)| -> Option<Carried> {
            match (&init[k].lanes[j], accs[k][j]) {
                (Lane::Float(i), Some(acc)) => Some(Carried {
                    lane: (k, j),
                    acc,
                    init: *i,
                }),
                _ => None,
            }
        };
        let counters: Vec<Carried> = finals
            .keys()
            .filter_map(|&key| carried(key))
            .filter(|c| self.counts_trips(c, &cases))
            .collect();
        let open: Vec<Carried> = rescaled.iter().filter_map(|&key| carried(key)).collect();
        // (Its closed forms hold from one trip on, where the count is the raw quotient.)
        let runs = hi
            .sub(&lo)
            .add(&Poly::constant(step - 1))
            .floor_div(&Poly::constant(step));
        let welford = self.summarise_welford(n, &open, &counters, &var, &valid, &cases, &runs)?;
        rescaled.retain(|key| !welford.contains_key(key));
        finals.extend(welford);
        // Running argmax/argmin pairs (src/verify/argext.rs): the index lanes, and their
        // running extremum where no template above took it.
        let mut picked_finals: HashMap<(usize, usize), (TermId, i128)> = HashMap::new();
        if !picks.is_empty() {
            let floats: Vec<Carried> = init
                .iter()
                .enumerate()
                .flat_map(|(k, v)| (0..v.lanes.len()).map(move |j| (k, j)))
                .filter_map(carried)
                .collect();
            let mut all = all_accs.clone();
            all.extend(picks.iter().map(|p| p.acc));
            let (idx, ext) =
                self.summarise_argext(n, &picks, &floats, &finals, &all, &var, &valid, &cases)?;
            for (key, t) in ext {
                rescaled.retain(|r| *r != key);
                finals.insert(key, t);
            }
            picked_finals = idx;
        }
        let mut rescale_memo = RescaleMemo::default();
        for (k, j) in rescaled {
            let Lane::Float(init) = init[k].lanes[j] else {
                unreachable!("only float lanes are summarised")
            };
            let acc = accs[k][j].expect("float lanes have accumulators");
            // A linear recurrence's state (`h = a·h + x`): super::scans.
            if let Some(t) = self.recurrence_final(n, (k, j), acc, &mut reads_acc, &cases) {
                finals.insert((k, j), t);
                continue;
            }
            let t = self.summarise_rescaled(
                n,
                (k, j),
                init,
                acc,
                &accs,
                &finals,
                &var,
                &valid,
                &cases,
                &mut rescale_memo,
            )?;
            finals.insert((k, j), t);
        }
        // Stores that read a running total mid-loop (a blocked cumsum) or a recurrence's
        // state: super::scans.
        self.carried_prefixes(&super::scans::CarryLoop {
            init: &init,
            accs: &accs,
            cases: &cases,
            stores_from,
            var: &var,
            valid: &valid,
            lo: &lo,
            hi: &hi,
            step,
        })?;
        let mut out = Vec::with_capacity(init.len());
        for (k, v) in init.iter().enumerate() {
            let mut lanes = Vec::with_capacity(v.lanes.len());
            for (j, l) in v.lanes.iter().enumerate() {
                let d = delta[k][j].clone().unwrap_or_default();
                lanes.push(match l {
                    Lane::Int(_) if picked[k][j] => {
                        let (t, lo) = picked_finals[&(k, j)];
                        Lane::DataInt(t, lo)
                    }
                    Lane::Int(p) => Lane::Int(p.add(&trips.mul(&d))),
                    Lane::Ptr { tensor, off } => Lane::Ptr {
                        tensor: *tensor,
                        off: off.add(&trips.mul(&d)),
                    },
                    Lane::Float(_) => Lane::Float(finals[&(k, j)]),
                    _ => return unsupported("a loop-carried lane of an unexpected kind"),
                });
            }
            out.push(Rc::new(Val {
                shape: v.shape.clone(),
                lanes,
            }));
        }
        Ok(out)
    }

    /// The value of float lane `j` of carried value `k` after the loop: `init ⊕ P` with
    /// `P` a partial over the body's cases; `None` when the lane is no running op.
    #[allow(clippy::too_many_arguments)]
    fn summarise(
        &mut self,
        n: usize,
        (k, j): (usize, usize),
        init: TermId,
        acc: TermId,
        reads_acc: &mut Reach,
        var: &str,
        valid: &[Cond],
        cases: &[Case],
    ) -> R<Option<TermId>> {
        let mut combine: Option<Binary> = None;
        let mut parts = Vec::new();
        for case in cases {
            let Some(Lane::Float(after)) = case.outs.get(k).and_then(|v| v.lanes.get(j)) else {
                return unsupported("a carried float becomes a non-float");
            };
            if *after == acc {
                continue;
            }
            let (op, kids) = match self.domain.terms.node(*after) {
                Node::Add(k) => (Binary::Add, k.to_vec()),
                Node::Max(k) => (Binary::Max, k.to_vec()),
                Node::Min(k) => (Binary::Min, k.to_vec()),
                _ => return Ok(None),
            };
            if !kids.contains(&acc) {
                return Ok(None);
            }
            if combine.is_some_and(|c| c != op) {
                return unsupported("a carried float combined by different operations");
            }
            combine = Some(op);
            let summands: Vec<TermId> = kids.into_iter().filter(|&c| c != acc).collect();
            // A summand must be a function of the iteration alone: one that reads any
            // carried float (its own, or Welford's mean inside M2's update) is no
            // running op.
            if summands
                .iter()
                .any(|&s| reads_acc.contains(self.domain.terms, s))
            {
                return Ok(None);
            }
            let mut cond = valid.to_vec();
            cond.extend(case.cond.iter().cloned());
            parts.push(Part {
                vars: vec![var.to_string()],
                cond,
                summands,
            });
        }
        let Some(combine) = combine else {
            return Ok(Some(init));
        };
        let p = self.domain.terms.carried_param(&format!("loop{n}.{k}.{j}"));
        self.partials.insert(p, Partial { combine, parts });
        let t = &mut *self.domain.terms;
        Ok(Some(match combine {
            Binary::Add => t.add(init, p),
            Binary::Max => t.max(init, p),
            _ => t.min(init, p),
        }))
    }

    /// Whether lane `c` starts at 0 and gains exactly 1 in every case: at iteration `u`
    /// it holds `u`.
    fn counts_trips(&mut self, c: &Carried, cases: &[Case]) -> bool {
        let t = &mut *self.domain.terms;
        if c.init != t.zero() {
            return false;
        }
        let one = t.one();
        cases.iter().all(
            |case| match case.outs.get(c.lane.0).and_then(|v| v.lanes.get(c.lane.1)) {
                Some(Lane::Float(after)) => {
                    let step = t.sub(*after, c.acc);
                    step == one
                }
                _ => false,
            },
        )
    }

    /// A float lane updated as `l' = l·exp(m - m') + e(m')` (or with `exp2`) where `m` is a running max
    /// of the same loop and `m'` its new value (online softmax). Each summand `s` of `e`
    /// is `c·exp(-m')` with `c` free of the running max (the match below proves it: the
    /// reduction's summand does not contain the max's atom), so by induction after the
    /// loop `l = Σ s·exp(m' - M)` over every iteration, `M` the max's final value. That
    /// sum is a partial like any other, matched to the formula's reduction.
    #[allow(clippy::too_many_arguments)]
    fn summarise_rescaled(
        &mut self,
        n: usize,
        (k, j): (usize, usize),
        init: TermId,
        acc: TermId,
        accs: &[Vec<Option<TermId>>],
        finals: &HashMap<(usize, usize), TermId>,
        var: &str,
        valid: &[Cond],
        cases: &[Case],
        memo: &mut RescaleMemo,
    ) -> R<TermId> {
        if init != self.domain.terms.zero() {
            return unsupported(NOT_A_RUNNING_OP);
        }
        // Candidate running maxes: the lanes summarised as a max.
        let maxes: Vec<(usize, usize)> = finals
            .keys()
            .copied()
            .filter(|key| {
                let a = accs[key.0][key.1];
                cases.iter().any(|c| match c.outs.get(key.0).and_then(|v| v.lanes.get(key.1)) {
                    Some(Lane::Float(t)) => {
                        matches!(self.domain.terms.node(*t), Node::Max(kids) if a.is_some_and(|a| kids.contains(&a)))
                    }
                    _ => false,
                })
            })
            .collect();
        let bases = [crate::term::Func::Exp, crate::term::Func::Exp2];
        // Each case's result split as `acc · g + (summands free of acc)`; the same for
        // every candidate max, so split once (the walks are over whole dot products).
        let mut splits: Vec<(TermId, Vec<TermId>, &Case)> = Vec::new();
        let mut reach_acc = Reach::new(acc);
        for case in cases {
            let Some(Lane::Float(after)) = case.outs.get(k).and_then(|v| v.lanes.get(j)) else {
                return unsupported(NOT_A_RUNNING_OP);
            };
            let Node::Add(kids) = self.domain.terms.node(*after).clone() else {
                return unsupported(NOT_A_RUNNING_OP);
            };
            let (with, without): (Vec<TermId>, Vec<TermId>) = kids
                .iter()
                .partition(|&&c| reach_acc.contains(self.domain.terms, c));
            let [scaled] = with[..] else {
                return unsupported(NOT_A_RUNNING_OP);
            };
            // scaled = acc · g with g = exp(m - m').
            let Node::Mul(factors) = self.domain.terms.node(scaled).clone() else {
                return unsupported(NOT_A_RUNNING_OP);
            };
            if !factors.contains(&acc) {
                return unsupported(NOT_A_RUNNING_OP);
            }
            let rest: Vec<TermId> = factors.iter().copied().filter(|&f| f != acc).collect();
            let g = self.domain.terms.product(&rest);
            if reach_acc.contains(self.domain.terms, g) {
                return unsupported(NOT_A_RUNNING_OP);
            }
            splits.push((g, without, case));
        }
        // The rescale is `exp(m - m')`, or `exp2(m - m')` in base 2 (scores scaled by
        // log2(e) first, as flash attention does), for a running max `m` whose
        // accumulator the factor reads.
        let maxes: Vec<(usize, usize)> = maxes
            .into_iter()
            .filter(|key| {
                let m_acc = accs[key.0][key.1].expect("a max lane has an accumulator");
                let reach = memo.reach.entry(m_acc).or_insert_with(|| Reach::new(m_acc));
                splits
                    .iter()
                    .any(|(g, _, _)| reach.contains(self.domain.terms, *g))
            })
            .collect();
        'candidate: for ((mk, mj), base) in maxes
            .iter()
            .flat_map(|m| bases.iter().map(move |b| (*m, *b)))
        {
            self.within_budget()?;
            let m_acc = accs[mk][mj].expect("a max lane has an accumulator");
            let m_final = finals[&(mk, mj)];
            let mut parts = Vec::new();
            let mut checks = Vec::new();
            for (g, without, case) in &splits {
                let Some(Lane::Float(m_new)) = case.outs.get(mk).and_then(|v| v.lanes.get(mj))
                else {
                    continue 'candidate;
                };
                let m_new = *m_new;
                let t = &mut *self.domain.terms;
                let diff = t.sub(m_acc, m_new);
                let want = t.call(base, diff);
                checks.push((want, *g));
                let shift = t.sub(m_new, m_final);
                let back = t.call(base, shift);
                let summands: Vec<TermId> = without
                    .iter()
                    .map(|&s| {
                        times_power(t, s, base, (m_new, m_final)).unwrap_or_else(|| t.mul(s, back))
                    })
                    .collect();
                let mut cond = valid.to_vec();
                cond.extend(case.cond.iter().cloned());
                parts.push(Part {
                    vars: vec![var.to_string()],
                    cond,
                    summands,
                });
            }
            let terms = &mut *self.domain.terms;
            let equal = *memo.all_equal.entry(checks).or_insert_with_key(|checks| {
                let verdicts = decide::decide_all(terms, checks, &decide::Options::default());
                verdicts.iter().all(|v| matches!(v, Verdict::Equal { .. }))
            });
            if !equal {
                continue;
            }
            let p = self.domain.terms.carried_param(&format!("loop{n}.{k}.{j}"));
            self.partials.insert(
                p,
                Partial {
                    combine: Binary::Add,
                    parts,
                },
            );
            return Ok(p);
        }
        unsupported(NOT_A_RUNNING_OP)
    }
}

/// What [`Run::summarise_rescaled`] learns once per loop rather than once per lane: the
/// lanes of one row share their running max and rescale factor, so the same terms are
/// walked and the same checks decided for each of them.
#[derive(Default)]
struct RescaleMemo {
    /// Per running max's accumulator, which terms contain it.
    reach: HashMap<TermId, Reach>,
    /// Per list of rescale checks (`want`, `g`), whether `decide` found every pair equal.
    all_equal: HashMap<Vec<(TermId, TermId)>, bool>,
}

pub(super) const NOT_A_RUNNING_OP: &str =
    "a loop-carried float that is not a running sum, max or min (no invariant template for it yet)";

/// `s · base(m' - M)` for a summand `s` with one factor `base(a)` whose argument has
/// the term `-m'`: that factor becomes `base(a + m' - M)` with `m'` cancelled, so the
/// summand no longer carries every mask lane the running max saw. This reads `m'` as a
/// real, as the rescale summary itself does (`exp(x - m') · exp(m' - M) = exp(x - M)`;
/// the term store keeps `0 · m'` because an IEEE `m'` could be infinite). `None` when
/// `s` has no such factor, or more than one.
fn times_power(
    terms: &mut Terms,
    s: TermId,
    base: crate::term::Func,
    (m_new, m_final): (TermId, TermId),
) -> Option<TermId> {
    let is_power = |t: &Terms, x: TermId| matches!(t.node(x), Node::Call(f, _) if *f == base);
    let factors: Vec<TermId> = match terms.node(s) {
        Node::Mul(k) => k.to_vec(),
        _ => vec![s],
    };
    let [at] = factors
        .iter()
        .enumerate()
        .filter(|(_, &f)| is_power(terms, f))
        .map(|(i, _)| i)
        .collect::<Vec<_>>()[..]
    else {
        return None;
    };
    let Node::Call(_, a) = terms.node(factors[at]).clone() else {
        return None;
    };
    let minus_m = terms.neg(m_new);
    let Node::Add(kids) = terms.node(a).clone() else {
        return None;
    };
    let pos = kids.iter().position(|&k| k == minus_m)?;
    let mut rest: Vec<TermId> = kids.to_vec();
    rest.remove(pos);
    rest.push(terms.neg(m_final));
    let merged = terms.sum(&rest);
    let mut out = factors;
    out[at] = terms.call(base, merged);
    Some(terms.product(&out))
}
