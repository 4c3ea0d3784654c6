//! Integers as the GPU has them: every integer op in its IR width, two's complement,
//! wrapping (docs/semantics.md, "Values"). A value of width `w` is held as the `i64` of its
//! signed reading (sign-extended), whatever the width; unsigned ops read it back as
//! its low `w` bits.

use crate::exec::error::ErrorKind;
pub(crate) use crate::exec::error::Fail;
use crate::exec::error::{fail, R};
use crate::exec::table::IntOp;

pub(crate) use crate::exec::table::{int_width as width, wrap};

/// The low `bits` bits of `v`, read as unsigned.
pub(crate) fn unsigned(v: i64, bits: u32) -> u64 {
    if bits >= 64 {
        v as u64
    } else {
        (v as u64) & ((1u64 << bits) - 1)
    }
}

/// An integer cast from `src` to `dst` bits: truncation keeps the low bits; widening
/// sign-extends (`extsi`, `index_cast`) or zero-extends (`extui`, `index_castui`).
pub(crate) fn cast(v: i64, src: u32, dst: u32, zero_extend: bool) -> i64 {
    let v = if zero_extend {
        unsigned(v, src) as i128
    } else {
        v as i128
    };
    wrap(v, dst)
}

/// `x op y` on `bits`-wide operands, wrapped to `bits` as the GPU wraps.
pub(crate) fn arith(op: IntOp, bits: u32, x: i64, y: i64) -> R<i64> {
    let nonzero = |d: i128| {
        if d == 0 {
            fail(
                ErrorKind::Undefined,
                "integer division by zero (undefined on the GPU)",
            )
        } else {
            Ok(d)
        }
    };
    let shift = |y: i64| -> R<u32> {
        // LLVM makes a shift by the width or more poison: no value to compute with.
        if (0..bits as i64).contains(&y) {
            Ok(y as u32)
        } else {
            fail(
                ErrorKind::Undefined,
                format!("a shift by {y} of a {bits}-bit integer (poison on the GPU)"),
            )
        }
    };
    let (sx, sy) = (x as i128, y as i128);
    let (ux, uy) = (unsigned(x, bits) as i128, unsigned(y, bits) as i128);
    let r: i128 = match op {
        IntOp::Add => sx + sy,
        IntOp::Sub => sx - sy,
        IntOp::Mul => sx * sy,
        IntOp::DivS => sx / nonzero(sy)?,
        IntOp::DivU => ux / nonzero(uy)?,
        IntOp::RemS => sx % nonzero(sy)?,
        IntOp::RemU => ux % nonzero(uy)?,
        IntOp::CeilDiv => {
            let d = nonzero(sy)?;
            let q = sx / d;
            // Truncation rounds toward zero: up one where the exact quotient is
            // positive and not whole.
            if sx % d != 0 && ((sx < 0) == (d < 0)) {
                q + 1
            } else {
                q
            }
        }
        IntOp::CeilDivU => {
            let d = nonzero(uy)?;
            (ux + d - 1) / d
        }
        IntOp::FloorDiv => {
            let d = nonzero(sy)?;
            let q = sx / d;
            if sx % d != 0 && ((sx < 0) != (d < 0)) {
                q - 1
            } else {
                q
            }
        }
        IntOp::And => sx & sy,
        IntOp::Or => sx | sy,
        IntOp::Xor => sx ^ sy,
        IntOp::Shl => sx << shift(y)?,
        IntOp::ShrS => sx >> shift(y)?,
        IntOp::ShrU => ux >> shift(y)?,
        IntOp::Max => sx.max(sy),
        IntOp::Min => sx.min(sy),
        IntOp::MaxU => {
            if ux >= uy {
                sx
            } else {
                sy
            }
        }
        IntOp::MinU => {
            if ux <= uy {
                sx
            } else {
                sy
            }
        }
        // Both halves read unsigned, the product in twice the width (at most 128 bits
        // for 64-bit operands: `u128`), its high half kept.
        IntOp::MulHiU => {
            let (ux, uy) = (unsigned(x, bits) as u128, unsigned(y, bits) as u128);
            (ux.wrapping_mul(uy) >> bits.min(64)) as i128
        }
    };
    Ok(wrap(r, bits))
}

