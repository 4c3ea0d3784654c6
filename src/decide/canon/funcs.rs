//! The functions of canonical forms: known constants, `exp`, `log`, `sqrt`, the
//! libm functions kept opaque, `abs` under a case, extrema. Each rewrite is an identity
//! over the reals under the preconditions it records (see the parent module).

use super::known::{match_known, Known};
use super::state::*;
use crate::decide::poly::{rat, AtomId, ExpId, Mono, Poly, Stop};
use crate::decide::precondition::PreKind;
use crate::term::{Func, TermId};
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::rc::Rc;

impl<'t> Canon<'t> {
    pub(super) fn known(&mut self, k: Known) -> Result<Rf, Stop> {
        let ln2 = self.atom(Atom::Ln2);
        let ln10 = self.atom(Atom::Ln10);
        let sp = self.atom(Atom::SqrtPi);
        let m = |atoms: &[(AtomId, i32)], c: BigRational| {
            let mut v = atoms.to_vec();
            v.sort_unstable();
            Rf::poly(Poly::mono(
                Mono {
                    exp: 0,
                    atoms: v.into(),
                },
                c,
            ))
        };
        let half = BigRational::new(1.into(), 2.into());
        Ok(match k {
            Known::Ln2 => m(&[(ln2, 1)], rat(1)),
            Known::Log2E => m(&[(ln2, -1)], rat(1)),
            Known::Ln10 => m(&[(ln10, 1)], rat(1)),
            Known::Log10E => m(&[(ln10, -1)], rat(1)),
            Known::Log2Of10 => m(&[(ln10, 1), (ln2, -1)], rat(1)),
            Known::Log10Of2 => m(&[(ln2, 1), (ln10, -1)], rat(1)),
            Known::Pi => m(&[(sp, 2)], rat(1)),
            Known::FracPi2 => m(&[(sp, 2)], half),
            Known::FracPi4 => m(&[(sp, 2)], BigRational::new(1.into(), 4.into())),
            Known::Frac1Pi => m(&[(sp, -2)], rat(1)),
            Known::Frac2Pi => m(&[(sp, -2)], rat(2)),
            Known::Tau => m(&[(sp, 2)], rat(2)),
            Known::E => {
                let e = self.alg.intern_exp(Poly::one());
                Rf::poly(Poly::mono(
                    Mono {
                        exp: e,
                        atoms: Box::new([]),
                    },
                    rat(1),
                ))
            }
            Known::Sqrt2 => self.sqrt_const(&rat(2)),
            Known::FracSqrt2 => self.sqrt_const(&rat(2)).n.scale(&half).pipe(Rf::poly),
            Known::SqrtPi => m(&[(sp, 1)], rat(1)),
            Known::Frac2SqrtPi => m(&[(sp, -1)], rat(2)),
            Known::Sqrt2OverPi => {
                let s2 = self.sqrt_const(&rat(2));
                let r = m(&[(sp, -1)], rat(1));
                self.mul(&s2, &r)?
            }
            Known::Third => Rf::constant(BigRational::new(1.into(), 3.into())),
        })
    }
    pub(super) fn sqrt_const(&mut self, c: &BigRational) -> Rf {
        let arg = Rf::constant(c.clone());
        let id = self.rf_id(&arg);
        let a = self.atom(Atom::Fn(Func::Sqrt, id));
        if c.is_positive() {
            self.alg.squares.insert(a, c.clone());
        }
        Rf::poly(Poly::mono(Mono::atom(a, 1), rat(1)))
    }
    pub(super) fn constant(&mut self, c: &BigRational) -> Result<Rf, Stop> {
        let Some(m) = match_known(c) else {
            return Ok(Rf::constant(c.clone()));
        };
        let k = self.known(m.known)?;
        let k = if m.inverse { self.inv(&k)? } else { k };
        // A folded product can hold a second known constant (`-2·f32(sqrt(2/pi))` times
        // `f32(log2 e)`): read the factor the same way. Each step divides out one
        // table constant, so this ends.
        let two_power = {
            let (n, d) = (m.factor.numer().magnitude(), m.factor.denom().magnitude());
            n.count_ones() == 1 && d.count_ones() == 1
        };
        if two_power {
            return Ok(self.scale(&k, &m.factor));
        }
        let f = self.constant(&m.factor)?;
        self.mul(&k, &f)
    }

