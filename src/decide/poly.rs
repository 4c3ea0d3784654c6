//! Laurent polynomials over exact rationals, with exponential parts.
//!
//! A [`Mono`] is `exp(q) · Π atomᵢ^eᵢ` (integer, possibly negative, exponents); `q` is
//! itself a polynomial, interned in [`Algebra`] as an [`ExpId`] (0 is the zero
//! polynomial, i.e. no exponential part). Monomials multiply by adding atom exponents
//! and adding exponent polynomials, so `exp(a)·exp(b) = exp(a+b)` holds by construction.
//! A [`Poly`] is a sorted list of distinct monomials with non-zero coefficients, so two
//! polynomials are equal iff their representations are equal.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};
use rustc_hash::FxHashMap;

pub(crate) type AtomId = u32;
pub(crate) type ExpId = u32;

/// Why a canonical form could not be built.
#[derive(Clone, Debug)]
pub(crate) struct Stop(pub String);

#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(crate) struct Mono {
    pub exp: ExpId,
    /// Sorted by atom id, no zero exponents.
    pub atoms: Box<[(AtomId, i32)]>,
}

impl Mono {
    pub fn one() -> Mono {
        Mono {
            exp: 0,
            atoms: Box::new([]),
        }
    }
    pub fn atom(a: AtomId, e: i32) -> Mono {
        Mono {
            exp: 0,
            atoms: Box::new([(a, e)]),
        }
    }
    pub fn is_one(&self) -> bool {
        self.exp == 0 && self.atoms.is_empty()
    }
}

/// Sorted by monomial, distinct monomials, no zero coefficients.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub(crate) struct Poly(pub Vec<(Mono, BigRational)>);

/// Hashes the monomials and the low digits of the coefficients. `BigRational`'s own
/// hash expands a continued fraction (divisions); coefficients here are always in
/// lowest terms, so equal polynomials have equal numerators and denominators and hash
/// alike.
impl std::hash::Hash for Poly {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_usize(self.0.len());
        for (m, c) in &self.0 {
            m.hash(state);
            let n = c.numer();
            state.write_u8(n.sign() as u8);
            state.write_u64(n.iter_u64_digits().next().unwrap_or(0));
            state.write_u64(c.denom().iter_u64_digits().next().unwrap_or(0));
        }
    }
}

pub(crate) fn rat(n: i64) -> BigRational {
    BigRational::from_integer(BigInt::from(n))
}

