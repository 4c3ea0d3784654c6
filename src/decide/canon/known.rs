//! Known constants: the exact rationals that are the nearest f64 or f32 to `ln 2`,
//! `pi`, `1/3`, ... (and their folded products), read as those constants (docs/semantics.md,
//! Constants).

use crate::decide::poly::rat;
use num_rational::BigRational;
use num_traits::{Signed, ToPrimitive, Zero};
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

/// Known constants: (value, form). `e` is `exp(1)`; the others are monomials in
/// `ln2`, `ln10`, `sqrt(pi)`, `sqrt(2)` with rational coefficients (`1/3` is a rational).
#[derive(Clone, Copy, Debug)]
pub(super) enum Known {
    Ln2,
    Log2E,
    Ln10,
    Log10E,
    Log2Of10,
    Log10Of2,
    Pi,
    FracPi2,
    FracPi4,
    Frac1Pi,
    Frac2Pi,
    Tau,
    E,
    Sqrt2,
    FracSqrt2,
    SqrtPi,
    Frac2SqrtPi,
    Sqrt2OverPi,
    /// `1/3`: compilers and PyTorch alike hold it as the nearest float (`cbrtf`'s
    /// `0.33333334f`, a spec's `x ** (1/3)`), read as the exact third like the others.
    Third,
}

const KNOWN: [(f64, Known); 19] = {
    use std::f64::consts as k;
    [
        (k::LN_2, Known::Ln2),
        (k::LOG2_E, Known::Log2E),
        (k::LN_10, Known::Ln10),
        (k::LOG10_E, Known::Log10E),
        (k::LOG2_10, Known::Log2Of10),
        (k::LOG10_2, Known::Log10Of2),
        (k::PI, Known::Pi),
        (k::FRAC_PI_2, Known::FracPi2),
        (k::FRAC_PI_4, Known::FracPi4),
        (k::FRAC_1_PI, Known::Frac1Pi),
        (k::FRAC_2_PI, Known::Frac2Pi),
        (k::TAU, Known::Tau),
        (k::E, Known::E),
        (k::SQRT_2, Known::Sqrt2),
        (k::FRAC_1_SQRT_2, Known::FracSqrt2),
        (1.772_453_850_905_516, Known::SqrtPi),
        (k::FRAC_2_SQRT_PI, Known::Frac2SqrtPi),
        (0.797_884_560_802_865_4, Known::Sqrt2OverPi),
        (1.0 / 3.0, Known::Third),
    ]
};

/// The exact rationals that are the nearest f64 or f32 to a known constant, with the
/// f64 value of the constant itself.
fn known_table() -> &'static FxHashMap<BigRational, (Known, f64)> {
    static TABLE: OnceLock<FxHashMap<BigRational, (Known, f64)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut m = FxHashMap::default();
        for &(v, k) in KNOWN.iter() {
            for f in [v, v as f32 as f64] {
                if let Some(r) = BigRational::from_float(f) {
                    m.insert(r, (k, v));
                }
            }
        }
        m
    })
}

/// A constant recognised as `factor · K^power` for a known constant `K` (`power` is 1,
/// or -1 when `inverse`): the smart constructors fold `2 · f32(k)` and `1 / f32(ln2)`
/// into single rationals, which stand for `2k` and `1/ln2`; compilers fold
/// `c · f32(log2 e)` into one constant too (`exp2(x · c·log2e)` is `exp(c·x)`).
#[derive(Clone, Debug)]
pub(super) struct KnownMatch {
    pub known: Known,
    /// The f64 value of `K` itself.
    pub value: f64,
    pub factor: BigRational,
    pub inverse: bool,
}

pub(super) fn match_known(c: &BigRational) -> Option<KnownMatch> {
    if c.is_zero() {
        return None;
    }
    // Every table entry is dyadic, so `c` or `1/c` must be.
    let pow2 = |x: &num_bigint::BigInt| {
        let x = x.magnitude();
        x.count_ones() == 1
    };
    if !pow2(c.denom()) && !pow2(c.numer()) {
        return None;
    }
    let t = known_table();
    let negative = c.is_negative();
    let a = c.abs();
    for inverse in [false, true] {
        let base = if inverse { a.recip() } else { a.clone() };
        for shift in 0..=10i32 {
            for s in [shift, -shift] {
                if shift == 0 && s < 0 {
                    continue;
                }
                // base = 2^s · K  ⇔  base / 2^s = K
                let two = rat(2);
                let scaled = if s >= 0 {
                    &base / num_traits::Pow::pow(&two, s as u32)
                } else {
                    &base * num_traits::Pow::pow(&two, (-s) as u32)
                };
                if let Some(&(known, value)) = t.get(&scaled) {
                    // c = ±(2^s · K)^(±1)
                    let mut factor = if s >= 0 {
                        num_traits::Pow::pow(&two, s as u32)
                    } else {
                        num_traits::Pow::pow(&two, (-s) as u32).recip()
                    };
                    if inverse {
                        factor = factor.recip();
                    }
                    if negative {
                        factor = -factor;
                    }
                    return Some(KnownMatch {
                        known,
                        value,
                        factor,
                        inverse,
                    });
                }
            }
        }
    }
    // A product `q · f(K)` of a float `q` and the nearest float to `K`, folded into one
    // rational. Only a numerator divisible by f(K)'s odd mantissa (about 24 or 53 bits)
    // leaves a dyadic quotient, so plain float constants never match by accident.
    if !pow2(c.denom()) {
        return None;
    }
    for &(v, known) in KNOWN.iter() {
        for f in [v, v as f32 as f64] {
            let Some(r) = BigRational::from_float(f) else {
                continue;
            };
            let q = c / &r;
            if pow2(q.denom()) && q.numer().bits() <= 53 {
                return Some(KnownMatch {
                    known,
                    value: v,
                    factor: q,
                    inverse: false,
                });
            }
        }
    }
    None
}

/// The exact f64 value of a constant that stands for a known constant (see
/// [`KnownMatch`]).
pub(crate) fn known_value(c: &BigRational) -> Option<f64> {
    // Memoised per thread: every pair decided reads the kernel's constants again, and
    // matching one tries some forty scalings.
    thread_local! {
        static MEMO: std::cell::RefCell<FxHashMap<BigRational, Option<f64>>> =
            Default::default();
    }
    if let Some(v) = MEMO.with(|m| m.borrow().get(c).copied()) {
        return v;
    }
    let v = known_value_uncached(c);
    MEMO.with(|m| m.borrow_mut().insert(c.clone(), v));
    v
}

fn known_value_uncached(c: &BigRational) -> Option<f64> {
    let m = match_known(c)?;
    let k = if m.inverse { 1.0 / m.value } else { m.value };
    let factor = known_value(&m.factor).or_else(|| m.factor.to_f64())?;
    Some(factor * k)
}