/// `cmpi` of two `bits`-wide integers (`u*` predicates read their low bits unsigned).
pub(crate) fn compare(pred: &str, bits: u32, x: i64, y: i64) -> R<bool> {
    let (ux, uy) = (unsigned(x, bits), unsigned(y, bits));
    Ok(match pred {
        "eq" => x == y,
        "ne" => x != y,
        "slt" => x < y,
        "sle" => x <= y,
        "sgt" => x > y,
        "sge" => x >= y,
        "ult" => ux < uy,
        "ule" => ux <= uy,
        "ugt" => ux > uy,
        "uge" => ux >= uy,
        _ => {
            return fail(
                ErrorKind::Unsupported,
                format!("integer predicate '{pred}'"),
            )
        }
    })
}

/// A float truncated toward zero into a `bits`-wide integer, saturating as PTX's
/// `cvt.rzi` does (NaN gives 0).
pub(crate) fn from_float(x: f64, bits: u32, unsigned: bool) -> i64 {
    if x.is_nan() {
        return 0;
    }
    let (lo, hi): (f64, f64) = if unsigned {
        (0.0, 2f64.powi(bits.min(63) as i32) - 1.0)
    } else {
        let b = bits.clamp(1, 64) as i32 - 1;
        (-(2f64.powi(b)), 2f64.powi(b) - 1.0)
    };
    let t = x.trunc().clamp(lo, hi);
    // An unsigned result keeps its bits; read back as the width's signed value.
    if unsigned {
        wrap(t as u64 as i128, bits)
    } else {
        t as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_in_each_width() {
        assert_eq!(wrap(32768, 16), -32768);
        assert_eq!(wrap(-32769, 16), 32767);
        assert_eq!(wrap(255, 8), -1);
        assert_eq!(wrap((1i128 << 31) + 5, 32), -(1i64 << 31) + 5);
        assert_eq!(wrap(i64::MAX as i128 + 1, 64), i64::MIN);
        assert_eq!(
            arith(IntOp::Add, 32, i32::MAX as i64, 1).ok(),
            Some(i32::MIN as i64)
        );
        assert_eq!(arith(IntOp::Mul, 16, 300, 300).ok(), Some(90000 - 65536));
        assert_eq!(arith(IntOp::DivU, 32, -1, 2).ok(), Some(i32::MAX as i64));
        assert_eq!(arith(IntOp::MaxU, 32, -1, 5).ok(), Some(-1));
        assert_eq!(arith(IntOp::CeilDiv, 32, -7, 2).ok(), Some(-3));
        assert_eq!(arith(IntOp::FloorDiv, 32, -7, 2).ok(), Some(-4));
        assert_eq!(cast(-1, 16, 32, true), 65535);
        assert_eq!(cast(-1, 16, 32, false), -1);
        assert_eq!(cast(40000, 32, 16, false), 40000 - 65536);
        assert!(compare("ult", 32, 5, -1).unwrap());
        assert!(!compare("slt", 32, 5, -1).unwrap());
        assert_eq!(from_float(1e10, 32, false), i32::MAX as i64);
        assert_eq!(from_float(-3.7, 32, false), -3);
    }

    #[test]
    fn mulhiui_is_the_high_half_of_the_unsigned_product() {
        // Philox's round constant times 0x12345678 = 0x0EF4_B9B8_0969_6BA8 (by hand:
        // 3528531795 * 305419896 = 1077679720658102184), high half 250917816.
        assert_eq!(
            arith(IntOp::MulHiU, 32, 0xD2511F53u32 as i32 as i64, 0x12345678).ok(),
            Some(250917816)
        );
        // (2^32 - 1)^2 = 2^64 - 2^33 + 1: high half 2^32 - 2, read as i32 -2.
        assert_eq!(arith(IntOp::MulHiU, 32, -1, -1).ok(), Some(-2));
        // 2^31 * 2^31 = 2^62: high half 2^30 (both operands unsigned, not -2^31).
        assert_eq!(
            arith(IntOp::MulHiU, 32, i32::MIN as i64, i32::MIN as i64).ok(),
            Some(1 << 30)
        );
        assert_eq!(arith(IntOp::MulHiU, 32, -1, 2).ok(), Some(1));
        // 64 bits: (2^64 - 1)^2 >> 64 = 2^64 - 2, read as i64 -2.
        assert_eq!(arith(IntOp::MulHiU, 64, -1, -1).ok(), Some(-2));
        assert_eq!(
            arith(IntOp::MulHiU, 16, 0x8000u16 as i16 as i64, 4).ok(),
            Some(2)
        );
    }
}
