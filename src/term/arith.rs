//! The arithmetic smart constructors: `sum`, `product`, powers, `sign` and function
//! calls, with the exact constant folds and IEEE infinity/NaN rules the crate doc lists.
//!
//! Invariant: every fold is exact (rationals, never floats) and sound for finite real
//! inputs; one that holds only for finite operands is applied only where no operand can
//! be ±inf or NaN.

use super::node::*;
use super::store::*;
use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// Largest number of bits a folded power of a constant may have; beyond it the power
/// stays an unfolded `Pow` node (so that `powi(3/2, i32::MAX)` cannot exhaust memory).
pub(super) const MAX_FOLD_BITS: u64 = 1 << 16;

impl Terms {
    // ---- arithmetic ----------------------------------------------------------------

    /// Splits a summand into (coefficient, base): `c * rest` → (c, rest).
    pub(super) fn split_coeff(&mut self, id: TermId) -> (BigRational, TermId) {
        if let Node::Mul(ops) = self.node(id) {
            // `0 · t` (t maybe non-finite) is NaN where t is infinite: not a multiple of t.
            if let Some(c) = self.as_const(ops[0]).filter(|c| !c.is_zero()) {
                let c = c.clone();
                let rest: Vec<TermId> = ops[1..].to_vec();
                let base = if rest.len() == 1 {
                    rest[0]
                } else {
                    self.intern(Node::Mul(rest.into()))
                };
                return (c, base);
            }
        }
        (rat(1), id)
    }

    /// n-ary sum: flattens, folds constants, combines like terms (`x + 2*x = 3*x`,
    /// `x - x = 0`), applies the ±inf rules, sorts. `sum(&[]) = 0`, `sum(&[a]) = a`.
    pub fn sum(&mut self, terms: &[TermId]) -> TermId {
        // Distinct plain summands (a matmul's products): the general path below would
        // give `Add` of them sorted, without its coefficient bookkeeping.
        if terms.len() >= 2 {
            let plain = |t: TermId| match self.node(t) {
                Node::Add(_) | Node::Const(_) | Node::Inf { .. } | Node::NaN => false,
                Node::Mul(ops) => self.as_const(ops[0]).is_none(),
                _ => true,
            };
            if terms.iter().all(|&t| plain(t)) {
                let mut ops = terms.to_vec();
                ops.sort_unstable();
                if ops.windows(2).all(|w| w[0] != w[1]) {
                    return self.intern(Node::Add(ops.into()));
                }
            }
        }
        let mut flat: Vec<TermId> = Vec::with_capacity(terms.len());
        for &t in terms {
            match self.node(t) {
                Node::Add(ops) => flat.extend_from_slice(ops),
                _ => flat.push(t),
            }
        }
        let mut constant = rat(0);
        let (mut pos_inf, mut neg_inf) = (false, false);
        let mut others: Vec<TermId> = Vec::with_capacity(flat.len());
        for &t in &flat {
            match self.node(t) {
                Node::NaN => return self.nan(),
                Node::Const(c) => super::dyadic::add_assign(&mut constant, c),
                Node::Inf { negative: true } => neg_inf = true,
                Node::Inf { negative: false } => pos_inf = true,
                _ => others.push(t),
            }
        }
        if pos_inf && neg_inf {
            return self.nan();
        }
        if pos_inf || neg_inf {
            // Finite summands do not matter; a summand that may be non-finite (`x * inf`,
            // a select with an infinite branch) might be the opposite infinity or NaN,
            // so then the sum stays symbolic.
            let inf = self.inf(neg_inf);
            if !others.iter().any(|&o| self.may_be_nonfinite(o)) {
                return inf;
            }
            // Finite summands are dropped all the same (keeps the result associative).
            let mut ops: Vec<TermId> = others
                .into_iter()
                .filter(|&o| self.may_be_nonfinite(o))
                .collect();
            ops.push(inf);
            ops.sort_unstable();
            ops.dedup();
            return self.intern(Node::Add(ops.into()));
        }
        // Combine like terms: (base, coefficient) sorted by base.
        let mut pairs: Vec<(TermId, BigRational)> = Vec::with_capacity(others.len());
        for &t in &others {
            let (c, b) = self.split_coeff(t);
            pairs.push((b, c));
        }
        pairs.sort_by_key(|p| p.0);
        let mut ops: Vec<TermId> = Vec::with_capacity(pairs.len() + 1);
        let mut i = 0;
        while i < pairs.len() {
            let base = pairs[i].0;
            let mut coeff = pairs[i].1.clone();
            let mut j = i + 1;
            while j < pairs.len() && pairs[j].0 == base {
                super::dyadic::add_assign(&mut coeff, &pairs[j].1);
                j += 1;
            }
            i = j;
            if coeff.is_zero() {
                // `t - t` is 0 for finite t, NaN where t is infinite: `0 · t` keeps that.
                if self.may_be_nonfinite(base) {
                    let z = self.zero();
                    ops.push(self.product(&[z, base]));
                }
                continue;
            }
            let term = if coeff.is_one() {
                base
            } else {
                let c = self.constant(coeff);
                self.product(&[c, base])
            };
            ops.push(term);
        }
        ops.sort_unstable();
        if !constant.is_zero() {
            let c = self.constant(constant);
            ops.insert(0, c);
        }
        match ops.len() {
            0 => self.zero(),
            1 => ops[0],
            _ => self.intern(Node::Add(ops.into())),
        }
    }
    pub fn add(&mut self, a: TermId, b: TermId) -> TermId {
        self.sum(&[a, b])
    }
    pub fn sub(&mut self, a: TermId, b: TermId) -> TermId {
        let nb = self.neg(b);
        self.sum(&[a, nb])
    }
    pub fn neg(&mut self, a: TermId) -> TermId {
        let m1 = self.int(-1);
        self.product(&[m1, a])
    }

