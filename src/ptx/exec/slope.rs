//! Affine shadows of integer registers for the every-count proof (see `every`).
//!
//! The proof runs the kernel once at count `N` and reads each integer register as the
//! value the same register holds, at the matching point, in the run at count
//! `N + Q·u` after `m` inserted periods: the concrete value plus `u·s[0] + m·s[1]`
//! (modulo 2^width), for every `(u, m)` of a region (a segment or a triangle of the
//! plane, given by its vertices). `None` is a value no such form describes.
//!
//! Rules are exact: `+ - ×const << ¬ neg` and narrowing are ring maps modulo 2^width,
//! so their forms hold whatever the wrap; a right shift, a widening conversion, a
//! wide multiply and a comparison need the value itself, so the form is first
//! checked not to leave its type's range anywhere in the region (checked at the
//! vertices: the form is linear); `and`/`or`/`xor` with a constant touching only bits
//! below the slope's trailing zeros leave the slope alone or drop it. A comparison
//! whose sign class is the same at every vertex is decided (a flat predicate); any
//! other form is `None`.
//!
//! Invariant: a shadow `Some(s)` is right for every `(u, m)` in the region at the
//! time it was computed; `every` only lets a region shrink.

/// A register's shadow: its slopes in `u` and `m`, or `None` (not affine).
pub(super) type Slope = Option<[i64; 2]>;

/// The shadow of a value that does not depend on the count.
pub(super) const FLAT: Slope = Some([0, 0]);

/// The region of `(u, m)` a shadow speaks for: its vertices.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Region(pub(super) Vec<(i64, i64)>);

impl Region {
    /// `u` from 0 to `u_max`, no period inserted.
    pub(super) fn line(u_max: i64) -> Region {
        Region(vec![(0, 0), (u_max, 0)])
    }

    /// `0 <= m < u <= u_max`, with the concrete run's `(0, 0)`.
    pub(super) fn triangle(u_max: i64) -> Region {
        Region(vec![(0, 0), (u_max, 0), (u_max, (u_max - 1).max(0))])
    }

    /// The least and greatest of `v + s·(u, m)` over the region.
    pub(super) fn range(&self, v: i128, s: [i64; 2]) -> (i128, i128) {
        let at = |&(u, m): &(i64, i64)| v + s[0] as i128 * u as i128 + s[1] as i128 * m as i128;
        let vals: Vec<i128> = self.0.iter().map(at).collect();
        (
            vals.iter().copied().min().unwrap_or(v),
            vals.iter().copied().max().unwrap_or(v),
        )
    }
}

/// An integer type: width in bits and signedness (`b` types read as unsigned).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct IntTy {
    pub(super) bits: u32,
    pub(super) signed: bool,
}

impl IntTy {
    pub(super) fn of(ty: &str) -> Option<IntTy> {
        let (signed, bits) = match ty.as_bytes().first()? {
            b's' => (true, &ty[1..]),
            b'u' | b'b' => (false, &ty[1..]),
            _ => return None,
        };
        let bits: u32 = bits.parse().ok()?;
        matches!(bits, 8 | 16 | 32 | 64).then_some(IntTy { bits, signed })
    }

    /// The concrete bits read as a number of this type.
    pub(super) fn value(&self, bits: u64) -> i128 {
        let masked = if self.bits == 64 {
            bits
        } else {
            bits & ((1u64 << self.bits) - 1)
        };
        if self.signed && masked >> (self.bits - 1) & 1 == 1 {
            masked as i128 - (1i128 << self.bits)
        } else {
            masked as i128
        }
    }

    fn bounds(&self) -> (i128, i128) {
        if self.signed {
            (-(1i128 << (self.bits - 1)), (1i128 << (self.bits - 1)) - 1)
        } else {
            (0, (1i128 << self.bits) - 1)
        }
    }

    /// Whether `bits + s·(u, m)` stays in this type's range over the region: then the
    /// form is the value itself, not only modulo 2^width.
    pub(super) fn exact(&self, region: &Region, bits: u64, s: [i64; 2]) -> bool {
        let (lo, hi) = region.range(self.value(bits), s);
        let (a, b) = self.bounds();
        lo >= a && hi <= b
    }

