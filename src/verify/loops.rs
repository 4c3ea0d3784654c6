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

use super::argext::Picked;
use super::at_index::{reduction_atom, AtIndex, Template};
use super::paths::{self as paths, unsupported, Env, Flow, Lane, Run, Unsupported, Val, R};
use super::sym::{Cond, Poly, Rel};
use super::welford::Carried;
use crate::decide::{self, Verdict};
use crate::exec::domain::Binary;
use crate::term::{Node, TermId, Terms};
use crate::triton_ir::ast::Region;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;
use z3::SatResult;

/// A loop over sizes being run: its iteration variable and the conditions that make
/// `u` an iteration; stores inside carry them.
#[derive(Clone, Debug)]
pub struct LoopCtx {
    pub var: String,
    pub valid: Vec<Cond>,
    /// Where this loop's body cases start in the path's conditions.
    pub cond_from: usize,
}

/// `⨁` over the iterations of one or more loops: the value of a loop-carried float
/// lane without its initial value.
#[derive(Clone, Debug)]
pub struct Partial {
    pub combine: Binary,
    pub parts: Vec<Part>,
}

/// The summands one body case contributes at iteration `vars`, under `cond`.
#[derive(Clone, Debug)]
pub struct Part {
    pub vars: Vec<String>,
    pub cond: Vec<Cond>,
    pub summands: Vec<TermId>,
}