    /// n-ary product: flattens, folds constants, merges repeated factors into powers
    /// (`x * x = x^2`, but only powers of the same sign: `x * x^-1` is *not* cancelled,
    /// so that the precondition `x ≠ 0` survives), applies the ±inf rules, sorts.
    /// A constant factor 0 gives 0. `product(&[]) = 1`, `product(&[a]) = a`.
    pub fn product(&mut self, terms: &[TermId]) -> TermId {
        // Two distinct plain factors (a matmul's `a[i,k] * b[k,j]`): the general path
        // below would give `Mul([a, b])` sorted, without its constant bookkeeping.
        if let [a, b] = *terms {
            let plain = |t: TermId| {
                !matches!(
                    self.node(t),
                    Node::Mul(_) | Node::Const(_) | Node::Inf { .. } | Node::NaN | Node::Pow(..)
                )
            };
            if a != b && plain(a) && plain(b) {
                return self.intern(Node::Mul(Box::new([a.min(b), a.max(b)])));
            }
        }
        let mut flat: Vec<TermId> = Vec::with_capacity(terms.len());
        for &t in terms {
            match self.node(t) {
                Node::Mul(ops) => flat.extend_from_slice(ops),
                _ => flat.push(t),
            }
        }
        let mut constant = rat(1);
        let mut infs = 0usize;
        let mut negative = false;
        // (base, exponent) of the non-constant factors.
        let mut pairs: Vec<(TermId, i64)> = Vec::with_capacity(flat.len());
        for &t in &flat {
            match self.node(t) {
                Node::NaN => return self.nan(),
                Node::Const(c) => super::dyadic::mul_assign(&mut constant, c),
                Node::Inf { negative: n } => {
                    infs += 1;
                    negative ^= *n;
                }
                Node::Pow(b, k) => pairs.push((*b, *k as i64)),
                _ => pairs.push((t, 1)),
            }
        }
        if infs > 0 {
            if constant.is_zero() {
                return self.nan();
            }
            negative ^= constant.is_negative();
            let inf = self.inf(negative);
            if pairs.is_empty() {
                return inf;
            }
            constant = rat(1);
            pairs.push((inf, 1));
        } else if constant.is_zero() {
            // `0 · t` is 0 for finite t and NaN where t is ±inf: keep just the factors
            // that may be non-finite (the others cannot change the value).
            pairs.retain(|&(b, _)| self.may_be_nonfinite(b));
            if pairs.is_empty() {
                return self.zero();
            }
        }
        // Merge powers of the same base and the same exponent sign.
        pairs.sort_by_key(|&(b, k)| (b, k < 0));
        let mut ops: Vec<TermId> = Vec::with_capacity(pairs.len() + 1);
        let mut i = 0;
        while i < pairs.len() {
            let (base, k0) = pairs[i];
            let mut k = k0;
            let mut j = i + 1;
            while j < pairs.len() && pairs[j].0 == base && (pairs[j].1 < 0) == (k0 < 0) {
                match i32::try_from(k + pairs[j].1) {
                    Ok(_) => k += pairs[j].1,
                    Err(_) => break,
                }
                j += 1;
            }
            i = j;
            let f = if k == 1 {
                base
            } else {
                self.powi(base, k as i32)
            };
            // An unfoldable power of a constant stays a factor; a folded one joins the
            // constant.
            match self.node(f) {
                Node::Const(c) => super::dyadic::mul_assign(&mut constant, c),
                _ => ops.push(f),
            }
        }
        // `0 · t` is 0 only for finite t: IEEE makes it NaN where t is ±inf, so with a
        // factor that may be non-finite the zero stays (`Mul([0, t])`).
        if constant.is_zero() {
            ops.retain(|&o| self.may_be_nonfinite(o));
            if ops.is_empty() {
                return self.zero();
            }
        }
        ops.sort_unstable();
        if !constant.is_one() {
            let c = self.constant(constant);
            ops.insert(0, c);
        }
        match ops.len() {
            0 => self.one(),
            1 => ops[0],
            _ => self.intern(Node::Mul(ops.into())),
        }
    }
    pub fn mul(&mut self, a: TermId, b: TermId) -> TermId {
        self.product(&[a, b])
    }
    pub fn div(&mut self, a: TermId, b: TermId) -> TermId {
        let rb = self.recip(b);
        self.product(&[a, rb])
    }
    pub fn recip(&mut self, a: TermId) -> TermId {
        self.powi(a, -1)
    }

