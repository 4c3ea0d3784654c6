//! Online recurrences `l_k = l_{k-1}·exp(e_k) + Σ r_k` (an online softmax's rescaled
//! running sum, flash attention's rescaled accumulator) converted in time linear in the
//! trip count.
//!
//! Converting step by step multiplies the whole running sum by every rescaling factor:
//! each step touches every monomial so far, O(n²/block) per row. Here the steps of one
//! chain are folded with the rescaling kept aside, `l_k = exp(s_k)·P_k` where
//! `s_k = s_{k-1} + e_k` and `P_k = P_{k-1} + exp(-s_k)·Σ r_k`, and the product with
//! `exp(s_K)` is taken once, at the end. Each step is an identity over the reals
//! (`exp(s)·exp(-s) = 1`), and since forms are canonical the result is the form the
//! step-by-step conversion builds. A step whose factor is not a pure exponential, or
//! whose addend is a quotient, is taken step by step ([`Canon::mul`], [`Canon::add`]).

use super::state::*;
use crate::decide::poly::{rat, ExpId, Mono, Poly, Stop};
use crate::term::{Node, TermId};
use num_rational::BigRational;
use num_traits::One;
use rustc_hash::FxHashMap;

/// Fewest steps a chain must have to be folded (a single step gains nothing).
const MIN_STEPS: usize = 2;

/// One step of a chain: `previous · Π factors + Σ addends`.
pub(super) struct Step {
    factors: Vec<TermId>,
    addends: Vec<TermId>,
}

/// A running sum while it is folded.
enum Acc {
    Flat(Rf),
    /// `exp(shift) · Σ monomials`, the monomials not yet merged into a sorted polynomial.
    Scaled {
        shift: ExpId,
        monos: FxHashMap<Mono, BigRational>,
    },
}

impl Canon<'_> {
    /// The steps of the chain headed by `t`, outermost first, and the term the innermost
    /// step rescales (its base); `None` where `t` heads no chain of [`MIN_STEPS`] steps.
    pub(super) fn chain(&self, t: TermId) -> Option<(Vec<Step>, TermId)> {
        let mut steps = Vec::new();
        let mut cur = t;
        while let Some((previous, step)) = self.step(cur) {
            steps.push(step);
            cur = previous;
        }
        (steps.len() >= MIN_STEPS).then_some((steps, cur))
    }

    /// `t` as `previous · Π factors + Σ addends`: a sum with exactly one operand that is
    /// a product with exactly one sum among its factors (the previous step).
    fn step(&self, t: TermId) -> Option<(TermId, Step)> {
        let Node::Add(ops) = self.terms.node(t) else {
            return None;
        };
        let is_sum = |f: &TermId| matches!(self.terms.node(*f), Node::Add(_));
        let mut found: Option<(TermId, Vec<TermId>)> = None;
        let mut addends = Vec::new();
        for &o in ops.iter() {
            match self.terms.node(o) {
                Node::Mul(fs) if fs.iter().filter(|f| is_sum(f)).count() == 1 => {
                    if found.is_some() {
                        return None;
                    }
                    let previous = *fs.iter().find(|f| is_sum(f))?;
                    let factors = fs.iter().copied().filter(|&f| f != previous).collect();
                    found = Some((previous, factors));
                }
                _ => addends.push(o),
            }
        }
        let (previous, factors) = found?;
        Some((previous, Step { factors, addends }))
    }

    /// The terms a chain's conversion reads: its base and every step's factors and
    /// addends (not the intermediate sums, which are never converted on their own).
    pub(super) fn chain_inputs(steps: &[Step], base: TermId, need: &mut Vec<TermId>) {
        need.push(base);
        for s in steps {
            need.extend(&s.factors);
            need.extend(&s.addends);
        }
    }

    /// The form of the chain's head, its inputs converted (see [`Canon::chain_inputs`]).
    pub(super) fn fold_chain(&mut self, steps: &[Step], base: TermId) -> Result<Rf, Stop> {
        // `exp(k·log a)` splits exponents: fold only where no log facts can apply.
        let foldable = self.alg.logs.is_empty() && self.general_logs.is_empty();
        let mut acc = Acc::Flat((*self.get(base)).clone());
        for step in steps.iter().rev() {
            let mut factor = Rf::constant(rat(1));
            for &f in &step.factors {
                let r = self.get(f);
                factor = self.mul(&factor, &r)?;
            }
            let rescale = match (factor.d.is_one(), factor.n.single()) {
                (true, Some((m, c))) if m.atoms.is_empty() && m.exp != 0 && c.is_one() => {
                    Some(m.exp)
                }
                _ => None,
            };
            acc = match (acc, rescale) {
                (Acc::Flat(rf), Some(e)) if foldable && rf.d.is_one() => {
                    let mut monos = FxHashMap::default();
                    monos.extend(rf.n.0);
                    Acc::Scaled { shift: e, monos }
                }
                (Acc::Scaled { shift, monos }, Some(e)) => Acc::Scaled {
                    shift: self.alg.add_exp(shift, e),
                    monos,
                },
                (acc, _) => {
                    let rf = self.flatten(acc)?;
                    Acc::Flat(self.mul(&rf, &factor)?)
                }
            };
            // `exp(-shift)`, the same for every addend of the step.
            let unscale = match &acc {
                Acc::Scaled { shift, .. } if !step.addends.is_empty() => {
                    let neg = self.alg.neg_exp(*shift);
                    Some(self.alg.exp_mono(neg)?)
                }
                _ => None,
            };
            for &a in &step.addends {
                let r = self.get(a);
                acc = match (acc, &unscale) {
                    (Acc::Scaled { shift, mut monos }, Some((unscale, k))) if r.d.is_one() => {
                        for (m, c) in &r.n.0 {
                            let (m2, f) = self.alg.mono_mul(m, unscale)?;
                            *monos.entry(m2).or_insert_with(|| rat(0)) += c * f * k;
                        }
                        if monos.len() > self.alg.limit {
                            return Err(self.alg.too_big(monos.len()));
                        }
                        Acc::Scaled { shift, monos }
                    }
                    (acc, _) => {
                        let rf = self.flatten(acc)?;
                        Acc::Flat(self.add(&rf, &r)?)
                    }
                };
            }
        }
        self.flatten(acc)
    }

    /// A folded sum as a canonical form: the rescaling multiplied in.
    fn flatten(&mut self, acc: Acc) -> Result<Rf, Stop> {
        let (shift, monos) = match acc {
            Acc::Flat(rf) => return Ok(rf),
            Acc::Scaled { shift, monos } => (shift, monos),
        };
        let (scale, k) = self.alg.exp_mono(shift)?;
        let mut out: FxHashMap<Mono, BigRational> = FxHashMap::default();
        out.reserve(monos.len());
        for (m, c) in monos {
            let (m2, f) = self.alg.mono_mul(&m, &scale)?;
            *out.entry(m2).or_insert_with(|| rat(0)) += c * f * &k;
        }
        let n = Poly::from_terms(out);
        if n.len() > self.alg.limit {
            return Err(self.alg.too_big(n.len()));
        }
        self.normalize(n, Poly::one())
    }
}