    /// `exp(a)`: a polynomial exponent becomes an exponential part, with `exp(k·log x)
    /// = x^k` for integer `k`.
    pub fn exp(&mut self, a: &Rf) -> Result<Rf, Stop> {
        if !a.d.is_one() {
            let id = self.rf_id(a);
            return Ok(self.atom_rf(Atom::Exp(id)));
        }
        let mut rest = Vec::new();
        let mut result = Rf::constant(rat(1));
        for (m, c) in &a.n.0 {
            // exp(k·ln2) = 2^k, exp(k·ln10) = 10^k for integer k
            if let (0, [(x, 1)]) = (m.exp, &*m.atoms) {
                let base = match &self.atoms[*x as usize] {
                    Atom::Ln2 => Some(2),
                    Atom::Ln10 => Some(10),
                    _ => None,
                };
                let k = c
                    .is_integer()
                    .then(|| c.to_integer().to_i32())
                    .flatten()
                    .filter(|k| k.unsigned_abs() <= 64);
                if let (Some(base), Some(k)) = (base, k) {
                    let f = num_traits::Pow::pow(&rat(base), k);
                    result = self.scale(&result, &f);
                    continue;
                }
            }
            // exp(k·log x) = x^k and exp((k/2)·log x) = sqrt(x)^k for integer k: `log x`
            // was canonicalised under the precondition x > 0, where both hold exactly.
            let log_arg = match (m.exp, &*m.atoms) {
                (0, [(x, 1)]) => match &self.atoms[*x as usize] {
                    // `2c` only for a log atom: a rational product for every monomial
                    // of every exponent cost more than the rest of this loop.
                    Atom::Fn(Func::Log, arg) => {
                        let twice = c * rat(2);
                        twice
                            .is_integer()
                            .then(|| twice.to_integer().to_i32())
                            .flatten()
                            .filter(|k| k.unsigned_abs() <= 128)
                            .map(|k| (*arg, k))
                    }
                    _ => None,
                },
                _ => None,
            };
            match log_arg {
                Some((arg, k2)) => {
                    let x = self.rf(arg).clone();
                    // Odd k: x^((k∓1)/2) · sqrt(x)^(±1), the form `x * sqrt(x)` and
                    // `1 / sqrt(x)` take (the sqrt atom is not squared away).
                    let xk = if k2 % 2 == 0 {
                        self.pow(&x, k2 / 2)?
                    } else {
                        let r = self.sqrt_form(&x);
                        let (whole, root) = if k2 > 0 {
                            ((k2 - 1) / 2, 1)
                        } else {
                            ((k2 + 1) / 2, -1)
                        };
                        let w = self.pow(&x, whole)?;
                        let r = self.pow(&r, root)?;
                        self.mul(&w, &r)?
                    };
                    result = self.mul(&result, &xk)?;
                }
                None => rest.push((m.clone(), c.clone())),
            }
        }
        let e = self.alg.intern_exp(Poly(rest));
        let (m, c) = self.alg.exp_mono(e)?;
        let em = Rf::poly(Poly::mono(m, c));
        self.mul(&result, &em)
    }

    /// If `a` is `exp(q)` exactly, `q`.
    pub(super) fn as_exp(&self, a: &Rf) -> Option<Poly> {
        if !a.d.is_one() {
            return None;
        }
        let (m, c) = a.n.single()?;
        if c.is_one() && m.atoms.is_empty() {
            return Some(self.alg.exp_poly(m.exp).clone());
        }
        None
    }

