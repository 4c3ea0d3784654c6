//! The case split over conditions: literals of comparisons and their keys, evaluating a
//! condition in the current case, the case's equations and substitutions, and whether
//! the case is infeasible.
//!
//! Invariant: a case is called infeasible only when no real point satisfies its
//! literals (dropping a literal never makes a feasible case infeasible).

use super::state::*;
use crate::decide::poly::{rat, AtomId, Mono, Poly, Stop};
use crate::term::{CmpOp, Node, TermId};
use num_traits::{Signed, Zero};

impl Canon<'_> {
    /// The real-valued terms whose forms a condition needs.
    pub(super) fn cond_leaves(&self, c: TermId, out: &mut Vec<TermId>) {
        let mut stack = vec![c];
        while let Some(t) = stack.pop() {
            match self.terms.node(t) {
                Node::Cmp(_, p, q) => {
                    out.push(*p);
                    out.push(*q);
                }
                Node::Not(x) => stack.push(*x),
                Node::And(ops) | Node::Or(ops) => stack.extend_from_slice(ops),
                Node::Const(_) | Node::Inf { .. } => {}
                _ => out.push(t),
            }
        }
    }

    pub(super) fn cond_literal(&mut self, key: CondKey, polarity: bool) -> Result<bool, Halt> {
        let next = self.conds.len() as CondId;
        let id = *self.conds.entry(key).or_insert(next);
        if id == next {
            self.cond_keys.push(key);
        }
        match self.assignment.get(&id) {
            Some(&v) => Ok(v == polarity),
            None => Err(Halt::Split(id)),
        }
    }

    pub(super) fn pos_key(&mut self, d: &Rf) -> CondKey {
        let lc = d.n.lc().cloned().unwrap_or_else(|| rat(1)).abs();
        let n = self.scale(d, &lc.recip());
        CondKey::Pos(self.rf_id(&n))
    }
    pub(super) fn zero_key(&mut self, d: &Rf) -> CondKey {
        let lc = d.n.lc().cloned().unwrap_or_else(|| rat(1));
        let n = Rf::poly(d.n.scale(&lc.recip()));
        CondKey::Zero(self.rf_id(&n))
    }

    pub(super) fn cmp(&mut self, op: CmpOp, p: &Rf, q: &Rf) -> Result<bool, Halt> {
        let d = self.sub(p, q)?;
        if let Some(c) = d.as_const() {
            return Ok(match op {
                CmpOp::Lt => c.is_negative(),
                CmpOp::Le => !c.is_positive(),
                CmpOp::Gt => c.is_positive(),
                CmpOp::Ge => !c.is_negative(),
                CmpOp::Eq => c.is_zero(),
                CmpOp::Ne => !c.is_zero(),
            });
        }
        let nd = self.scale(&d, &rat(-1));
        // A literal the case already decides (e.g. `x > 0` when `x - 6 > 0`).
        if !self.assignment.is_empty() {
            let forced = match op {
                CmpOp::Gt => self.implied_pos(&d),
                CmpOp::Lt => self.implied_pos(&nd),
                CmpOp::Ge => self.implied_pos(&nd).map(|v| !v),
                CmpOp::Le => self.implied_pos(&d).map(|v| !v),
                CmpOp::Eq | CmpOp::Ne => None,
            };
            if let Some(v) = forced {
                return Ok(v);
            }
        }
        match op {
            CmpOp::Gt => {
                let k = self.pos_key(&d);
                self.cond_literal(k, true)
            }
            CmpOp::Lt => {
                let k = self.pos_key(&nd);
                self.cond_literal(k, true)
            }
            CmpOp::Ge => {
                let k = self.pos_key(&nd);
                self.cond_literal(k, false)
            }
            CmpOp::Le => {
                let k = self.pos_key(&d);
                self.cond_literal(k, false)
            }
            CmpOp::Eq => {
                let k = self.zero_key(&d);
                self.cond_literal(k, true)
            }
            CmpOp::Ne => {
                let k = self.zero_key(&d);
                self.cond_literal(k, false)
            }
        }
    }

    /// Truth of a condition under the current assignment (all its leaves converted).
    pub(super) fn eval_cond(&mut self, c: TermId) -> Result<bool, Halt> {
        match self.terms.node(c).clone() {
            Node::Cmp(op, p, q) => {
                let (p, q) = (self.get(p), self.get(q));
                self.cmp(op, &p, &q)
            }
            Node::Not(x) => Ok(!self.eval_cond(x)?),
            Node::And(ops) => {
                let mut r = true;
                for o in ops.iter() {
                    r &= self.eval_cond(*o)?;
                }
                Ok(r)
            }
            Node::Or(ops) => {
                let mut r = false;
                for o in ops.iter() {
                    r |= self.eval_cond(*o)?;
                }
                Ok(r)
            }
            Node::Const(v) => Ok(!v.is_zero()),
            Node::Inf { .. } => Ok(true),
            _ => {
                let v = self.get(c);
                if let Some(k) = v.as_const() {
                    return Ok(!k.is_zero());
                }
                let k = self.zero_key(&v);
                self.cond_literal(k, false)
            }
        }
    }

    // ---- what a case implies ---------------------------------------------------------------

    /// `Some(true)` when the current case implies `d > 0`, `Some(false)` when it
    /// implies `d <= 0`: `d = c·p + k` for a literal `p > 0` (or `p <= 0`) of the case,
    /// a rational `c ≠ 0` and a constant `k` of the right sign.
    /// Whether the current case decides `a >= 0` (`Some(true)`) or `a <= 0`
    /// (`Some(false)`); `None` outside a case or where it leaves the sign open. Looks up
    /// the case's literals only (never creates a condition).
    pub(super) fn sign_in_case(&self, a: &Rf) -> Option<bool> {
        if self.assignment.is_empty() {
            return None;
        }
        if let Some(v) = self.implied_pos(a) {
            // a > 0, or not (a > 0)
            return Some(v);
        }
        let na = Rf {
            n: a.n.scale(&rat(-1)),
            d: a.d.clone(),
        };
        // -a > 0 gives a <= 0; not (-a > 0) gives a >= 0
        self.implied_pos(&na).map(|v| !v)
    }

    pub(super) fn implied_pos(&self, d: &Rf) -> Option<bool> {
        if !d.d.is_one() {
            return None;
        }
        if let Some(c) = d.n.as_const() {
            return Some(c.is_positive());
        }
        for (key, val) in self.case_literals() {
            let CondKey::Pos(r) = key else {
                continue;
            };
            let p = self.rf(r);
            if !p.d.is_one() {
                continue;
            }
            let Some((pm, pc)) = p.n.0.iter().find(|(m, _)| !m.is_one()) else {
                continue;
            };
            let Ok(i) = d.n.0.binary_search_by(|(m, _)| m.cmp(pm)) else {
                continue;
            };
            let c = &d.n.0[i].1 / pc;
            let Some(k) = d.n.add(&p.n.scale(&-c.clone())).as_const() else {
                continue;
            };
            // d = c·p + k
            let implied = match (val, c.is_positive()) {
                // p > 0, c > 0: d > k
                (true, true) => (!k.is_negative()).then_some(true),
                // p > 0, c < 0: d < k
                (true, false) => (!k.is_positive()).then_some(false),
                // p <= 0, c > 0: d <= k
                (false, true) => (!k.is_positive()).then_some(false),
                // p <= 0, c < 0: d >= k
                (false, false) => k.is_positive().then_some(true),
            };
            if implied.is_some() {
                return implied;
            }
        }
        None
    }

    /// The literals of the current case, in condition-id order.
    pub(super) fn case_literals(&self) -> Vec<(CondKey, bool)> {
        let mut ids: Vec<(CondId, bool)> = self.assignment.iter().map(|(&i, &v)| (i, v)).collect();
        ids.sort_unstable();
        ids.into_iter()
            .filter_map(|(i, v)| self.cond_keys.get(i as usize).map(|&k| (k, v)))
            .collect()
    }

    /// The condition id of `Pos(-r)`, when that condition exists.
    pub(super) fn neg_pos_cond(&self, r: RfId) -> Option<CondId> {
        let rf = self.rf(r);
        let neg = Rf {
            n: rf.n.neg(),
            d: rf.d.clone(),
        };
        let nid = *self.rf_ids.get(&neg)?;
        self.conds.get(&CondKey::Pos(nid)).copied()
    }

    /// The condition id of `Zero(numerator of r)`, when that condition exists.
    pub(super) fn zero_cond_of(&self, r: RfId) -> Option<CondId> {
        let rf = self.rf(r);
        let lc = rf.n.lc()?.clone();
        let z = Rf::poly(rf.n.scale(&lc.recip()));
        let zid = *self.rf_ids.get(&z)?;
        self.conds.get(&CondKey::Zero(zid)).copied()
    }

    /// Polynomial equations `p = 0` that hold at every point of the current case:
    /// `Zero(p)` true, and `Pos(d)`, `Pos(-d)` both false (then `d = 0`, so its
    /// numerator is 0).
    pub(super) fn case_equations(&self) -> Vec<Poly> {
        let mut eqs = Vec::new();
        for (key, v) in self.case_literals() {
            match (key, v) {
                (CondKey::Zero(r), true) => eqs.push(self.rf(r).n.clone()),
                (CondKey::Pos(r), false) => {
                    if let Some(c) = self.neg_pos_cond(r) {
                        if self.assignment.get(&c) == Some(&false) {
                            eqs.push(self.rf(r).n.clone());
                        }
                    }
                }
                _ => {}
            }
        }
        eqs
    }

    /// `v = e` from `p = 0` when `p = a·v + rest` with `v` an input or param atom, `a` a
    /// non-zero rational and `v` in no monomial of `rest` (outside nested atoms).
    pub(super) fn solve(&self, p: &Poly) -> Option<(AtomId, Poly)> {
        for (m, a) in &p.0 {
            if m.exp != 0 || m.atoms.len() != 1 || m.atoms[0].1 != 1 {
                continue;
            }
            let v = m.atoms[0].0;
            if !matches!(self.atoms[v as usize], Atom::Leaf(_)) {
                continue;
            }
            let elsewhere =
                p.0.iter()
                    .any(|(m2, _)| m2 != m && m2.atoms.iter().any(|&(x, _)| x == v));
            if elsewhere {
                continue;
            }
            let rest = Poly(p.0.iter().filter(|(m2, _)| m2 != m).cloned().collect());
            return Some((v, rest.scale(&-a.recip())));
        }
        None
    }

    /// `p` with every occurrence of atom `v` replaced by `e`, in the monomials and in
    /// their exponential parts (re-canonicalised); occurrences inside other nested atoms
    /// stay: they are opaque values here.
    /// `None` when `v` has a negative or very large exponent.
    pub(super) fn substitute(
        &mut self,
        p: &Poly,
        v: AtomId,
        e: &Poly,
    ) -> Result<Option<Poly>, Stop> {
        let mut powers: Vec<Poly> = vec![Poly::one()];
        let mut kept = Vec::new();
        let mut out = Poly::zero();
        for (m, c) in &p.0 {
            let k = m
                .atoms
                .iter()
                .find(|&&(x, _)| x == v)
                .map_or(0, |&(_, k)| k);
            // The exponential part, with `v` substituted in its exponent.
            let mut new_exp = None;
            if m.exp != 0 {
                let q = self.alg.exp_poly(m.exp).clone();
                let Some(q2) = self.substitute(&q, v, e)? else {
                    return Ok(None);
                };
                if q2 != q {
                    let r = self.exp(&Rf::poly(q2))?;
                    if !r.d.is_one() {
                        return Ok(None);
                    }
                    new_exp = Some(r.n);
                }
            }
            if k == 0 && new_exp.is_none() {
                kept.push((m.clone(), c.clone()));
                continue;
            }
            if !(0..=64).contains(&k) {
                return Ok(None);
            }
            while powers.len() <= k as usize {
                let next = self.alg.mul(powers.last().expect("non-empty"), e)?;
                powers.push(next);
            }
            let rest = Mono {
                exp: if new_exp.is_some() { 0 } else { m.exp },
                atoms: m.atoms.iter().filter(|&&(x, _)| x != v).copied().collect(),
            };
            let mut term = self
                .alg
                .mul(&Poly::mono(rest, c.clone()), &powers[k as usize])?;
            if let Some(ef) = new_exp {
                term = self.alg.mul(&term, &ef)?;
            }
            out = out.add(&term);
            if out.len() > self.alg.limit {
                return Err(Stop(format!(
                    "expansion exceeds {} monomials in a substitution",
                    self.alg.limit
                )));
            }
        }
        if kept.len() == p.len() {
            return Ok(Some(p.clone()));
        }
        Ok(Some(out.add(&Poly(kept))))
    }

    /// The substitutions `v := e` the case's equations give, each already reduced by
    /// the earlier ones.
    pub(super) fn case_substitutions(&mut self) -> Result<Vec<(AtomId, Poly)>, Stop> {
        let mut subs: Vec<(AtomId, Poly)> = Vec::new();
        for eq in self.case_equations() {
            let Some(eq) = self.apply(&eq, &subs)? else {
                continue;
            };
            if let Some(s) = self.solve(&eq) {
                subs.push(s);
            }
        }
        Ok(subs)
    }

    pub(super) fn apply(
        &mut self,
        p: &Poly,
        subs: &[(AtomId, Poly)],
    ) -> Result<Option<Poly>, Stop> {
        let mut p = p.clone();
        for (v, e) in subs {
            match self.substitute(&p, *v, e)? {
                Some(q) => p = q,
                None => return Ok(None),
            }
        }
        Ok(Some(p))
    }

    /// Whether `p = 0` at every point of the current case: `p` is 0 after substituting
    /// the case's equations.
    pub fn zero_in_case(&mut self, p: &Poly) -> Result<bool, Stop> {
        if p.is_zero() {
            return Ok(true);
        }
        let subs = self.case_substitutions()?;
        if subs.is_empty() {
            return Ok(false);
        }
        Ok(self.apply(p, &subs)?.is_some_and(|q| q.is_zero()))
    }

    /// Whether no real point satisfies the literals of the current case; `true` only
    /// when the contradiction is certain.
    pub fn case_infeasible(&mut self) -> bool {
        let lits = self.case_literals();
        for &(key, v) in &lits {
            if let CondKey::Pos(r) = key {
                let neg = self
                    .neg_pos_cond(r)
                    .and_then(|c| self.assignment.get(&c).copied());
                let zero = self
                    .zero_cond_of(r)
                    .and_then(|c| self.assignment.get(&c).copied());
                // d > 0 and -d > 0
                if v && neg == Some(true) {
                    return true;
                }
                // d > 0 and d = 0
                if v && zero == Some(true) {
                    return true;
                }
                // d <= 0, -d <= 0 and d != 0
                if !v && neg == Some(false) && zero == Some(false) {
                    return true;
                }
            }
        }
        // Literals that the case's equations turn into constants, or into a cycle of
        // orderings (`a > b`, `b >= c`, `c >= a`).
        let subs = self.case_substitutions().unwrap_or_default();
        let mut linear: Vec<(Poly, bool, bool)> = Vec::new();
        let mut seen: Vec<(Poly, Poly, bool, bool)> = Vec::new();
        for (key, v) in lits {
            let (r, is_pos) = match key {
                CondKey::Pos(r) => (r, true),
                CondKey::Zero(r) => (r, false),
            };
            let rf = self.rf(r).clone();
            if is_pos && !self.poly_positive(&rf.d) {
                continue;
            }
            let q = if subs.is_empty() {
                rf.n.clone()
            } else {
                let Ok(Some(q)) = self.apply(&rf.n, &subs) else {
                    continue;
                };
                q
            };
            let Some(c) = q.as_const() else {
                linear.push((q.clone(), is_pos, v));
                // Two literals the equations make the same (up to a positive factor)
                // with opposite truths: `x1 - x0 > 0` and, with `x1 = x2`, `x2 - x0 <= 0`.
                let Some(lc) = q.lc().cloned() else {
                    continue;
                };
                let zn = q.scale(&lc.recip()); // sign-free form, for `= 0`
                let pn = q.scale(&lc.abs().recip()); // positive-factor form, for `> 0`
                for (zn2, pn2, is_pos2, v2) in &seen {
                    let clash = match (is_pos, *is_pos2) {
                        (true, true) => {
                            (pn == *pn2 && v != *v2) || (v && *v2 && pn == pn2.scale(&rat(-1)))
                        }
                        (false, false) => zn == *zn2 && v != *v2,
                        // d > 0 and d = 0
                        _ => zn == *zn2 && v && *v2,
                    };
                    if clash {
                        return true;
                    }
                }
                seen.push((zn, pn, is_pos, v));
                continue;
            };
            let holds = if is_pos { c.is_positive() } else { c.is_zero() };
            if holds != v {
                return true;
            }
        }
        order_cycle(&linear)
    }
}
/// Whether literals of the form `m1 - m2 > 0`, `<= 0` or `= 0` (two monomials, opposite
/// coefficients, no constant; `(poly, is_pos, value)` as in `case_infeasible`) order
/// their monomials in a cycle with a strict step (`a < b <= c <= a`): then no real point
/// satisfies them. Other literals are ignored (dropping constraints never makes a
/// feasible case infeasible).
pub(super) fn order_cycle(lits: &[(Poly, bool, bool)]) -> bool {
    let mut nodes: Vec<&Mono> = Vec::new();
    pub(super) fn node<'m>(m: &'m Mono, nodes: &mut Vec<&'m Mono>) -> usize {
        nodes.iter().position(|n| **n == *m).unwrap_or_else(|| {
            nodes.push(m);
            nodes.len() - 1
        })
    }
    // Edges u -> v meaning u <= v (strict: u < v).
    let mut edges: Vec<(usize, usize, bool)> = Vec::new();
    for (q, is_pos, v) in lits {
        let [(m1, c1), (m2, c2)] = q.0.as_slice() else {
            continue;
        };
        if m1.is_one() || m2.is_one() || *c1 != -c2.clone() {
            continue;
        }
        // q > 0  <=>  hi > lo
        let (hi, lo) = if c1.is_positive() { (m1, m2) } else { (m2, m1) };
        let (hi, lo) = (node(hi, &mut nodes), node(lo, &mut nodes));
        match (is_pos, v) {
            (true, true) => edges.push((lo, hi, true)),
            (true, false) => edges.push((hi, lo, false)),
            (false, true) => {
                edges.push((hi, lo, false));
                edges.push((lo, hi, false));
            }
            (false, false) => {}
        }
    }
    if !edges.iter().any(|e| e.2) {
        return false;
    }
    let n = nodes.len();
    // reach[u][v]: v is reachable from u
    let mut reach = vec![vec![false; n]; n];
    for &(u, v, _) in &edges {
        reach[u][v] = true;
    }
    for k in 0..n {
        for i in 0..n {
            if reach[i][k] {
                for j in 0..n {
                    if reach[k][j] {
                        reach[i][j] = true;
                    }
                }
            }
        }
    }
    edges
        .iter()
        .any(|&(u, v, strict)| strict && (u == v || reach[v][u]))
}
