//! Triton's float atomic max and min: `tl.atomic_max` of floats compiles to integer
//! atomics on the float's bits (through a `tt.bitcast` pointer), split by its sign:
//! signed `max` on the lanes whose sign bit is clear, unsigned `umin` on the others
//! (`min`: signed `min`, then `umax`). For IEEE bits (every zero +0, no NaN) that is the
//! float max (min) of the element and the value:
//!
//! - `max` with v >= 0, `umin` with v < 0: max(old, v);
//! - `min` with v >= 0, `umax` with v < 0: min(old, v);
//! - otherwise an integer order of the bits that is not the float order (`max` of two
//!   negatives picks the smaller float): read exactly as
//!   `select(old < 0 && v < 0, min, max)` (signed) or `select(old >= 0 && v >= 0, min,
//!   max)` (unsigned), and the other way round for `min`/`umax`.
//!
//! Invariant: each lane's new value is exactly what the integer atomic makes of the
//! float's bits. Under a mask on the data, a lane's update is `select(mask, new, old)`,
//! read as the plain float max only where the mask is the value's own sign test (the
//! term Triton's `bits >> 31 == 0` gives); the second atomic of the pair, under the
//! complementary test, then merges the two into `max(old, v)` (one of them acts on
//! every input).

use super::interp::{fail, Interp, R};
use crate::exec::domain::{Binary, Domain, Truth};
use crate::exec::error::ErrorKind;
use crate::exec::table::IntOp;
use crate::exec::value::Elem;
use crate::term::CmpOp;

impl<D: Domain> Interp<'_, D> {
    /// The float `value` (an integer lane holding a float's bits) stands for.
    pub(super) fn float_of_lane(&mut self, value: Elem<D::V>, bits: u32) -> R<D::V> {
        match value {
            Elem::Int(k) if bits == 32 => Ok(self.domain.constant(f32::from_bits(k as u32) as f64)),
            Elem::Int(k) if bits == 64 => Ok(self.domain.constant(f64::from_bits(k as u64))),
            Elem::DataInt { v, .. } => self.domain.float_of_bits(v).map_or_else(
                || {
                    fail(
                        ErrorKind::Unsupported,
                        "an integer atomic on a float tensor with an integer value that is not a float's bits",
                    )
                },
                Ok,
            ),
            other => fail(
                ErrorKind::Unsupported,
                format!("an integer atomic on a float tensor with {}", other.kind()),
            ),
        }
    }

    /// The lane's old value as the bits the op returns.
    pub(super) fn bits_of(&mut self, old: D::V, bits: u32) -> Elem<D::V> {
        match self.domain.as_number(old) {
            Some(x) if bits == 32 => Elem::Int((x as f32).to_bits() as i32 as i64),
            Some(x) => Elem::Int(x.to_bits() as i64),
            None => match self.domain.float_bits(old, bits == 64) {
                Some(v) => {
                    let b = bits.clamp(2, 64) - 1;
                    let (lo, hi) = ((-1i128 << b) as i64, ((1i128 << b) - 1) as i64);
                    Elem::DataInt { v, lo, hi }
                }
                None => Elem::Float(old),
            },
        }
    }

    /// The element after integer atomic `io` on the bits of float `v` (the lane's mask
    /// `mask`: `None` on, `Some(c)` a condition on the data) over `old`, the element
    /// `key`. `Ok(None)` where the mask is off on every input.
    pub(super) fn float_bits_update(
        &mut self,
        key: (usize, usize),
        io: IntOp,
        old: D::V,
        v: D::V,
        mask: Option<D::V>,
    ) -> R<D::V> {
        // which float op the integer op is where the value's sign suits it
        let (is_max, wants_clear) = match io {
            IntOp::Max => (true, true),
            IntOp::MinU => (true, false),
            IntOp::Min => (false, true),
            IntOp::MaxU => (false, false),
            _ => {
                return fail(
                    ErrorKind::Unsupported,
                    "a bit operation or integer add on a float tensor's bits",
                )
            }
        };
        let plain = if is_max { Binary::Max } else { Binary::Min };
        let Some(m) = mask else {
            let zero = self.domain.constant(0.0);
            let suits = match self.domain.cmp(CmpOp::Lt, v, zero) {
                Truth::Known(neg) => neg != wants_clear,
                Truth::Unknown(_) => false,
            };
            return Ok(match suits {
                true => self.domain.binary(plain, old, v),
                false => self.exact_bits_order(io, old, v),
            });
        };
        // the mask must be the value's own sign test, as Triton builds it
        let sign = self.sign_bit(v);
        let pred = if wants_clear { "eq" } else { "ne" };
        let test = self.data_int_compare(pred, sign, Elem::Int(0));
        if !matches!(test, Some(Ok(Elem::Cond(t))) if t == m) {
            return fail(
                ErrorKind::Unsupported,
                "an integer atomic on a float's bits under a mask on the data that is not the float's sign test",
            );
        }
        // the other half of the pair ran first: together they are the plain max
        if let Some(&(o, w, clear, max, new)) = self.splits.get(&key) {
            if w == v && clear != wants_clear && max == is_max && new == old {
                self.splits.remove(&key);
                return Ok(self.domain.binary(plain, o, v));
            }
        }
        let g = self.domain.binary(plain, old, v);
        let new = self.domain.select(m, g, old);
        self.splits.insert(key, (old, v, wants_clear, is_max, new));
        Ok(new)
    }

    /// Integer max/min on the bits of two floats of any signs, as floats (module doc).
    fn exact_bits_order(&mut self, io: IntOp, old: D::V, v: D::V) -> D::V {
        let zero = self.domain.constant(0.0);
        let (max, min) = (
            self.domain.binary(Binary::Max, old, v),
            self.domain.binary(Binary::Min, old, v),
        );
        let signed = matches!(io, IntOp::Max | IntOp::Min);
        // signed: both negative flips the order; unsigned: both non-negative keeps it
        let (p, q) = match signed {
            true => (CmpOp::Lt, CmpOp::Lt),
            false => (CmpOp::Ge, CmpOp::Ge),
        };
        let a = self.domain.cmp(p, old, zero);
        let b = self.domain.cmp(q, v, zero);
        let both = match (a, b) {
            (Truth::Known(false), _) | (_, Truth::Known(false)) => Truth::Known(false),
            (Truth::Known(true), t) | (t, Truth::Known(true)) => t,
            (Truth::Unknown(x), Truth::Unknown(y)) => self.domain.and(x, y),
        };
        // signed max / unsigned max take `min` where `both` holds for signed, the
        // reverse for unsigned (module doc)
        let (when, otherwise) = match io {
            IntOp::Max => (min, max),
            IntOp::Min => (max, min),
            IntOp::MaxU => (max, min),
            _ => (min, max), // MinU
        };
        match both {
            Truth::Known(true) => when,
            Truth::Known(false) => otherwise,
            Truth::Unknown(c) => self.domain.select(c, when, otherwise),
        }
    }
}