    pub(super) fn log(&mut self, a: &Rf, t: TermId) -> Result<Rf, Stop> {
        if !self.positive(a) {
            self.require(PreKind::Positive, t, a);
        }
        if let Some(q) = self.as_exp(a) {
            return Ok(Rf::poly(q));
        }
        // log(exp(q) · y) = q + log(y)
        if a.d.is_one() {
            if let Some((m, c)) = a.n.single() {
                if m.exp != 0 {
                    let q = Rf::poly(self.alg.exp_poly(m.exp).clone());
                    let rest = Rf::poly(Poly::mono(
                        Mono {
                            exp: 0,
                            atoms: m.atoms.clone(),
                        },
                        c.clone(),
                    ));
                    let l = self.log_atom(&rest)?;
                    return self.add(&q, &l);
                }
            }
        }
        self.log_atom(a)
    }
    pub(super) fn log_atom(&mut self, a: &Rf) -> Result<Rf, Stop> {
        if let Some(c) = a.as_const() {
            if c.is_one() {
                return Ok(Rf::constant(rat(0)));
            }
            // c = 2^k, 10^k
            for (base, atom) in [(2i64, Atom::Ln2), (10, Atom::Ln10)] {
                if let Some(k) = int_log(&c, base) {
                    let r = self.atom_rf(atom);
                    return Ok(self.scale(&r, &rat(k)));
                }
            }
        }
        let id = self.rf_id(a);
        let log = self.atom(Atom::Fn(Func::Log, id));
        // `exp(k·log a) = a^k`: for one monomial `a` inside the monomial arithmetic
        // (`Algebra::logs`); for any other `a` free of exponentials when a form is
        // normalised (`general_logs`).
        let exp_free = |p: &Poly| p.0.iter().all(|(m, _)| m.exp == 0);
        match a.n.single().filter(|_| a.d.is_one()) {
            Some((m, c)) if m.exp == 0 => {
                self.alg
                    .logs
                    .entry(log)
                    .or_insert_with(|| (m.atoms.clone(), c.clone()));
            }
            None if exp_free(&a.n) && exp_free(&a.d) => {
                self.general_logs.entry(log).or_insert(id);
            }
            _ => {}
        }
        Ok(Rf::poly(Poly::mono(Mono::atom(log, 1), rat(1))))
    }

    /// `exp(e)` as `exp(e') · Π aᵢ^wᵢ`: every `k·log a` term of `e` whose `a` is in
    /// `general_logs` and `k` outside `[0, 1)` keeps `k - ⌊k⌋` (`w = ⌊k⌋`). Exact under
    /// the `a > 0` that `log a` required.
    fn split_general_exp(&mut self, e: ExpId) -> Rc<(ExpId, Vec<(RfId, i32)>)> {
        if let Some(s) = self.general_split.get(&e) {
            return s.clone();
        }
        let mut factors = Vec::new();
        let mut terms = Vec::new();
        for (m, c) in &self.alg.exp_poly(e).0 {
            let arg = match (m.exp, &*m.atoms) {
                (0, [(l, 1)]) => self.general_logs.get(l).copied(),
                _ => None,
            };
            let whole = c.floor().to_integer();
            let w = i32::try_from(&whole)
                .ok()
                .filter(|w| *w != 0 && w.abs() <= 64);
            match (arg, w) {
                (Some(a), Some(w)) => {
                    factors.push((a, w));
                    let frac = c - BigRational::from_integer(whole);
                    if !frac.is_zero() {
                        terms.push((m.clone(), frac));
                    }
                }
                _ => terms.push((m.clone(), c.clone())),
            }
        }
        let split = if factors.is_empty() {
            (e, factors)
        } else {
            (self.alg.intern_exp(Poly(terms)), factors)
        };
        let split = Rc::new(split);
        self.general_split.insert(e, split.clone());
        split
    }

