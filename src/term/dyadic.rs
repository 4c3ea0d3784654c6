//! Exact constant arithmetic that keeps dyadic rationals (`m · 2^e`) cheap.
//!
//! Every f16/f32/f64 constant is dyadic, and so is every sum, difference and product of
//! dyadics: a libdevice polynomial's coefficients stay dyadic through a whole Horner
//! chain. `BigRational`'s own `+` and `*` normalise by a gcd (big-integer divisions)
//! at every step; here two dyadics combine by shifts and a count of trailing zeros
//! instead, and only a non-dyadic operand (a true division happened) takes the
//! general path. `BigRational`'s `Hash` expands a continued fraction; [`hash`] hashes
//! the numerator and denominator instead.
//!
//! Invariant: every result is the exact value, in lowest terms with a positive
//! denominator (the form `BigRational::new` gives), so `==` and [`hash`] agree with
//! the general path's results.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};

/// `e` where `d = 2^e` (`d > 0`), else `None`.
fn log2_exact(d: &BigInt) -> Option<u64> {
    let tz = d.trailing_zeros()?;
    (d.bits() == tz + 1).then_some(tz)
}

/// `n / 2^e` in lowest terms.
fn dyadic(n: BigInt, e: u64) -> BigRational {
    if n.is_zero() {
        return BigRational::zero();
    }
    let tz = n.trailing_zeros().unwrap_or(0).min(e);
    let n = if tz > 0 { n >> tz } else { n };
    BigRational::new_raw(n, BigInt::one() << (e - tz))
}

/// `acc += c`, exactly.
pub(super) fn add_assign(acc: &mut BigRational, c: &BigRational) {
    if c.is_zero() {
        return;
    }
    if acc.is_zero() {
        *acc = c.clone();
        return;
    }
    match (log2_exact(acc.denom()), log2_exact(c.denom())) {
        (Some(p), Some(q)) => {
            let m = p.max(q);
            let n = (acc.numer() << (m - p)) + (c.numer() << (m - q));
            *acc = dyadic(n, m);
        }
        _ => *acc += c,
    }
}

/// `acc *= c`, exactly.
pub(super) fn mul_assign(acc: &mut BigRational, c: &BigRational) {
    if acc.is_zero() || c.is_one() {
        return;
    }
    if c.is_zero() {
        *acc = BigRational::zero();
        return;
    }
    match (log2_exact(acc.denom()), log2_exact(c.denom())) {
        (Some(p), Some(q)) => *acc = dyadic(acc.numer() * c.numer(), p + q),
        _ => *acc *= c,
    }
}

/// `a · b`, exactly (by shifts where both are dyadic).
pub fn mul(a: &BigRational, b: &BigRational) -> BigRational {
    let mut p = a.clone();
    mul_assign(&mut p, b);
    p
}

/// The exact value of a finite `x` (`None` for ±inf and NaN).
pub(super) fn from_f64(x: f64) -> Option<BigRational> {
    if !x.is_finite() {
        return None;
    }
    let bits = x.to_bits();
    let negative = bits >> 63 == 1;
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    // value = m · 2^(e): subnormals have no hidden bit and the least exponent.
    let (m, e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp - 1075)
    };
    let m = if negative {
        -BigInt::from(m)
    } else {
        BigInt::from(m)
    };
    Some(if e >= 0 {
        BigRational::from_integer(m << e as u64)
    } else {
        dyadic(m, (-e) as u64)
    })
}

/// Feeds `r`'s numerator and denominator to `state`: consistent with `==` on values in
/// lowest terms (every `BigRational` the crate builds).
pub(super) fn hash<H: std::hash::Hasher>(r: &BigRational, state: &mut H) {
    use std::hash::Hash;
    r.numer().hash(state);
    r.denom().hash(state);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i64, d: i64) -> BigRational {
        BigRational::new(n.into(), d.into())
    }

    #[test]
    fn dyadic_arithmetic_equals_the_general_path() {
        let xs = [
            r(0, 1),
            r(1, 1),
            r(-3, 1),
            r(6, 1),
            r(1, 2),
            r(-3, 8),
            r(5, 4),
            r(7, 1024),
            r(1, 3),
            r(-2, 7),
            r(5, 6),
        ];
        for a in &xs {
            for b in &xs {
                let mut s = a.clone();
                add_assign(&mut s, b);
                assert_eq!(s, a + b, "{a} + {b}");
                assert_eq!((s.numer(), s.denom()), ((a + b).numer(), (a + b).denom()));
                let mut p = a.clone();
                mul_assign(&mut p, b);
                assert_eq!(p, a * b, "{a} * {b}");
                assert_eq!((p.numer(), p.denom()), ((a * b).numer(), (a * b).denom()));
            }
        }
    }

    #[test]
    fn floats_read_exactly() {
        for x in [
            0.0,
            -0.0,
            1.0,
            -2.5,
            0.1,
            1e300,
            5e-324,
            -1.5e-310,
            3.0f32 as f64,
        ] {
            let got = from_f64(x).unwrap();
            let want = BigRational::from_float(x).unwrap();
            assert_eq!(
                (got.numer(), got.denom()),
                (want.numer(), want.denom()),
                "{x}"
            );
        }
        assert!(from_f64(f64::NAN).is_none() && from_f64(f64::INFINITY).is_none());
    }
}
