//! Welford's single-pass mean and variance, read for every trip count.
//!
//! A loop carrying a float counter `c` (`c' = c + 1` in every case, from 0), a mean `m`
//! and a sum of squared deviations `M2` whose body computes
//! `m' = m + (x - m)/c'` and `M2' = M2 + (x - m)(x - m')` (in any algebraically equal
//! form) leaves, after `T >= 1` trips, `m = S/T` and `M2 = Q - S²/T` with `S = Σ x` and
//! `Q = Σ x²` over the iterations. That is proved by induction, one `decide` identity per
//! obligation, with `S`, `Q` and the count `n >= 1` as fresh atoms (`n = 1 + w²`):
//! - the item `x` is the body's mean at the initial state (`m = 0`, `c = 0`), so it is
//!   free of the carried values by construction (checked);
//! - base: one trip from the initial state leaves `M2 = 0` (`= Q₁ - S₁²/1`);
//! - step: from `c = n`, `m = S/n`, `M2 = Q - S²/n` the body gives
//!   `m' = (S + x)/(n + 1)` and `M2' = Q + x² - (S + x)²/(n + 1)`.
//!
//! After the loop `S` is a partial like any running sum, matched to the formula's
//! reduction, and `M2` is stated as the partial `Σ (x - S/T)²`, which is `Q - S²/T` for
//! every `T` (expand the square) and is the shape a formula's variance has.
//!
//! Invariant: a lane is summarised here only when all three obligations are decided
//! Equal and the path proves at least one trip; otherwise the lane is left to the other
//! templates (and so ends [`super::lane::unsupported`]).

use super::at_index::real_of;
use super::lane::{Lane, R};
use super::run::Run;
use super::summary::{contains, Carried, Case, Part, Partial};
use super::sym::{Cond, Poly, Rel};
use crate::decide::{self, Verdict};
use crate::exec::domain::Binary;
use crate::term::TermId;
use rustc_hash::FxHashMap;
use std::collections::HashMap;