    /// `p` with every exponential part split by [`Canon::split_general_exp`], or `None`
    /// where nothing splits.
    pub(super) fn split_general_logs(&mut self, p: &Poly) -> Result<Option<Rf>, Stop> {
        let splits: Vec<_> =
            p.0.iter()
                .map(|(m, _)| self.split_general_exp(m.exp))
                .collect();
        if splits.iter().all(|s| s.1.is_empty()) {
            return Ok(None);
        }
        let mut acc = Rf::constant(rat(0));
        for ((m, c), split) in p.0.iter().zip(splits) {
            let mono = Mono {
                exp: split.0,
                atoms: m.atoms.clone(),
            };
            let mut t = Rf::poly(Poly::mono(mono, c.clone()));
            for &(a, w) in &split.1 {
                let a = self.rf(a).clone();
                let aw = self.pow(&a, w)?;
                t = self.mul(&t, &aw)?;
            }
            acc = self.add(&acc, &t)?;
        }
        Ok(Some(acc))
    }

    pub(super) fn sqrt(&mut self, a: &Rf, t: TermId, strict: bool) -> Result<Rf, Stop> {
        if !self.positive(a) {
            let kind = if strict {
                PreKind::Positive
            } else {
                PreKind::NonNegative
            };
            self.require(kind, t, a);
        }
        Ok(self.sqrt_form(a))
    }

    /// The canonical form of `sqrt(a)` once `a >= 0` is established or required.
    pub(super) fn sqrt_form(&mut self, a: &Rf) -> Rf {
        if let Some(q) = self.as_exp(a) {
            let half = BigRational::new(1.into(), 2.into());
            let e = self.alg.intern_exp(q.scale(&half));
            return Rf::poly(Poly::mono(
                Mono {
                    exp: e,
                    atoms: Box::new([]),
                },
                rat(1),
            ));
        }
        if let Some(c) = a.as_const() {
            return self.sqrt_const(&c);
        }
        let id = self.rf_id(a);
        self.atom_rf(Atom::Fn(Func::Sqrt, id))
    }

    /// Opaque function atom; odd functions pull the sign out, even ones drop it.
    pub(super) fn opaque(&mut self, f: Func, a: &Rf) -> Result<Rf, Stop> {
        let negative = a.n.lc().is_some_and(|c| c.is_negative());
        let (arg, sign) = match (f, negative) {
            // Round-to-nearest-even is odd as well: round(-x) = -round(x).
            (Func::Sin | Func::Erf | Func::RoundF16 | Func::RoundBf16 | Func::RoundTf32, true) => {
                (self.scale(a, &rat(-1)), -1)
            }
            (Func::Cos | Func::Abs, true) => (self.scale(a, &rat(-1)), 1),
            _ => (a.clone(), 1),
        };
        let id = self.rf_id(&arg);
        let r = self.atom_rf(Atom::Fn(f, id));
        Ok(self.scale(&r, &rat(sign)))
    }

    pub(super) fn call(&mut self, f: Func, a: &Rf, arg: TermId) -> Result<Rf, Stop> {
        match f {
            Func::Exp => self.exp(a),
            Func::Exp2 => {
                let ln2 = self.atom_rf(Atom::Ln2);
                let x = self.mul(a, &ln2)?;
                self.exp(&x)
            }
            Func::Log => self.log(a, arg),
            Func::Log2 => {
                let l = self.log(a, arg)?;
                let ln2 = self.atom_rf(Atom::Ln2);
                let r = self.inv(&ln2)?;
                self.mul(&l, &r)
            }
            Func::Sqrt => self.sqrt(a, arg, false),
            Func::Rsqrt => {
                let s = self.sqrt(a, arg, true)?;
                self.inv(&s)
            }
            Func::Tanh => {
                // tanh(z) = (exp(2z) - 1) / (exp(2z) + 1)
                let two = self.scale(a, &rat(2));
                let e = self.exp(&two)?;
                let one = Rf::constant(rat(1));
                let num = self.sub(&e, &one)?;
                let den = self.add(&e, &one)?;
                let r = self.inv(&den)?;
                self.mul(&num, &r)
            }
            // |a| is a or -a where the case decides the sign of a (abs is marked
            // condition-dependent in `extend`); elsewhere an opaque atom.
            Func::Abs => match self.sign_in_case(a) {
                Some(true) => Ok(a.clone()),
                Some(false) => Ok(self.scale(a, &rat(-1))),
                None => self.opaque(f, a),
            },
            // A rounding is an opaque function of its canonical argument: never
            // proved equal to it (it is not, wherever the rounding is visible).
            Func::Sin
            | Func::Cos
            | Func::Erf
            | Func::Floor
            | Func::Ceil
            | Func::Rint
            | Func::RoundF16
            | Func::RoundBf16
            | Func::RoundTf32 => self.opaque(f, a),
        }
    }

