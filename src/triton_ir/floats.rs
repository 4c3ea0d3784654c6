//! Float constants as MLIR prints them: decimal text rounded to the constant's type
//! (round to nearest, ties to even, computed exactly), or hex bit patterns decoded at
//! the type's width. Results are f64 values that equal the typed value exactly.
//!
//! Architecture invariant: pure functions, no panics; `None` means "not representable
//! / not a valid literal" and the caller reports where.

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// A binary float format the parser knows how to decode and round to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatFormat {
    F16,
    BF16,
    F32,
    F64,
    F8E5M2,
    F8E4M3FN,
}

/// Parameters of a small binary format: fraction bits, exponent bits, minimum normal
/// exponent, largest finite value, whether it has infinities.
struct Mini {
    frac: u32,
    exp_bits: u32,
    emin: i32,
    max_finite: f64,
    has_inf: bool,
}

impl FloatFormat {
    pub fn width(self) -> u32 {
        match self {
            FloatFormat::F16 | FloatFormat::BF16 => 16,
            FloatFormat::F32 => 32,
            FloatFormat::F64 => 64,
            FloatFormat::F8E5M2 | FloatFormat::F8E4M3FN => 8,
        }
    }

    fn mini(self) -> Option<Mini> {
        match self {
            FloatFormat::F16 => Some(Mini {
                frac: 10,
                exp_bits: 5,
                emin: -14,
                max_finite: 65504.0,
                has_inf: true,
            }),
            FloatFormat::BF16 => Some(Mini {
                frac: 7,
                exp_bits: 8,
                emin: -126,
                max_finite: (2.0 - 2f64.powi(-7)) * 2f64.powi(127),
                has_inf: true,
            }),
            FloatFormat::F8E5M2 => Some(Mini {
                frac: 2,
                exp_bits: 5,
                emin: -14,
                max_finite: 57344.0,
                has_inf: true,
            }),
            FloatFormat::F8E4M3FN => Some(Mini {
                frac: 3,
                exp_bits: 4,
                emin: -6,
                max_finite: 448.0,
                has_inf: false,
            }),
            FloatFormat::F32 | FloatFormat::F64 => None,
        }
    }
}

/// Decodes a bit pattern of the format's width. `None` if `bits` does not fit.
pub fn decode_bits(fmt: FloatFormat, bits: u128) -> Option<f64> {
    let w = fmt.width();
    if bits >> w != 0 {
        return None;
    }
    match fmt {
        FloatFormat::F32 => Some(f32::from_bits(bits as u32) as f64),
        FloatFormat::F64 => Some(f64::from_bits(bits as u64)),
        _ => {
            let m = fmt.mini()?;
            let bits = bits as u32;
            let sign = if (bits >> (w - 1)) & 1 == 1 {
                -1.0
            } else {
                1.0
            };
            let exp = (bits >> m.frac) & ((1 << m.exp_bits) - 1);
            let mant = bits & ((1 << m.frac) - 1);
            let all_ones = (1 << m.exp_bits) - 1;
            let bias = 1 - m.emin;
            if m.has_inf && exp == all_ones {
                return Some(if mant == 0 {
                    sign * f64::INFINITY
                } else {
                    f64::NAN
                });
            }
            if !m.has_inf && exp == all_ones && mant == (1 << m.frac) - 1 {
                return Some(f64::NAN);
            }
            let frac = m.frac as i32;
            let v = if exp == 0 {
                mant as f64 * 2f64.powi(m.emin - frac)
            } else {
                ((1u32 << m.frac) + mant) as f64 * 2f64.powi(exp as i32 - bias - frac)
            };
            Some(sign * v)
        }
    }
}

/// Rounds a decimal literal (`-1.000000e-01`, `3`, `0.044715`) to the format.
pub fn round_decimal(fmt: FloatFormat, text: &str) -> Option<f64> {
    match fmt {
        // Rust's parsers round correctly (no double rounding through f64).
        FloatFormat::F32 => text.parse::<f32>().ok().map(|v| v as f64),
        FloatFormat::F64 => text.parse::<f64>().ok(),
        _ => round_mini(fmt.mini()?, text),
    }
}

fn pow2(e: i64) -> BigRational {
    let one = BigInt::one();
    if e >= 0 {
        BigRational::from_integer(one << (e as usize))
    } else {
        BigRational::new(one.clone(), one << ((-e) as usize))
    }
}

