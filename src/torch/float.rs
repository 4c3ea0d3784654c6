//! The float type of the kernel under check, and rounding an exact rational to it (how
//! decimal literals and irrational constants of a spec become values).

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// The float type of the kernel under check: decimal constants of the spec are rounded to
/// it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FloatType {
    #[default]
    F32,
    F64,
    F16,
    BF16,
}

impl FloatType {
    /// (precision in bits including the implicit one, minimum normal exponent, maximum
    /// exponent).
    fn format(self) -> (u32, i64, i64) {
        match self {
            FloatType::F64 => (53, -1022, 1023),
            FloatType::F32 => (24, -126, 127),
            FloatType::F16 => (11, -14, 15),
            FloatType::BF16 => (8, -126, 127),
        }
    }

    /// The value of this type nearest to `r` (ties to even; ±inf beyond the largest
    /// finite value), as an f64 (exact: every value of these types is an f64).
    pub fn round(self, r: &BigRational) -> f64 {
        if r.is_zero() {
            return 0.0;
        }
        let (prec, emin, emax) = self.format();
        let a = r.abs();
        let mut e = a.numer().bits() as i64 - a.denom().bits() as i64;
        // Now 2^(e-1) < a < 2^(e+1); make it 2^e <= a < 2^(e+1).
        if a < pow2(e) {
            e -= 1;
        }
        let e = e.max(emin);
        let k = e - (prec as i64 - 1);
        let scaled = &a / pow2(k);
        let floor = scaled.floor();
        let frac = &scaled - &floor;
        let half = BigRational::new(BigInt::from(1), BigInt::from(2));
        let mut m = floor.to_integer();
        let odd = (&m % BigInt::from(2)) == BigInt::one();
        if frac > half || (frac == half && odd) {
            m += 1;
        }
        // Largest finite: (2^prec - 1) * 2^(emax - prec + 1).
        let top = emax - prec as i64 + 1;
        let max = BigRational::from_integer((BigInt::one() << prec) - 1) * pow2(top);
        let too_big = BigRational::from_integer(m.clone()) * pow2(k) > max;
        let v = if too_big {
            f64::INFINITY
        } else {
            ldexp(m.to_f64().unwrap_or(f64::INFINITY), k)
        };
        if r.is_negative() {
            -v
        } else {
            v
        }
    }

    /// Whether every value of `other` is a value of `self` (a conversion from `other` to
    /// `self` is exact).
    pub fn holds_all_of(self, other: FloatType) -> bool {
        let (p, lo, hi) = self.format();
        let (q, lo2, hi2) = other.format();
        p >= q && lo <= lo2 && hi >= hi2
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            FloatType::F64 => "float64",
            FloatType::F32 => "float32",
            FloatType::F16 => "float16",
            FloatType::BF16 => "bfloat16",
        }
    }

    /// `torch.finfo(dtype).eps`.
    pub fn epsilon(self) -> f64 {
        let (prec, _, _) = self.format();
        ldexp(1.0, -(prec as i64 - 1))
    }
}

fn pow2(k: i64) -> BigRational {
    if k >= 0 {
        BigRational::from_integer(BigInt::one() << k as usize)
    } else {
        BigRational::new(BigInt::one(), BigInt::one() << (-k) as usize)
    }
}

/// `x * 2^k`, exact whenever the result is representable.
fn ldexp(mut x: f64, mut k: i64) -> f64 {
    let p2 = |j: i64| f64::from_bits(((j + 1023) as u64) << 52);
    while k > 900 {
        x *= p2(900);
        k -= 900;
    }
    while k < -900 {
        x *= p2(-900);
        k += 900;
    }
    x * p2(k)
}