    /// The positive constant factor `c · Π kᵢ^eᵢ` (`c > 0` rational, `kᵢ` among `ln 2`,
    /// `ln 10`, `√π`) of every monomial of every operand of an extremum, when they all
    /// have the same one and it is not 1. `max(f·a, f·b) = f·max(a, b)` holds for
    /// `f > 0` only: a factor of negative or unknown sign is never returned.
    pub(super) fn extremum_factor(
        &self,
        ops: &[Rc<Rf>],
    ) -> Option<(BigRational, Vec<(AtomId, i32)>)> {
        let mut first: Option<(BigRational, Vec<(AtomId, i32)>)> = None;
        for op in ops {
            if !op.d.is_one() || op.n.is_zero() {
                return None;
            }
            for (m, c) in &op.n.0 {
                let ks: Vec<(AtomId, i32)> = m
                    .atoms
                    .iter()
                    .copied()
                    .filter(|&(a, _)| {
                        matches!(
                            self.atoms[a as usize],
                            Atom::Ln2 | Atom::Ln10 | Atom::SqrtPi
                        )
                    })
                    .collect();
                let f = (c.abs(), ks);
                match &first {
                    None => first = Some(f),
                    Some(g) if *g == f => {}
                    Some(_) => return None,
                }
            }
        }
        first.filter(|(c, ks)| !(c.is_one() && ks.is_empty()))
    }

    pub(super) fn extremum(&mut self, ops: &[Rc<Rf>], is_max: bool) -> Result<Rf, Halt> {
        // A positive constant factor common to the operands comes out:
        // `max(a/ln 2, b/ln 2) = max(a, b)/ln 2` (base-2 exponentials' running maxima).
        if let Some((c, ks)) = self.extremum_factor(ops) {
            let scaled: Vec<Rc<Rf>> = ops
                .iter()
                .map(|op| {
                    let mut v: Vec<(Mono, BigRational)> =
                        op.n.0
                            .iter()
                            .map(|(m, k)| {
                                let atoms: Vec<(AtomId, i32)> = m
                                    .atoms
                                    .iter()
                                    .copied()
                                    .filter(|x| !ks.contains(x))
                                    .collect();
                                (
                                    Mono {
                                        exp: m.exp,
                                        atoms: atoms.into(),
                                    },
                                    k / &c,
                                )
                            })
                            .collect();
                    v.sort_by(|a, b| a.0.cmp(&b.0));
                    Rc::new(Rf::poly(Poly(v)))
                })
                .collect();
            let r = self.extremum(&scaled, is_max)?;
            let f = Rf::poly(Poly::mono(
                Mono {
                    exp: 0,
                    atoms: ks.into(),
                },
                c,
            ));
            return Ok(self.mul(&r, &f)?);
        }
        let mut ids: Vec<RfId> = Vec::with_capacity(ops.len());
        let mut best: Option<BigRational> = None;
        for op in ops {
            // Flatten a nested extremum of the same kind.
            if op.d.is_one() {
                if let Some((m, c)) = op.n.single() {
                    if c.is_one() && m.exp == 0 && m.atoms.len() == 1 && m.atoms[0].1 == 1 {
                        match &self.atoms[m.atoms[0].0 as usize] {
                            Atom::Max(inner) if is_max => {
                                ids.extend_from_slice(inner);
                                continue;
                            }
                            Atom::Min(inner) if !is_max => {
                                ids.extend_from_slice(inner);
                                continue;
                            }
                            _ => {}
                        }
                    }
                }
            }
            if let Some(c) = op.as_const() {
                let better = match &best {
                    None => true,
                    Some(b) => (c > *b) == is_max,
                };
                if better {
                    best = Some(c);
                }
                continue;
            }
            ids.push(self.rf_id(op));
        }
        if let Some(b) = best {
            ids.push(self.rf_id(&Rf::constant(b)));
        }
        ids.sort_unstable();
        ids.dedup();
        if (!self.assignment.is_empty() || self.split_extrema) && ids.len() > 1 {
            ids = self.drop_dominated(ids, is_max)?;
        }
        if ids.len() == 1 {
            return Ok(self.rf(ids[0]).clone());
        }
        let a = if is_max {
            Atom::Max(ids.into())
        } else {
            Atom::Min(ids.into())
        };
        Ok(self.atom_rf(a))
    }