    /// `a^k`. Folds constants exactly (`0^k = +inf` for `k < 0`),
    /// `a^0 = 1`, `a^1 = a`, `(x^a)^b = x^(a·b)`, `(x·y)^k = x^k · y^k`, and the ±inf
    /// rules (`inf^-1 = 0`).
    pub fn powi(&mut self, a: TermId, k: i32) -> TermId {
        if self.is_nan(a) {
            return a;
        }
        if k == 0 {
            return self.one();
        }
        if k == 1 {
            return a;
        }
        match self.node(a).clone() {
            Node::Const(c) => {
                if c.is_zero() {
                    // IEEE: 1/0 = +inf (a zero's sign is not tracked: every zero is +0).
                    return if k > 0 { a } else { self.inf(false) };
                } else {
                    let bits = c.numer().bits().max(c.denom().bits());
                    if bits.saturating_mul(k.unsigned_abs() as u64) <= MAX_FOLD_BITS {
                        return self.constant(num_traits::Pow::pow(&c, k));
                    }
                }
            }
            Node::Inf { negative } => {
                if k < 0 {
                    return self.zero();
                }
                return self.inf(negative && k % 2 != 0);
            }
            Node::Pow(b, j) => {
                if let Ok(jk) = i32::try_from(j as i64 * k as i64) {
                    return self.powi(b, jk);
                }
            }
            // `(x·inf)^-1` is not `x^-1 · 0`: at x = 0 it is NaN (0·inf), so a negative
            // power of a product with a non-finite factor stays a `Pow` of the `Mul`.
            Node::Mul(ops) if k > 0 || !ops.iter().any(|&o| self.may_be_nonfinite(o)) => {
                let pows: Vec<TermId> = ops.iter().map(|&o| self.powi(o, k)).collect();
                return self.product(&pows);
            }
            _ => {}
        }
        self.intern(Node::Pow(a, k))
    }

    /// `a^k` for a non-integer constant `k`: `exp(k · log a)`, PyTorch's `pow(a, k)`
    /// over the extended reals (`0^k = 0` for `k > 0` through `exp(-inf)`, `+inf` for
    /// `k < 0`; NaN for `a < 0`, where `log` is NaN).
    pub fn pow_real(&mut self, a: TermId, k: BigRational) -> TermId {
        let l = self.call(Func::Log, a);
        let k = self.constant(k);
        let e = self.mul(k, l);
        self.call(Func::Exp, e)
    }

    /// `sign(a)`: 1, -1 or 0 (PyTorch's, where NaN gives 0: both comparisons fail).
    pub fn sign(&mut self, a: TermId) -> TermId {
        let z = self.zero();
        let (pos, neg) = (self.cmp(CmpOp::Gt, a, z), self.cmp(CmpOp::Lt, a, z));
        let (one, m1) = (self.one(), self.int(-1));
        let n = self.select(neg, m1, z);
        self.select(pos, one, n)
    }

    // ---- functions -----------------------------------------------------------------

