//! The all-sizes run's hooks on Philox bits (`super::bits`): integer ops computed as
//! bit vectors, the sign test and select of `uint_to_uniform_float`, and the `sitofp`
//! that names the stream's atom `rand(seed, offset)` only where the word is identical to
//! the reference expansion.
//!
//! Invariant: a float is made of bits only by that identity, with the offset shown
//! non-negative and kept within i32 (an obligation); anything else is an error.

use super::bits::BitId;
use super::lane::{unsupported, Lane, Val, R};
use super::run::Run;
use crate::exec::ints::Ints;
use crate::exec::table::IntOp;
use crate::term::rand as stream;
use crate::triton_ir::ast::Op;

impl Run<'_, '_, '_> {
    /// `l` as a bits term of `w` bits (an integer over the sizes is its leaf).
    fn bits_of(&mut self, l: &Lane, w: u32) -> Option<BitId> {
        match l {
            Lane::Bits(b) => Some(*b),
            Lane::Int(p) => Some(self.bits.leaf(w, p)),
            Lane::Bool(c) => c.as_const().map(|b| self.bits.konst(1, i128::from(b))),
            _ => None,
        }
    }

    /// An integer op computed as bits: where an operand is bits already, or the op is
    /// one [`wrapping`] names and an operand depends on the sizes. `None`: not bits.
    pub(super) fn bits_op(
        &mut self,
        op: &Op,
        io: IntOp,
        w: u32,
        x: &Lane,
        y: &Lane,
    ) -> Option<R<Lane>> {
        let is_bits = |l: &Lane| matches!(l, Lane::Bits(_));
        let sized = |l: &Lane| matches!(l, Lane::Int(p) if p.as_const().is_none());
        let wraps = self.bits.wraps(op);
        if !(is_bits(x) || is_bits(y) || wraps && (sized(x) || sized(y))) {
            return None;
        }
        Some(match (self.bits_of(x, w), self.bits_of(y, w)) {
            (Some(a), Some(b)) => Ok(Lane::Bits(self.bits.binary(io, w, a, b))),
            _ => unsupported(format!(
                "{} of bits and a value that is not an integer",
                op.name
            )),
        })
    }

    /// `cmpi` where an operand is bits: `x < 0` (`slt` against 0) is the sign bit.
    pub(super) fn bits_compare(&mut self, pred: &str, w: u32, x: &Lane, y: &Lane) -> R<Lane> {
        let (Some(a), Some(b)) = (self.bits_of(x, w), self.bits_of(y, w)) else {
            return unsupported("cmpi of bits and a value that is not an integer");
        };
        match (pred, self.bits.as_const(b)) {
            ("slt", Some(0)) => Ok(Lane::Bits(self.bits.negative(a))),
            _ => unsupported(format!(
                "cmpi {pred} of Philox bits (only `x < 0` of uint_to_uniform_float is read)"
            )),
        }
    }

    /// `select(c, a, b)` on a bits condition.
    pub(super) fn bits_select(&mut self, c: BitId, a: &Lane, b: &Lane) -> R<Lane> {
        let w = match (a, b) {
            (Lane::Bits(x), _) | (_, Lane::Bits(x)) => self.bits.width(*x),
            _ => 32,
        };
        match (self.bits_of(a, w), self.bits_of(b, w)) {
            (Some(x), Some(y)) => Ok(Lane::Bits(self.bits.select(c, x, y))),
            _ => unsupported("a select on Philox bits between values that are not integers"),
        }
    }

    /// An integer cast of bits (`extsi`, `extui`, `trunci`).
    pub(super) fn bits_cast(&mut self, a: BitId, w: u32, zero_extend: bool) -> Lane {
        Lane::Bits(self.bits.cast(a, w, zero_extend))
    }

    /// `sitofp` of bits: `rand(seed, offset) / SCALE` where the word is
    /// `fold(philox(seed, offset))` (the kernel's multiply by `SCALE` then gives the
    /// stream's atom), else an error.
    pub(super) fn rand_to_float(&mut self, op: &Op, src: u32, unsigned: bool, a: BitId) -> R<Lane> {
        if src != 32 || unsigned || self.bits.width(a) != 32 {
            return unsupported("an int-to-float of bits other than tl.rand's i32 word");
        }
        let seeds: Vec<i64> = self
            .setup
            .args
            .values()
            .filter_map(|s| match s {
                super::records::ArgSym::Int(p) => p.as_const().map(|c| c as i64),
                _ => None,
            })
            .collect();
        for off in self.bits.leaves(a) {
            for &seed in &seeds {
                if self.bits.reference(seed, &off) != a {
                    continue;
                }
                if !self.nonneg(&off) {
                    return unsupported(format!(
                        "tl.rand at the offset {off}, which may be negative (read only at offsets >= 0)"
                    ));
                }
                // The kernel's i32 counter: its high word is 0 only for offsets in i32.
                let v = Val::scalar(Lane::Int(off.clone()));
                self.fits_width(&v, 32, "tl.rand offset in i32", op)?;
                let name = stream::atom_name(seed, &off.to_string());
                let atom = self.domain.terms.param(&name);
                let scale = self.domain.terms.float(f64::from(stream::scale()));
                return Ok(Lane::Float(self.domain.terms.div(atom, scale)));
            }
        }
        unsupported(
            "an int-to-float of Philox bits that is not tl.rand's word fold(philox(seed, offset)) \
             for a constant integer argument as the seed",
        )
    }
}