impl Run<'_, '_, '_> {
    /// Finds Welford triples among `open` (float lanes no running-op template took) and
    /// `counters` (lanes that gain exactly 1 in every case, from 0); returns the final
    /// values of the mean and M2 lanes it proves.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn summarise_welford(
        &mut self,
        n: usize,
        open: &[Carried],
        counters: &[Carried],
        var: &str,
        valid: &[Cond],
        cases: &[Case],
        trips: &Poly,
    ) -> R<HashMap<(usize, usize), TermId>> {
        let mut done = HashMap::new();
        if std::env::var_os("LIFT_DEBUG_VERIFY").is_some() {
            eprintln!(
                "welford: {} open, {} counters, {} cases",
                open.len(),
                counters.len(),
                cases.len()
            );
        }
        if counters.is_empty() || open.len() < 2 || cases.is_empty() {
            return Ok(done);
        }
        // The mean and M2 are summarised only where the loop runs at least once (before
        // that they are their initial values, which the closed form does not cover);
        // `trips` is then the number of trips.
        if !self.holds(&Cond::cmp(Rel::Le, &Poly::constant(1), trips)) {
            return Ok(done);
        }
        for mean in open {
            for m2 in open {
                if mean.lane == m2.lane
                    || done.contains_key(&mean.lane)
                    || done.contains_key(&m2.lane)
                {
                    continue;
                }
                for count in counters {
                    if let Some((m, v)) =
                        self.welford_triple(n, [*count, *mean, *m2], var, valid, cases, trips)?
                    {
                        done.insert(mean.lane, m);
                        done.insert(m2.lane, v);
                        break;
                    }
                }
            }
        }
        Ok(done)
    }

    /// The final mean and M2 when `(count, mean, m2)` is a Welford triple; `None` when
    /// an obligation is not decided Equal.
    #[allow(clippy::too_many_arguments)]
    fn welford_triple(
        &mut self,
        n: usize,
        [count, mean, m2]: [Carried; 3],
        var: &str,
        valid: &[Cond],
        cases: &[Case],
        trips: &Poly,
    ) -> R<Option<(TermId, TermId)>> {
        let after = |case: &Case, (k, j): (usize, usize)| match case.outs.get(k).map(|v| &v.lanes) {
            Some(lanes) => match lanes.get(j) {
                Some(Lane::Float(t)) => Some(*t),
                _ => None,
            },
            None => None,
        };
        let t = &mut *self.domain.terms;
        let accs = [count.acc, mean.acc, m2.acc];
        // The count n >= 1 as `1 + w²` over a free real w: an identity in w is one for
        // every real n >= 1, and no point of the refuter divides by zero.
        let (s, q, w) = (
            t.carried_param(&format!("welford{n}.S")),
            t.carried_param(&format!("welford{n}.Q")),
            t.carried_param(&format!("welford{n}.w")),
        );
        let cnt = {
            let one = t.one();
            let w2 = t.mul(w, w);
            t.add(one, w2)
        };
        // The induction hypothesis at iteration n >= 1.
        let s_over_n = t.div(s, cnt);
        let s2_over_n = {
            let s2 = t.mul(s, s);
            t.div(s2, cnt)
        };
        let m2_hyp = t.sub(q, s2_over_n);
        let hyp: FxHashMap<TermId, TermId> =
            [(count.acc, cnt), (mean.acc, s_over_n), (m2.acc, m2_hyp)]
                .into_iter()
                .collect();
        let start: FxHashMap<TermId, TermId> = [
            (count.acc, count.init),
            (mean.acc, mean.init),
            (m2.acc, m2.init),
        ]
        .into_iter()
        .collect();
        let zero = t.zero();
        let one = t.one();
        let n1 = t.add(cnt, one);
        let mut obligations: Vec<(TermId, TermId)> = Vec::new();
        let mut items: Vec<(TermId, &Case)> = Vec::new();
        for case in cases {
            let (Some(m_after), Some(v_after)) = (after(case, mean.lane), after(case, m2.lane))
            else {
                return Ok(None);
            };
            // Both lanes must use the counter and the mean (else some simpler template
            // or none applies), and M2 must not feed the mean.
            if !contains(t, m_after, mean.acc)
                || !contains(t, m_after, count.acc)
                || contains(t, m_after, m2.acc)
                || !contains(t, v_after, m2.acc)
            {
                return Ok(None);
            }
            let x = t.substitute(m_after, &start);
            if accs.iter().any(|&a| contains(t, x, a)) {
                return Ok(None);
            }
            // Base: one trip from the start leaves M2 = 0.
            let v_first = t.substitute(v_after, &start);
            obligations.push((zero, v_first));
            // Step.
            let sx = t.add(s, x);
            let want_mean = t.div(sx, n1);
            let got_mean = t.substitute(m_after, &hyp);
            obligations.push((want_mean, got_mean));
            let x2 = t.mul(x, x);
            let sx2 = t.mul(sx, sx);
            let sx2_n1 = t.div(sx2, n1);
            let q_x2 = t.add(q, x2);
            let want_m2 = t.sub(q_x2, sx2_n1);
            let got_m2 = t.substitute(v_after, &hyp);
            obligations.push((want_m2, got_m2));
            items.push((x, case));
        }
        // The counter starts at 0, so at iteration n it is n. (The mean may start
        // anywhere: the item is defined from the start state; M2 must start at 0, which
        // the base obligation checks.)
        if count.init != zero {
            return Ok(None);
        }
        let verdicts = decide::decide_all(t, &obligations, &decide::Options::default());
        if std::env::var_os("LIFT_DEBUG_VERIFY").is_some() {
            for ((w, g), v) in obligations.iter().zip(&verdicts) {
                eprintln!(
                    "welford: want {}\n         got  {}\n         {v:?}",
                    t.display(*w),
                    t.display(*g)
                );
            }
        }
        if !verdicts.iter().all(|v| matches!(v, Verdict::Equal { .. })) {
            return Ok(None);
        }
        // After T trips: mean = S/T and M2 = Σ (x - S/T)².
        let part = |summand: TermId, case: &Case| {
            let mut cond = valid.to_vec();
            cond.extend(case.cond.iter().cloned());
            Part {
                vars: vec![var.to_string()],
                cond,
                summands: vec![summand],
            }
        };
        let s_parts: Vec<Part> = items.iter().map(|&(x, case)| part(x, case)).collect();
        let p_s = t.carried_param(&format!("loop{n}.{}.{}.sum", mean.lane.0, mean.lane.1));
        let trips = real_of(t, trips);
        let mean_final = t.div(p_s, trips);
        let mut m2_parts = Vec::with_capacity(items.len());
        for &(x, case) in &items {
            let d = t.sub(x, mean_final);
            let d2 = t.mul(d, d);
            m2_parts.push(part(d2, case));
        }
        let p_m2 = t.carried_param(&format!("loop{n}.{}.{}", m2.lane.0, m2.lane.1));
        self.partials.insert(
            p_s,
            Partial {
                combine: Binary::Add,
                parts: s_parts,
            },
        );
        self.partials.insert(
            p_m2,
            Partial {
                combine: Binary::Add,
                parts: m2_parts,
            },
        );
        Ok(Some((mean_final, p_m2)))
    }
}