/// One case of a body run.
pub(super) struct Case {
    pub cond: Vec<Cond>,
    pub outs: Vec<Rc<Val>>,
}

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
            let r = self.run_region(body, args.to_vec(), env);
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
    pub(super) fn loop_over_sizes(
        &mut self,
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
        let cases = self.body_cases(body, &probe, &var, &valid, env);
        self.probing = was_probing;
        let cases = cases?;
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
        let cases = self.body_cases(body, &args, &var, &valid, env)?;

        // 3. After the loop: integers moved by the trip count, floats summarised.
        let trips = trip_count(&lo, &hi, step);
        // Running sums, maxes and mins first; a sum rescaled by a running max (online
        // softmax) needs that max's final value.
        let mut finals: HashMap<(usize, usize), TermId> = HashMap::new();
        let mut rescaled: Vec<(usize, usize)> = Vec::new();
        let all_accs: rustc_hash::FxHashSet<TermId> =
            accs.iter().flatten().flatten().copied().collect();
        for (k, v) in init.iter().enumerate() {
            for (j, l) in v.lanes.iter().enumerate() {
                if let (Lane::Float(init), Some(acc)) = (l, accs[k][j]) {
                    match self.summarise(n, (k, j), *init, acc, &all_accs, &var, &valid, &cases)? {
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
        for (k, j) in rescaled {
            let Lane::Float(init) = init[k].lanes[j] else {
                unreachable!("only float lanes are summarised")
            };
            let acc = accs[k][j].expect("float lanes have accumulators");
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
            )?;
            finals.insert((k, j), t);
        }
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
        all_accs: &rustc_hash::FxHashSet<TermId>,
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
                .any(|&s| contains_any(self.domain.terms, s, all_accs))
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
                let mut reach = Reach::new(m_acc);
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
            let verdicts =
                decide::decide_all(self.domain.terms, &checks, &decide::Options::default());
            if !verdicts.iter().all(|v| matches!(v, Verdict::Equal { .. })) {
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

    fn resolve_in(&mut self, t: TermId, memo: &mut HashMap<TermId, TermId>) -> R<TermId> {
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
    fn within_budget(&self) -> R<()> {
        if self.setup.work.step(1).is_err() {
            return unsupported(self.setup.work.reason("while matching loop results"));
        }
        Ok(())
    }

    /// [`Self::resolve_group`] for a group that holds guarded lanes; a group of lanes
    /// only that failed once is not tried again (attention's scores put the same lanes
    /// in front of every stored element).
    fn resolve_guess(
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
    fn resolve_group(
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

    /// Whether each pair (formula summand, kernel summand) is equal. A factor both
    /// sides share (`v[j, d]` in attention's `p[r, j] · v[j, d]`) is divided out
    /// first, and what remains is decided once per run (`decided`): the rows' `p` is
    /// proved once, not once per stored column. Dividing out is sound for equality
    /// (`a = b` gives `a·f = b·f`); a pair not proved that way is decided whole.
    fn decide_summands(&mut self, pairs: &[(TermId, TermId)]) -> Vec<bool> {
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
        let mut equal: Vec<bool> = stripped.iter().map(|p| self.decided[p]).collect();
        let whole: Vec<usize> = (0..pairs.len())
            .filter(|&k| !equal[k] && stripped[k] != pairs[k])
            .collect();
        if !whole.is_empty() {
            let again: Vec<(TermId, TermId)> = whole.iter().map(|&k| pairs[k]).collect();
            if std::env::var_os("LIFT_DEBUG_VERIFY").is_some() {
                eprintln!("  decide_summands: {} decided whole", again.len());
            }
            let verdicts =
                decide::decide_all(self.domain.terms, &again, &decide::Options::default());
            for (&k, v) in whole.iter().zip(verdicts) {
                equal[k] = matches!(v, Verdict::Equal { .. });
            }
        }
        equal
    }

    /// The atom of `tmpl` when `items` are exactly its summands; `None` when they do
    /// not look like them; an error (with sizes where it fails, when Z3 finds them)
    /// when they look like them but the domain is not the reduction's.
    fn match_template(
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
        let (shape_atoms, extent) = {
            let solver = &self.solver;
            let smt = self.smt;
            let mut holds = |c: &Cond| smt.holds(solver, c);
            let mut at = AtIndex {
                terms: self.domain.terms,
                shapes: self.setup.input_shapes,
                pinned: &pinned,
                holds: &mut holds,
                atoms: &mut atoms,
                memo: None,
            };
            let Ok(ph) = at.summand(&tmpl.node, &holes, &iota) else {
                return Ok(None);
            };
            let Ok(extent) = at.reduced_extent(&tmpl.node) else {
                return Ok(None);
            };
            (input_atoms_of(self.domain.terms, &atoms, ph), extent)
        };
        // Bind the holes from each summand's input atoms. A summand that binds no index
        // of this reduction (or another outer index) is an extra, settled below.
        let mut outer: Option<Vec<Poly>> = None;
        let mut index: Vec<Option<Poly>> = Vec::with_capacity(items.len());
        for (part, s) in items {
            let mine = input_atoms_of(self.domain.terms, &self.atoms, *s);
            let mut bound: HashMap<String, Poly> = HashMap::new();
            for (tensor, fidx) in &shape_atoms {
                let Some((_, kidx)) = mine
                    .iter()
                    .find(|(t, k)| t == tensor && k.len() == fidx.len())
                else {
                    continue;
                };
                for (f, k) in fidx.iter().zip(kidx) {
                    let mut names = Vec::new();
                    f.symbols(&mut names);
                    if let [name] = &names[..] {
                        if *f == Poly::sym(name) && name.starts_with('#') {
                            bound.entry(name.to_string()).or_insert_with(|| k.clone());
                        }
                    }
                }
            }
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
        let verdicts = self.decide_summands(&pairs);
        let mut scale = None;
        let mut equal: Vec<bool> = verdicts;
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
                let verdicts = decide::decide_all(t, &scaled, &decide::Options::default());
                if verdicts.iter().all(|v| matches!(v, Verdict::Equal { .. })) {
                    scale = Some(ct);
                    equal = vec![true; pairs.len()];
                }
            }
        }
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
                    paths::small_witness(&self.solver, self.smt, self.setup.sizes),
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
    fn common_factor(&mut self, pairs: &[(TermId, TermId)], op: Binary) -> Option<TermId> {
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
    fn common_scale(
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

const NOT_A_RUNNING_OP: &str =
    "a loop-carried float that is not a running sum, max or min (no invariant template for it yet)";

/// How many times `for t in range(lo, hi, step)` runs (never negative).
pub(super) fn trip_count(lo: &Poly, hi: &Poly, step: i128) -> Poly {
    hi.sub(lo)
        .add(&Poly::constant(step - 1))
        .floor_div(&Poly::constant(step))
        .max_with(&Poly::default())
}

/// `i` as `a·v + b` for the one variable `v` of `vars` it mentions, `a` a nonzero
/// constant and `b` free of `v`.
pub(super) fn affine_in_one(i: &Poly, vars: &[String]) -> Option<(String, i128, Poly)> {
    let [v] = vars else { return None };
    let at = |x: i128| {
        let mut m = BTreeMap::new();
        m.insert(Arc::from(v.as_str()), x);
        i.subst(&m)
    };
    let b = at(0);
    let a = at(1).sub(&b).as_const()?;
    (a != 0 && i.sub(&b) == Poly::sym(v).scale(a)).then_some((v.clone(), a, b))
}

/// Whether `needle` occurs in `t`.
/// `(a, b)` with the factors both products share divided out (each shared factor as
/// often as both have it); the pair itself when they share none.
fn strip_common_factors(terms: &mut Terms, a: TermId, b: TermId) -> (TermId, TermId) {
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

pub(super) fn contains(terms: &Terms, t: TermId, needle: TermId) -> bool {
    Reach::new(needle).contains(terms, t)
}

/// Which terms contain one `needle`, remembered across queries: the summands of a
/// lane's update share their scores and running max, walked once rather than once per
/// summand.
pub(super) struct Reach {
    needle: TermId,
    /// Nodes known to contain the needle (`true`) or not (`false`).
    known: rustc_hash::FxHashMap<TermId, bool>,
}

impl Reach {
    pub(super) fn new(needle: TermId) -> Self {
        Reach {
            needle,
            known: rustc_hash::FxHashMap::default(),
        }
    }

    pub(super) fn contains(&mut self, terms: &Terms, t: TermId) -> bool {
        // (node, children pushed)
        let mut stack = vec![(t, false)];
        while let Some((x, expanded)) = stack.pop() {
            if self.known.contains_key(&x) {
                continue;
            }
            if x == self.needle {
                self.known.insert(x, true);
                continue;
            }
            if expanded {
                let mut hit = false;
                terms.for_each_child(x, |c| hit |= self.known[&c]);
                self.known.insert(x, hit);
                continue;
            }
            stack.push((x, true));
            terms.for_each_child(x, |c| {
                if !self.known.contains_key(&c) {
                    stack.push((c, false));
                }
            });
        }
        self.known[&t]
    }
}

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

/// Whether any of `needles` occurs in `t` (one walk, shared subterms visited once).
pub(super) fn contains_any(
    terms: &Terms,
    t: TermId,
    needles: &rustc_hash::FxHashSet<TermId>,
) -> bool {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![t];
    while let Some(x) = stack.pop() {
        if needles.contains(&x) {
            return true;
        }
        if seen.insert(x) {
            terms.for_each_child(x, |c| stack.push(c));
        }
    }
    false
}

/// The input atoms in `t` (in a fixed order), with their tensors and indices.
pub(super) fn input_atoms_of(
    terms: &Terms,
    atoms: &super::at_index::AtomIndex,
    t: TermId,
) -> Vec<(String, Vec<Poly>)> {
    let mut out = Vec::new();
    let mut stack = vec![t];
    let mut seen = std::collections::HashSet::new();
    while let Some(x) = stack.pop() {
        if !seen.insert(x) {
            continue;
        }
        if let Some(a) = atoms.get(&x) {
            out.push(a.clone());
        }
        let mut kids = terms.children(x);
        kids.reverse();
        stack.extend(kids);
    }
    out
}