    /// The greatest `u_max' <= u_max` whose region keeps `bits + s·(u, m)` in range
    /// (`mid`: the triangle, else the line); `None` if not even `u_max' = 1`.
    pub(super) fn exact_up_to(&self, u_max: i64, mid: bool, bits: u64, s: [i64; 2]) -> Option<i64> {
        let region = |u: i64| match mid {
            true => Region::triangle(u),
            false => Region::line(u),
        };
        if self.exact(&region(u_max), bits, s) {
            return Some(u_max);
        }
        if !self.exact(&region(1), bits, s) {
            return None;
        }
        let (mut lo, mut hi) = (1, u_max);
        while hi - lo > 1 {
            let mid_u = lo + (hi - lo) / 2;
            if self.exact(&region(mid_u), bits, s) {
                lo = mid_u;
            } else {
                hi = mid_u;
            }
        }
        Some(lo)
    }
}

pub(super) fn add(a: [i64; 2], b: [i64; 2]) -> Slope {
    Some([a[0].checked_add(b[0])?, a[1].checked_add(b[1])?])
}

pub(super) fn scale(a: [i64; 2], c: i128) -> Slope {
    let c = i64::try_from(c).ok()?;
    Some([a[0].checked_mul(c)?, a[1].checked_mul(c)?])
}

pub(super) fn neg(a: [i64; 2]) -> Slope {
    Some([a[0].checked_neg()?, a[1].checked_neg()?])
}

/// Trailing zero bits common to both slopes (64 for a flat one).
pub(super) fn zeros(a: [i64; 2]) -> u32 {
    a[0].trailing_zeros().min(a[1].trailing_zeros())
}

/// `x & c` of a form with slopes `s` and a constant `c` of `bits` bits: flat when `c`
/// keeps only bits below the slopes' trailing zeros, `s` when it keeps every bit from
/// there up, else not affine.
pub(super) fn and_const(s: [i64; 2], c: u64, bits: u32) -> Slope {
    let z = zeros(s).min(bits);
    let low = if z >= 64 { u64::MAX } else { (1u64 << z) - 1 };
    let all = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    if c & !low & all == 0 {
        FLAT
    } else if (c | low) & all == all {
        Some(s)
    } else {
        None
    }
}

/// `x | c` or `x ^ c`: `s` when `c` has only bits below the slopes' trailing zeros.
pub(super) fn or_const(s: [i64; 2], c: u64, bits: u32) -> Slope {
    let z = zeros(s).min(bits);
    let low = if z >= 64 { u64::MAX } else { (1u64 << z) - 1 };
    let all = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    (c & !low & all == 0).then_some(s)
}

/// Whether `a - b` has one sign class (negative, zero, positive) over the region: a
/// comparison of the two is then decided the same way at every point.
pub(super) fn decided(region: &Region, diff: i128, s: [i64; 2]) -> bool {
    let (lo, hi) = region.range(diff, s);
    (lo > 0) || (hi < 0) || (lo == 0 && hi == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_below_the_slope_drop_it() {
        // k = 4u + c: k & 3 is c's, k & ~3 moves with k, k & 5 is neither.
        assert_eq!(and_const([4, 0], 3, 32), FLAT);
        assert_eq!(and_const([4, 0], 0xffff_fffc, 32), Some([4, 0]));
        assert_eq!(and_const([4, 0], 5, 32), None);
        assert_eq!(or_const([8, 4], 3, 32), Some([8, 4]));
        assert_eq!(or_const([8, 2], 3, 32), None);
    }

    #[test]
    fn exactness_bounds_the_region() {
        let s32 = IntTy::of("s32").unwrap();
        // 2^31 - 100 + u stays an s32 up to u = 99.
        let v = (1u64 << 31) - 100;
        assert_eq!(s32.exact_up_to(1000, false, v, [1, 0]), Some(99));
        assert!(s32.exact(&Region::line(99), v, [1, 0]));
        assert!(!s32.exact(&Region::line(100), v, [1, 0]));
        // -4 - 4u + 4m over 0 <= m < u: always negative.
        assert!(decided(&Region::triangle(1000), -4, [-4, 4]));
        assert!(!decided(&Region::line(10), 8, [-4, 0]));
    }
}
