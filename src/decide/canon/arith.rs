//! Arithmetic of canonical forms: normalising `N / D` (monic denominator, cancelled
//! exponentials), `add`, `sub`, `mul`, `inv`, `pow`, and the sign facts it can read off.
//!
//! Invariant: every rewrite is an identity over the reals under the recorded
//! preconditions (see `canon`).

use super::state::*;
use crate::decide::poly::{rat, AtomId, Mono, Poly, Stop};
use crate::term::Func;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};

impl Canon<'_> {
    pub(super) fn normalize(&mut self, n: Poly, d: Poly) -> Result<Rf, Stop> {
        if n.is_zero() {
            return Ok(Rf::constant(rat(0)));
        }
        if !self.general_logs.is_empty() {
            // Each split leaves log coefficients in [0, 1) and multiplies in powers of
            // exponential-free arguments, so the nested normalisations end.
            let (sn, sd) = (self.split_general_logs(&n)?, self.split_general_logs(&d)?);
            if sn.is_some() || sd.is_some() {
                let sn = sn.unwrap_or_else(|| Rf::poly(n));
                let sd = sd.unwrap_or_else(|| Rf::poly(d));
                let inv = self.inv(&sd)?;
                return self.mul(&sn, &inv);
            }
        }
        if d.is_one() {
            return Ok(Rf::poly(n));
        }
        if n == d {
            return Ok(Rf::constant(rat(1)));
        }
        if let Some((m, c)) = d.single() {
            let inv = self.alg.mono_inverse(&m.clone(), &c.clone())?;
            let q = self.alg.mul(&n, &inv)?;
            // Dividing by `exp(k·log a)` leaves `-k`, outside [0, 1): split again.
            if !self.general_logs.is_empty() {
                if let Some(s) = self.split_general_logs(&q)? {
                    return Ok(s);
                }
            }
            return Ok(Rf::poly(q));
        }
        let (n, d) = self.cancel_exp(n, d);
        let lc = d.lc().cloned().unwrap_or_else(|| rat(1));
        if lc.is_one() {
            Ok(Rf { n, d })
        } else {
            let r = lc.recip();
            Ok(Rf {
                n: n.scale(&r),
                d: d.scale(&r),
            })
        }
    }
    /// `n / d` with the exponential factor common to every monomial of both divided out
    /// (`exp(a-m)·v / (exp(b-m) + exp(c-m)) = exp(a)·v / (exp(b) + exp(c))`): `exp(q)`
    /// for `q` the monomials on which every exponent agrees (same coefficient). Exact
    /// (`exp(q) > 0`) and independent of the representation: two quotients that differ
    /// by an exponential factor give the same result.
    pub(super) fn cancel_exp(&mut self, n: Poly, d: Poly) -> (Poly, Poly) {
        let all = || n.0.iter().chain(d.0.iter());
        if all().any(|(m, _)| m.exp == 0) {
            return (n, d);
        }
        let mut common: Vec<(Mono, BigRational)> = self.alg.exp_poly(d.0[0].0.exp).0.clone();
        for (m, _) in all() {
            let q = self.alg.exp_poly(m.exp);
            common.retain(|(cm, cc)| {
                q.0.binary_search_by(|(qm, _)| qm.cmp(cm))
                    .is_ok_and(|i| &q.0[i].1 == cc)
            });
            if common.is_empty() {
                return (n, d);
            }
        }
        let minus = Poly(common).neg();
        let minus_id = self.alg.intern_exp(minus.clone());
        let mut shift = |p: Poly| {
            let mut v: Vec<(Mono, BigRational)> =
                p.0.into_iter()
                    .map(|(m, c)| {
                        let exp = *self.shifted.entry((m.exp, minus_id)).or_insert_with(|| {
                            let q = self.alg.exp_poly(m.exp).add(&minus);
                            self.alg.intern_exp(q)
                        });
                        (
                            Mono {
                                exp,
                                atoms: m.atoms,
                            },
                            c,
                        )
                    })
                    .collect();
            v.sort_unstable_by(|x, y| x.0.cmp(&y.0));
            Poly(v)
        };
        let n = shift(n);
        let d = shift(d);
        (n, d)
    }

    pub fn add(&mut self, a: &Rf, b: &Rf) -> Result<Rf, Stop> {
        if a.d == b.d {
            let n = a.n.add(&b.n);
            return self.normalize(n, a.d.clone());
        }
        if b.d.is_one() {
            let n = a.n.add(&self.alg.mul(&b.n, &a.d)?);
            return self.normalize(n, a.d.clone());
        }
        if a.d.is_one() {
            let n = b.n.add(&self.alg.mul(&a.n, &b.d)?);
            return self.normalize(n, b.d.clone());
        }
        // Denominators that are monomial multiples of each other: `b.d = q·a.d`.
        if let Some(q) = self.monomial_ratio(&b.d, &a.d)? {
            let n = self.alg.mul(&a.n, &q)?.add(&b.n);
            return self.normalize(n, b.d.clone());
        }
        if let Some(q) = self.monomial_ratio(&a.d, &b.d)? {
            let n = self.alg.mul(&b.n, &q)?.add(&a.n);
            return self.normalize(n, a.d.clone());
        }
        let n = self.alg.mul(&a.n, &b.d)?.add(&self.alg.mul(&b.n, &a.d)?);
        let d = self.alg.mul(&a.d, &b.d)?;
        self.normalize(n, d)
    }
    pub fn sub(&mut self, a: &Rf, b: &Rf) -> Result<Rf, Stop> {
        let nb = Rf {
            n: b.n.neg(),
            d: b.d.clone(),
        };
        self.add(a, &nb)
    }
    pub fn mul(&mut self, a: &Rf, b: &Rf) -> Result<Rf, Stop> {
        // Cancel a denominator against an equal numerator (its non-zeroness is recorded).
        if !a.d.is_one() && a.d == b.n {
            return Ok(Rf {
                n: a.n.clone(),
                d: b.d.clone(),
            });
        }
        if !b.d.is_one() && b.d == a.n {
            return Ok(Rf {
                n: b.n.clone(),
                d: a.d.clone(),
            });
        }
        // A numerator that is a monomial multiple of the other side's denominator:
        // `(q·D / D_a) · (N_b / D) = q·N_b / D_a` (see `cancel`).
        if !b.d.is_one() {
            if let Some(q) = self.monomial_ratio(&a.n, &b.d)? {
                let n = self.alg.mul(&q, &b.n)?;
                return self.normalize(n, a.d.clone());
            }
        }
        if !a.d.is_one() {
            if let Some(q) = self.monomial_ratio(&b.n, &a.d)? {
                let n = self.alg.mul(&q, &a.n)?;
                return self.normalize(n, b.d.clone());
            }
        }
        let n = self.alg.mul(&a.n, &b.n)?;
        let d = self.alg.mul(&a.d, &b.d)?;
        self.normalize(n, d)
    }
    pub fn inv(&mut self, a: &Rf) -> Result<Rf, Stop> {
        if a.n.is_zero() {
            return Err(Stop(
                "division by an expression that is identically 0".into(),
            ));
        }
        self.normalize(a.d.clone(), a.n.clone())
    }
    pub fn pow(&mut self, a: &Rf, k: i32) -> Result<Rf, Stop> {
        let base = if k < 0 { self.inv(a)? } else { a.clone() };
        let e = k.unsigned_abs();
        let n = self.alg.pow(&base.n, e)?;
        let d = self.alg.pow(&base.d, e)?;
        self.normalize(n, d)
    }
    pub(super) fn scale(&self, a: &Rf, c: &BigRational) -> Rf {
        Rf {
            n: a.n.scale(c),
            d: a.d.clone(),
        }
    }

    // ---- signs -------------------------------------------------------------------------

    pub(super) fn atom_positive(&self, a: AtomId) -> bool {
        match &self.atoms[a as usize] {
            Atom::Ln2 | Atom::Ln10 | Atom::SqrtPi | Atom::Exp(_) => true,
            Atom::Fn(Func::Sqrt, arg) => self.rf(*arg).as_const().is_some_and(|c| c.is_positive()),
            _ => false,
        }
    }
    /// Whether `p > 0` everywhere: positive coefficients, monomials of positive atoms
    /// and even powers, at least one monomial of positive atoms only.
    pub(super) fn poly_positive(&self, p: &Poly) -> bool {
        let mut strict = false;
        for (m, c) in &p.0 {
            if !c.is_positive() {
                return false;
            }
            let mut all_pos = true;
            for &(a, e) in m.atoms.iter() {
                if !self.atom_positive(a) {
                    all_pos = false;
                    if e % 2 != 0 {
                        return false;
                    }
                }
            }
            strict |= all_pos;
        }
        strict
    }
    pub fn positive(&self, a: &Rf) -> bool {
        self.poly_positive(&a.n) && self.poly_positive(&a.d)
    }
    pub(super) fn nonzero(&self, a: &Rf) -> bool {
        if self.positive(a) {
            return true;
        }
        if let Some((m, c)) = a.n.single() {
            return !c.is_zero() && m.atoms.iter().all(|&(x, _)| self.atom_positive(x));
        }
        false
    }
}