    /// Drops the operands of a max (min) that the current case shows to be no larger
    /// (no smaller) than another operand. Looks up existing condition atoms only.
    pub(super) fn drop_dominated(
        &mut self,
        ids: Vec<RfId>,
        is_max: bool,
    ) -> Result<Vec<RfId>, Halt> {
        let mut keep = vec![true; ids.len()];
        // Without case literals nothing is known to order two operands (constant
        // differences are skipped below too): the pairwise walk, quadratic in the
        // operands, would find nothing.
        let pairs = if self.assignment.is_empty() {
            0
        } else {
            ids.len()
        };
        for i in 0..pairs {
            for j in 0..ids.len() {
                if i == j || !keep[i] || !keep[j] {
                    continue;
                }
                // Is ids[i] >= ids[j] (max) / ids[i] <= ids[j] (min) known?
                let (a, b) = (self.rf(ids[i]).clone(), self.rf(ids[j]).clone());
                let d = if is_max {
                    self.sub(&b, &a)?
                } else {
                    self.sub(&a, &b)?
                };
                // d = the amount by which j beats i; "not (d > 0)" means i wins.
                if d.as_const().is_some() {
                    continue;
                }
                if self.implied_pos(&d) == Some(false) {
                    keep[j] = false;
                    continue;
                }
                let key = self.pos_key(&d);
                if let Some(id) = self.conds.get(&key) {
                    if self.assignment.get(id) == Some(&false) {
                        keep[j] = false;
                    }
                }
                let nd = self.scale(&d, &rat(-1));
                let key = self.pos_key(&nd);
                if let Some(id) = self.conds.get(&key) {
                    if self.assignment.get(id) == Some(&true) {
                        keep[j] = false;
                    }
                }
            }
        }
        // Two operands the case does not order: split on their order when asked to.
        if self.split_extrema && ids.len() == 2 && keep[0] && keep[1] {
            let (a, b) = (self.rf(ids[0]).clone(), self.rf(ids[1]).clone());
            // d > 0 means ids[1] beats ids[0].
            let d = if is_max {
                self.sub(&b, &a)?
            } else {
                self.sub(&a, &b)?
            };
            if d.as_const().is_none() {
                let key = self.pos_key(&d);
                if self.cond_literal(key, true)? {
                    keep[0] = false;
                } else {
                    keep[1] = false;
                }
            }
        }
        Ok(ids
            .into_iter()
            .zip(keep)
            .filter_map(|(id, k)| k.then_some(id))
            .collect())
    }
}
/// `Some(k)` when `c = base^k` for an integer `k ≠ 0`.
fn int_log(c: &BigRational, base: i64) -> Option<i64> {
    if !c.is_positive() || c.is_one() {
        return None;
    }
    let b = num_bigint::BigInt::from(base);
    let (mut n, neg) = if c.is_integer() {
        (c.numer().clone(), false)
    } else if c.numer().is_one() {
        (c.denom().clone(), true)
    } else {
        return None;
    };
    let mut k = 0i64;
    while n > num_bigint::BigInt::one() {
        if (&n % &b) != num_bigint::BigInt::zero() {
            return None;
        }
        n /= &b;
        k += 1;
    }
    Some(if neg { -k } else { k })
}

trait Pipe: Sized {
    fn pipe<R>(self, f: impl FnOnce(Self) -> R) -> R {
        f(self)
    }
}
impl<T> Pipe for T {}