impl Poly {
    pub fn zero() -> Poly {
        Poly(Vec::new())
    }
    pub fn constant(c: BigRational) -> Poly {
        if c.is_zero() {
            Poly::zero()
        } else {
            Poly(vec![(Mono::one(), c)])
        }
    }
    pub fn one() -> Poly {
        Poly::constant(rat(1))
    }
    pub fn mono(m: Mono, c: BigRational) -> Poly {
        if c.is_zero() {
            Poly::zero()
        } else {
            Poly(vec![(m, c)])
        }
    }
    pub fn is_zero(&self) -> bool {
        self.0.is_empty()
    }
    pub fn is_one(&self) -> bool {
        self.0.len() == 1 && self.0[0].0.is_one() && self.0[0].1.is_one()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// The value of a constant polynomial (0 for the zero polynomial).
    pub fn as_const(&self) -> Option<BigRational> {
        match self.0.as_slice() {
            [] => Some(rat(0)),
            [(m, c)] if m.is_one() => Some(c.clone()),
            _ => None,
        }
    }
    pub fn single(&self) -> Option<(&Mono, &BigRational)> {
        match self.0.as_slice() {
            [(m, c)] => Some((m, c)),
            _ => None,
        }
    }
    pub fn add(&self, other: &Poly) -> Poly {
        let (a, b) = (&self.0, &other.0);
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => {
                    out.push(a[i].clone());
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push(b[j].clone());
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let c = &a[i].1 + &b[j].1;
                    if !c.is_zero() {
                        out.push((a[i].0.clone(), c));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
        Poly(out)
    }
    pub fn scale(&self, c: &BigRational) -> Poly {
        if c.is_zero() {
            return Poly::zero();
        }
        Poly(self.0.iter().map(|(m, k)| (m.clone(), k * c)).collect())
    }
    pub fn neg(&self) -> Poly {
        self.scale(&rat(-1))
    }
    /// Leading coefficient (of the smallest monomial); `None` for zero.
    pub fn lc(&self) -> Option<&BigRational> {
        self.0.first().map(|(_, c)| c)
    }
    /// Builds a polynomial from unsorted, possibly repeated terms.
    pub fn from_terms(terms: FxHashMap<Mono, BigRational>) -> Poly {
        let mut v: Vec<(Mono, BigRational)> =
            terms.into_iter().filter(|(_, c)| !c.is_zero()).collect();
        v.sort_unstable_by(|x, y| x.0.cmp(&y.0));
        Poly(v)
    }
}

/// The interned exponent polynomials and the algebraic facts about atoms
/// (`atom² = c` for square roots of constants).
pub(crate) struct Algebra {
    exps: Vec<Poly>,
    exp_ids: FxHashMap<Poly, ExpId>,
    add_cache: FxHashMap<(ExpId, ExpId), ExpId>,
    /// Atoms whose square is a known rational (`sqrt(2)² = 2`).
    pub squares: FxHashMap<AtomId, BigRational>,
    /// `log` atoms whose argument is one monomial `c · Π atomᵢ^eᵢ` (no exponential
    /// part; `c` may be negative, `-x`), canonicalised under the argument's `> 0`
    /// precondition:
    /// there `exp(k·log a) = a^k`, so an exponent keeps only the fractional part of
    /// `k` and the integer part becomes `a^⌊k⌋` (`|x|·exp(-2/3·log|x|) =
    /// exp(1/3·log|x|)`: the cube root's identities).
    pub logs: FxHashMap<AtomId, (Box<[(AtomId, i32)]>, BigRational)>,
    /// [`Algebra::split_logs`] per exponent.
    split_cache: FxHashMap<ExpId, Split>,
    /// [`Algebra::fingerprint`] per exponent, [`NO_PRINT`] until asked for.
    prints: Vec<u64>,
    pub limit: usize,
}

/// The prime of [`Algebra::fingerprint`]: 2^61 - 1.
pub(crate) const PRINT_PRIME: u64 = (1 << 61) - 1;
/// No fingerprint computed yet (not a residue mod [`PRINT_PRIME`]).
const NO_PRINT: u64 = u64::MAX;

/// `a · b mod PRINT_PRIME`.
pub(crate) fn print_mul(a: u64, b: u64) -> u64 {
    ((a as u128 * b as u128) % PRINT_PRIME as u128) as u64
}

/// `a^-1 mod PRINT_PRIME` (`a` not 0 mod the prime), by Fermat.
pub(crate) fn print_inv(a: u64) -> u64 {
    let (mut base, mut e, mut r) = (a % PRINT_PRIME, PRINT_PRIME - 2, 1u64);
    while e > 0 {
        if e & 1 == 1 {
            r = print_mul(r, base);
        }
        base = print_mul(base, base);
        e >>= 1;
    }
    r
}

/// `c mod PRINT_PRIME`, `None` where its denominator is a multiple of the prime.
fn print_of_rational(c: &BigRational) -> Option<u64> {
    use num_integer::Integer;
    use num_traits::ToPrimitive;
    let p = BigInt::from(PRINT_PRIME);
    let n = c.numer().mod_floor(&p).to_u64()?;
    let d = c.denom().mod_floor(&p).to_u64()?;
    (d != 0).then(|| print_mul(n, print_inv(d)))
}

/// An exponent split into its fractional part and the monomial `a^⌊k⌋` its log terms
/// leave: (exponent, atoms to multiply in, rational factor).
type Split = (ExpId, Box<[(AtomId, i32)]>, BigRational);

/// Adds `extra` atom exponents into the sorted `atoms`.
fn merge_atoms(atoms: &mut Vec<(AtomId, i32)>, extra: &[(AtomId, i32)]) -> Result<(), Stop> {
    for &(a, e) in extra {
        match atoms.binary_search_by_key(&a, |&(b, _)| b) {
            Ok(i) => {
                atoms[i].1 = atoms[i]
                    .1
                    .checked_add(e)
                    .ok_or_else(|| Stop("exponent overflow".into()))?;
            }
            Err(i) => atoms.insert(i, (a, e)),
        }
    }
    atoms.retain(|&(_, e)| e != 0);
    Ok(())
}

impl Algebra {
    pub fn new(limit: usize) -> Self {
        let mut alg = Algebra {
            exps: Vec::new(),
            exp_ids: FxHashMap::default(),
            add_cache: FxHashMap::default(),
            squares: FxHashMap::default(),
            logs: FxHashMap::default(),
            split_cache: FxHashMap::default(),
            prints: Vec::new(),
            limit,
        };
        alg.intern_exp(Poly::zero());
        alg
    }
    pub fn intern_exp(&mut self, p: Poly) -> ExpId {
        if let Some(&id) = self.exp_ids.get(&p) {
            return id;
        }
        let id = self.exps.len() as ExpId;
        self.exps.push(p.clone());
        self.exp_ids.insert(p, id);
        id
    }
    /// A linear fingerprint of the exponent `e` modulo [`PRINT_PRIME`]: `Σ c·h(m)` over
    /// its terms `c·m`, `h` a fixed hash of the monomial. Linear, so the fingerprint of
    /// `a + b - c` is computed from those of `a`, `b`, `c` without building the sum;
    /// equal exponents have equal fingerprints (unequal ones almost never do). Only a
    /// filter: whatever it selects is checked by exact arithmetic. `None` where a
    /// coefficient's denominator is a multiple of the prime.
    pub fn fingerprint(&mut self, e: ExpId) -> Option<u64> {
        use std::hash::{Hash, Hasher};
        if self.prints.len() <= e as usize {
            self.prints.resize(self.exps.len(), NO_PRINT);
        }
        let known = self.prints[e as usize];
        if known != NO_PRINT {
            return Some(known);
        }
        let mut sum = 0u64;
        for (m, c) in &self.exps[e as usize].0 {
            let mut h = rustc_hash::FxHasher::default();
            m.hash(&mut h);
            let term = print_mul(h.finish() % PRINT_PRIME, print_of_rational(c)?);
            sum = (sum + term) % PRINT_PRIME;
        }
        self.prints[e as usize] = sum;
        Some(sum)
    }

    pub fn exp_poly(&self, id: ExpId) -> &Poly {
        &self.exps[id as usize]
    }
    pub fn add_exp(&mut self, a: ExpId, b: ExpId) -> ExpId {
        if a == 0 {
            return b;
        }
        if b == 0 {
            return a;
        }
        let key = if a <= b { (a, b) } else { (b, a) };
        if let Some(&r) = self.add_cache.get(&key) {
            return r;
        }
        let p = self.exps[a as usize].add(&self.exps[b as usize]);
        let r = self.intern_exp(p);
        self.add_cache.insert(key, r);
        r
    }
    /// The exponent `-a`.
    pub fn neg_exp(&mut self, a: ExpId) -> ExpId {
        self.scale_exp(a, &rat(-1))
    }
    pub fn scale_exp(&mut self, a: ExpId, k: &BigRational) -> ExpId {
        if a == 0 || k.is_one() {
            return a;
        }
        let p = self.exps[a as usize].scale(k);
        self.intern_exp(p)
    }

    /// `exp(q)` as `exp(q') · a^w`: every `k·log a` term of `q` (see [`Algebra::logs`])
    /// with `k` outside `[0, 1)` keeps `k - ⌊k⌋`. The identity form when nothing splits.
    pub fn split_logs(&mut self, e: ExpId) -> Result<Split, Stop> {
        let identity = || (e, Box::<[(AtomId, i32)]>::default(), BigRational::one());
        if e == 0 || self.logs.is_empty() {
            return Ok(identity());
        }
        if let Some(s) = self.split_cache.get(&e) {
            return Ok(s.clone());
        }
        let mut atoms: Vec<(AtomId, i32)> = Vec::new();
        let mut factor = BigRational::one();
        let mut terms = Vec::with_capacity(self.exps[e as usize].len());
        for (m, c) in &self.exps[e as usize].0 {
            let log = match (m.exp, &*m.atoms) {
                (0, [(l, 1)]) => self.logs.get(l),
                _ => None,
            };
            let whole = c.floor().to_integer();
            let w = i32::try_from(&whole)
                .ok()
                .filter(|w| *w != 0 && w.abs() <= 64);
            match (log, w) {
                (Some((arg, coef)), Some(w)) => {
                    let scaled: Vec<(AtomId, i32)> = arg
                        .iter()
                        .map(|&(a, k)| k.checked_mul(w).map(|kw| (a, kw)))
                        .collect::<Option<_>>()
                        .ok_or_else(|| Stop("exponent overflow".into()))?;
                    merge_atoms(&mut atoms, &scaled)?;
                    factor *= num_traits::Pow::pow(coef, w);
                    let frac = c - BigRational::from_integer(whole);
                    if !frac.is_zero() {
                        terms.push((m.clone(), frac));
                    }
                }
                _ => terms.push((m.clone(), c.clone())),
            }
        }
        let split = if atoms.is_empty() && factor.is_one() {
            identity()
        } else {
            (self.intern_exp(Poly(terms)), atoms.into(), factor)
        };
        self.split_cache.insert(e, split.clone());
        Ok(split)
    }

    /// `exp(e)` as a monomial, its exponent split ([`Algebra::split_logs`]).
    pub fn exp_mono(&mut self, e: ExpId) -> Result<(Mono, BigRational), Stop> {
        self.finish(e, Vec::new())
    }

    /// The monomial `exp(e) · atoms` with its exponent split ([`Algebra::split_logs`])
    /// and square roots of constants reduced.
    fn finish(
        &mut self,
        e: ExpId,
        mut atoms: Vec<(AtomId, i32)>,
    ) -> Result<(Mono, BigRational), Stop> {
        let (exp, extra, mut factor) = self.split_logs(e)?;
        merge_atoms(&mut atoms, &extra)?;
        self.reduce(&mut atoms, &mut factor);
        Ok((
            Mono {
                exp,
                atoms: atoms.into(),
            },
            factor,
        ))
    }

    fn reduce(&self, atoms: &mut Vec<(AtomId, i32)>, factor: &mut BigRational) {
        if self.squares.is_empty() {
            return;
        }
        for (a, e) in atoms.iter_mut() {
            if let Some(sq) = self.squares.get(a) {
                if *e < 0 || *e > 1 {
                    let q = e.div_euclid(2);
                    *e = e.rem_euclid(2);
                    *factor *= num_traits::Pow::pow(sq, q);
                }
            }
        }
        atoms.retain(|&(_, e)| e != 0);
    }

    /// `a · b` as (monomial, rational factor).
    pub fn mono_mul(&mut self, a: &Mono, b: &Mono) -> Result<(Mono, BigRational), Stop> {
        let mut atoms = Vec::with_capacity(a.atoms.len() + b.atoms.len());
        let (x, y) = (&a.atoms, &b.atoms);
        let (mut i, mut j) = (0, 0);
        while i < x.len() && j < y.len() {
            match x[i].0.cmp(&y[j].0) {
                std::cmp::Ordering::Less => {
                    atoms.push(x[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    atoms.push(y[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    let e = x[i]
                        .1
                        .checked_add(y[j].1)
                        .ok_or_else(|| Stop("exponent overflow".into()))?;
                    if e != 0 {
                        atoms.push((x[i].0, e));
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
        atoms.extend_from_slice(&x[i..]);
        atoms.extend_from_slice(&y[j..]);
        let exp = self.add_exp(a.exp, b.exp);
        self.finish(exp, atoms)
    }

    /// `m^k` as (monomial, rational factor).
    pub fn mono_pow(&mut self, m: &Mono, k: i32) -> Result<(Mono, BigRational), Stop> {
        let mut atoms = Vec::with_capacity(m.atoms.len());
        for &(a, e) in m.atoms.iter() {
            let e = e
                .checked_mul(k)
                .ok_or_else(|| Stop("exponent overflow".into()))?;
            if e != 0 {
                atoms.push((a, e));
            }
        }
        let exp = self.scale_exp(m.exp, &rat(k as i64));
        self.finish(exp, atoms)
    }

    pub fn mul(&mut self, a: &Poly, b: &Poly) -> Result<Poly, Stop> {
        if a.is_zero() || b.is_zero() {
            return Ok(Poly::zero());
        }
        if a.is_one() {
            return Ok(b.clone());
        }
        if b.is_one() {
            return Ok(a.clone());
        }
        let work = a.len().saturating_mul(b.len());
        if work > self.limit.saturating_mul(64) {
            return Err(self.too_big(work));
        }
        let mut acc: FxHashMap<Mono, BigRational> = FxHashMap::default();
        acc.reserve(work.min(self.limit));
        for (ma, ca) in &a.0 {
            for (mb, cb) in &b.0 {
                let (m, f) = self.mono_mul(ma, mb)?;
                // Most factors are 1 (no exponential merged): a product by 1 is the
                // same rational, without another reduction by gcds.
                let c = if f.is_one() { ca * cb } else { ca * cb * f };
                match acc.entry(m) {
                    std::collections::hash_map::Entry::Occupied(mut o) => *o.get_mut() += c,
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(c);
                    }
                }
            }
            if acc.len() > self.limit {
                return Err(self.too_big(acc.len()));
            }
        }
        let p = Poly::from_terms(acc);
        if p.len() > self.limit {
            return Err(self.too_big(p.len()));
        }
        Ok(p)
    }

    pub fn too_big(&self, n: usize) -> Stop {
        Stop(format!(
            "expansion exceeds {} monomials in a product ({} terms)",
            self.limit, n
        ))
    }

    /// `p^k` for `k ≥ 0`.
    pub fn pow(&mut self, p: &Poly, k: u32) -> Result<Poly, Stop> {
        if k == 0 {
            return Ok(Poly::one());
        }
        if let Some((m, c)) = p.single() {
            let ki = i32::try_from(k).map_err(|_| Stop("exponent overflow".into()))?;
            let (m2, f) = self.mono_pow(m, ki)?;
            let bits = c.numer().bits().max(c.denom().bits());
            if bits.saturating_mul(k as u64) > 1 << 16 {
                return Err(Stop("constant power too large".into()));
            }
            return Ok(Poly::mono(m2, num_traits::Pow::pow(c, k) * f));
        }
        if k > 64 {
            return Err(Stop(format!(
                "expansion exceeds {} monomials in a power ^{k}",
                self.limit
            )));
        }
        let mut result = Poly::one();
        let mut base = p.clone();
        let mut e = k;
        loop {
            if e & 1 == 1 {
                result = self.mul(&result, &base)?;
            }
            e >>= 1;
            if e == 0 {
                break;
            }
            base = self.mul(&base, &base)?;
        }
        Ok(result)
    }

    /// `1 / (c · m)` as a polynomial (a single Laurent monomial).
    pub fn mono_inverse(&mut self, m: &Mono, c: &BigRational) -> Result<Poly, Stop> {
        let (mi, f) = self.mono_pow(m, -1)?;
        Ok(Poly::mono(mi, c.recip() * f))
    }
}