fn round_mini(m: Mini, text: &str) -> Option<f64> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let sign = if neg { -1.0 } else { 1.0 };
    let (mant_text, exp10) = match body.find(['e', 'E']) {
        Some(i) => (body.get(..i)?, body.get(i + 1..)?.parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (int_part, frac_part) = match mant_text.find('.') {
        Some(i) => (mant_text.get(..i)?, mant_text.get(i + 1..)?),
        None => (mant_text, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    if !int_part
        .bytes()
        .chain(frac_part.bytes())
        .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let digits = format!("{int_part}{frac_part}");
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Some(sign * 0.0);
    }
    let e10 = exp10.checked_sub(frac_part.len() as i64)?;
    // Magnitude ~ 10^(e10 + len): far outside every format here, decide without bignums.
    let mag = e10.checked_add(digits.len() as i64)?;
    if mag > 60 {
        return if m.has_inf {
            Some(sign * f64::INFINITY)
        } else {
            None
        };
    }
    if mag < -80 {
        return Some(sign * 0.0);
    }
    let n = BigInt::parse_bytes(digits.as_bytes(), 10)?;
    let ten = BigInt::from(10u32);
    let r = if e10 >= 0 {
        BigRational::from_integer(n * num_traits::pow(ten, e10 as usize))
    } else {
        BigRational::new(n, num_traits::pow(ten, (-e10) as usize))
    };
    // Binary exponent E with 2^E <= r < 2^(E+1).
    let e0 = r.numer().bits() as i64 - r.denom().bits() as i64;
    let e = if r >= pow2(e0) { e0 } else { e0 - 1 };
    let q = e.max(m.emin as i64) - m.frac as i64;
    let scaled = r * pow2(-q);
    let fl = scaled.floor();
    let rem = &scaled - &fl;
    let half = BigRational::new(BigInt::one(), BigInt::from(2u32));
    let mut k = fl.to_integer();
    if rem > half || (rem == half && k.is_odd()) {
        k += 1;
    }
    debug_assert!(!k.is_negative());
    let k = k.to_u64()?;
    let v = k as f64 * 2f64.powi(i32::try_from(q).ok()?);
    if v > m.max_finite {
        return if m.has_inf {
            Some(sign * f64::INFINITY)
        } else {
            None
        };
    }
    if v.is_zero() {
        return Some(sign * 0.0);
    }
    Some(sign * v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_hex_patterns() {
        assert_eq!(
            decode_bits(FloatFormat::F32, 0xFF800000),
            Some(f64::NEG_INFINITY)
        );
        assert_eq!(
            decode_bits(FloatFormat::F16, 0xFC00),
            Some(f64::NEG_INFINITY)
        );
        assert_eq!(decode_bits(FloatFormat::F16, 0x3C00), Some(1.0));
        assert_eq!(decode_bits(FloatFormat::F16, 0x0001), Some(2f64.powi(-24)));
        assert_eq!(
            decode_bits(FloatFormat::BF16, 0xFF80),
            Some(f64::NEG_INFINITY)
        );
        assert_eq!(decode_bits(FloatFormat::BF16, 0x3F80), Some(1.0));
        assert_eq!(decode_bits(FloatFormat::F8E4M3FN, 0x7E), Some(448.0));
        assert!(decode_bits(FloatFormat::F8E4M3FN, 0x7F).unwrap().is_nan());
        assert_eq!(decode_bits(FloatFormat::F8E5M2, 0x7C), Some(f64::INFINITY));
        assert_eq!(decode_bits(FloatFormat::F16, 0x1_0000), None);
    }

    #[test]
    fn rounds_decimals_to_format() {
        assert_eq!(
            round_decimal(FloatFormat::F32, "1.000000e-01"),
            Some(0.1f32 as f64)
        );
        assert_eq!(round_decimal(FloatFormat::F64, "0.1"), Some(0.1));
        // f16 nearest to 0.1 is 0x2E66 = 1638/16384.
        assert_eq!(
            round_decimal(FloatFormat::F16, "0.1"),
            Some(1638.0 / 16384.0)
        );
        // bf16 nearest to 0.1 is 0x3DCD.
        assert_eq!(
            round_decimal(FloatFormat::BF16, "1.000000e-01"),
            decode_bits(FloatFormat::BF16, 0x3DCD)
        );
        // Tie 1 + 2^-11 rounds to even (1.0); just above it rounds up.
        assert_eq!(round_decimal(FloatFormat::F16, "1.00048828125"), Some(1.0));
        assert_eq!(
            round_decimal(FloatFormat::F16, "1.0004882812500001"),
            Some(1.0 + 2f64.powi(-10))
        );
        assert_eq!(
            round_decimal(FloatFormat::F16, "65520"),
            Some(f64::INFINITY)
        );
        assert_eq!(round_decimal(FloatFormat::F16, "65519.99"), Some(65504.0));
        assert_eq!(round_decimal(FloatFormat::F16, "-0.0"), Some(-0.0));
        assert_eq!(round_decimal(FloatFormat::F16, "1e-30"), Some(0.0));
        assert_eq!(
            round_decimal(FloatFormat::F16, "1e99999999999"),
            Some(f64::INFINITY)
        );
        assert_eq!(round_decimal(FloatFormat::F8E4M3FN, "1000.0"), None);
        assert_eq!(round_decimal(FloatFormat::F16, "abc"), None);
    }
}