    /// `f(a)`. Folds only where the result is exact: `exp(0) = 1`, `exp2(k) = 2^k` for
    /// integer `k`, `log(1) = 0`, `log2(2^k) = k`, `sqrt`/`rsqrt` of perfect squares,
    /// `abs`/`floor`/`ceil` of constants, `sin(0) = tanh(0) = erf(0) = 0`, `cos(0) = 1`;
    /// the IEEE values at ±inf; `abs`, `floor`, `ceil` are idempotent.
    pub fn call(&mut self, f: Func, a: TermId) -> TermId {
        if self.is_nan(a) {
            return a;
        }
        if let Some(negative) = self.as_inf(a) {
            return match (f, negative) {
                (Func::Exp | Func::Exp2, true) => self.zero(),
                (Func::Exp | Func::Exp2, false) => a,
                (Func::Log | Func::Log2 | Func::Sqrt, false) => a,
                (Func::Log | Func::Log2 | Func::Sqrt | Func::Rsqrt, true) => self.nan(),
                (Func::Rsqrt, false) => self.zero(),
                (Func::Tanh | Func::Erf, n) => self.int(if n { -1 } else { 1 }),
                (Func::Sin | Func::Cos, _) => self.nan(),
                (Func::Abs, _) => self.inf(false),
                (Func::Floor | Func::Ceil | Func::Rint, _) => a,
                (Func::RoundF16 | Func::RoundBf16 | Func::RoundTf32, _) => a,
            };
        }
        if let Some(c) = self.as_const(a) {
            let c = c.clone();
            // The IEEE values outside the real domain: log(0) = -inf, rsqrt(0) = +inf,
            // log/sqrt/rsqrt of a negative number are NaN.
            match f {
                Func::Log | Func::Log2 if c.is_zero() => return self.inf(true),
                Func::Rsqrt if c.is_zero() => return self.inf(false),
                Func::Log | Func::Log2 | Func::Sqrt | Func::Rsqrt if c.is_negative() => {
                    return self.nan()
                }
                _ => {}
            }
            if let Some(v) = fold_call(f, &c) {
                return self.constant(v);
            }
        } else if matches!(f, Func::Log | Func::Log2 | Func::Sqrt | Func::Rsqrt)
            && self.closed[a.0 as usize]
        {
            // A closed argument (`log(log(1/2))`) clearly below 0 is outside the domain
            // for every input: IEEE's NaN, not a precondition.
            let v = self.eval(a, &|_, _| f64::NAN, &|_| f64::NAN);
            if v < -1e-9 || v.is_nan() {
                return self.nan();
            }
        }
        if matches!(f, Func::Abs | Func::Floor | Func::Ceil | Func::Rint) || f.is_rounding() {
            if let Node::Call(g, _) = self.node(a) {
                if *g == f {
                    return a;
                }
            }
        }
        self.intern(Node::Call(f, a))
    }
}

/// Exact value of `f(c)` where it is rational (see [`Terms::call`]).
pub(super) fn fold_call(f: Func, c: &BigRational) -> Option<BigRational> {
    let zero = c.is_zero();
    match f {
        Func::Exp if zero => Some(rat(1)),
        Func::Exp2 if c.is_integer() => {
            let k = c
                .to_integer()
                .to_i32()
                .filter(|k| k.unsigned_abs() <= 4096)?;
            Some(num_traits::Pow::pow(&rat(2), k))
        }
        Func::Log if c.is_one() => Some(rat(0)),
        Func::Log2 if c.is_positive() => {
            // c = 2^k exactly?
            let (n, d) = (c.numer(), c.denom());
            let one = BigInt::from(1);
            if d.is_one() && (n & (n - &one)).is_zero() {
                Some(rat(n.bits() as i64 - 1))
            } else if n.is_one() && (d & (d - &one)).is_zero() {
                Some(rat(-(d.bits() as i64 - 1)))
            } else {
                None
            }
        }
        Func::Sqrt if !c.is_negative() => exact_sqrt(c),
        Func::Rsqrt if c.is_positive() => exact_sqrt(c).map(|r| r.recip()),
        Func::Sin | Func::Tanh | Func::Erf if zero => Some(rat(0)),
        Func::Cos if zero => Some(rat(1)),
        Func::Abs => Some(c.abs()),
        Func::Floor => Some(c.floor()),
        Func::Ceil => Some(c.ceil()),
        Func::Rint => {
            // Nearest integer, a tie (a fraction of exactly 1/2) to the even one.
            let fl = c.floor();
            let up = fl.clone() + rat(1);
            Some(match (c - &fl).cmp(&(rat(1) / rat(2))) {
                std::cmp::Ordering::Less => fl,
                std::cmp::Ordering::Greater => up,
                std::cmp::Ordering::Equal if fl.to_integer().is_even() => fl,
                std::cmp::Ordering::Equal => up,
            })
        }
        // Only a constant that is an f64 exactly: rounding its f64 once is exact (a
        // rational between f64s would be rounded twice).
        Func::RoundF16 | Func::RoundBf16 | Func::RoundTf32 => {
            let x = c.to_f64()?;
            let r = super::eval::eval_func(f, x);
            (BigRational::from_float(x).as_ref() == Some(c) && r.is_finite())
                .then(|| BigRational::from_float(r))
                .flatten()
        }
        _ => None,
    }
}

pub(super) fn exact_sqrt(c: &BigRational) -> Option<BigRational> {
    let n = c.numer().sqrt();
    let d = c.denom().sqrt();
    if &(&n * &n) == c.numer() && &(&d * &d) == c.denom() {
        Some(BigRational::new(n, d))
    } else {
        None
    }
}
