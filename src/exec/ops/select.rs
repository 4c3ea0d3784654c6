//! Integers chosen by the data: `sign = tl.where(x < 0, -1, 1)`, an argmax index.
//!
//! A `select` between integers under a condition on loaded floats gives
//! [`Elem::DataInt`]: the real `select(c, a, b)` of the domain, with the range `lo..=hi`
//! of the integers it can be. Such an integer is a *value*: it converts to float
//! (`sitofp`, and `uitofp` when it cannot be negative), is stored (as the real it is),
//! combines with integers by `+`, `-`, `*`, `max`, `min` (the range checked against
//! overflow), is compared (`cmpi`, giving a data-dependent boolean) and selected again.
//! Everything else an integer can do that would need its concrete value (an address
//! offset, a loop bound, division, bit operations, a narrowing cast that could wrap) is
//! an `Unsupported` error naming the use ([`data_int_use`]). In the concrete domain
//! every comparison is decided, so no `DataInt` arises and `lift run` stays exact.

use super::interp::{fail, truth_elem, Fail, Interp, R};
use crate::exec::domain::{Binary, Domain, Truth};
use crate::exec::error::ErrorKind;
use crate::exec::table::IntOp;
use crate::exec::value::Elem;
use crate::term::CmpOp;

/// The error for a data-dependent integer used where its concrete value is needed.
pub(super) fn data_int_use(what: &str) -> Fail {
    Fail {
        kind: ErrorKind::Unsupported,
        message: format!(
            "an integer that depends on the data (chosen by a select on loaded values) is used as {what}; \
             such integers are supported only as values (converted to float, stored, combined by + - * max min, compared)"
        ),
    }
}

impl<D: Domain> Interp<'_, D> {
    /// An integer lane as (real, lo, hi), or `None` for other lanes.
    fn int_parts(&mut self, e: Elem<D::V>) -> Option<(D::V, i64, i64)> {
        match e {
            Elem::Int(i) => Some((self.domain.constant(i as f64), i, i)),
            Elem::DataInt { v, lo, hi } => Some((v, lo, hi)),
            _ => None,
        }
    }

    /// A data-dependent integer, or the plain integer it turns out to be.
    fn data_int(&self, v: D::V, lo: i64, hi: i64) -> Elem<D::V> {
        if lo == hi {
            return Elem::Int(lo);
        }
        match self.domain.as_number(v) {
            Some(x) if x.fract() == 0.0 && x.abs() < 9.0e15 => Elem::Int(x as i64),
            _ => Elem::DataInt { v, lo, hi },
        }
    }

    /// `select(c, a, b)` for an undecided `c` and integer or `i1` sides; `None` when the
    /// sides are not integers (the caller reports them).
    pub(super) fn select_data_int(
        &mut self,
        c: D::V,
        a: Elem<D::V>,
        b: Elem<D::V>,
    ) -> Option<R<Elem<D::V>>> {
        if let (Elem::Bool(x), Elem::Bool(y)) = (a, b) {
            return Some(Ok(match (x, y) {
                (true, false) => Elem::Cond(c),
                (false, true) => truth_elem(self.domain.not(c)),
                _ => Elem::Bool(x),
            }));
        }
        let (x, xlo, xhi) = self.int_parts(a)?;
        let (y, ylo, yhi) = self.int_parts(b)?;
        let v = self.domain.select(c, x, y);
        Some(Ok(self.data_int(v, xlo.min(ylo), xhi.max(yhi))))
    }

    /// Integer arithmetic with a data-dependent side; `None` when neither side is one.
    pub(super) fn data_int_binary(
        &mut self,
        op: IntOp,
        bits: u32,
        a: Elem<D::V>,
        b: Elem<D::V>,
    ) -> Option<R<Elem<D::V>>> {
        if !matches!(a, Elem::DataInt { .. }) && !matches!(b, Elem::DataInt { .. }) {
            return None;
        }
        // The sign bit of a float's bits (`bits >> 31`, Triton's float atomic max):
        // 1 where the float is negative (every zero is +0, NaN is not modelled).
        if let (IntOp::ShrU, Elem::DataInt { v, .. }, Elem::Int(s)) = (op, a, b) {
            if let (true, Some(f)) = (s == bits as i64 - 1, self.domain.float_of_bits(v)) {
                return Some(Ok(self.sign_bit(f)));
            }
        }
        let (x, xlo, xhi) = self.int_parts(a)?;
        let (y, ylo, yhi) = self.int_parts(b)?;
        let range = |f: fn(i64, i64) -> Option<i64>| -> Option<(i64, i64)> {
            let c = [f(xlo, ylo)?, f(xlo, yhi)?, f(xhi, ylo)?, f(xhi, yhi)?];
            Some((*c.iter().min()?, *c.iter().max()?))
        };
        let (bin, bounds) = match op {
            IntOp::Add => (Binary::Add, range(i64::checked_add)),
            IntOp::Sub => (Binary::Sub, range(i64::checked_sub)),
            IntOp::Mul => (Binary::Mul, range(i64::checked_mul)),
            IntOp::Max => (Binary::Max, Some((xlo.max(ylo), xhi.max(yhi)))),
            IntOp::Min => (Binary::Min, Some((xlo.min(ylo), xhi.min(yhi)))),
            other => {
                return Some(Err(data_int_use(&format!(
                    "an operand of {other:?} (integer division, remainder, bit operation or shift)"
                ))))
            }
        };
        // Integer arithmetic wraps in its width on the GPU; a term over the reals does
        // not, so a result that could leave the width's range is refused rather than
        // read as a real.
        let b = bits.clamp(2, 64) - 1;
        let (min, max) = ((-1i128 << b) as i64, ((1i128 << b) - 1) as i64);
        let Some((lo, hi)) = bounds.filter(|&(lo, hi)| lo >= min && hi <= max) else {
            return Some(fail(
                ErrorKind::Unsupported,
                format!("arithmetic on an integer that depends on the data could overflow i{bits}"),
            ));
        };
        let v = self.domain.binary(bin, x, y);
        Some(Ok(self.data_int(v, lo, hi)))
    }

    /// The sign bit of float `f` (see `data_int_binary`): `select(f < 0, 1, 0)`.
    pub(super) fn sign_bit(&mut self, f: D::V) -> Elem<D::V> {
        let zero = self.domain.constant(0.0);
        match self.domain.cmp(CmpOp::Lt, f, zero) {
            Truth::Known(neg) => Elem::Int(neg as i64),
            Truth::Unknown(c) => {
                let one = self.domain.constant(1.0);
                let v = self.domain.select(c, one, zero);
                Elem::DataInt { v, lo: 0, hi: 1 }
            }
        }
    }

    /// `cmpi` with a data-dependent side: a data-dependent boolean; `None` when neither
    /// side is one.
    pub(super) fn data_int_compare(
        &mut self,
        pred: &str,
        a: Elem<D::V>,
        b: Elem<D::V>,
    ) -> Option<R<Elem<D::V>>> {
        if !matches!(a, Elem::DataInt { .. }) && !matches!(b, Elem::DataInt { .. }) {
            return None;
        }
        let (x, xlo, _) = self.int_parts(a)?;
        let (y, ylo, _) = self.int_parts(b)?;
        let unsigned = pred.starts_with('u');
        if unsigned && (xlo < 0 || ylo < 0) {
            return Some(Err(data_int_use(
                "an operand of an unsigned comparison that could be negative",
            )));
        }
        let op = match pred {
            "eq" => CmpOp::Eq,
            "ne" => CmpOp::Ne,
            "slt" | "ult" => CmpOp::Lt,
            "sle" | "ule" => CmpOp::Le,
            "sgt" | "ugt" => CmpOp::Gt,
            "sge" | "uge" => CmpOp::Ge,
            _ => {
                return Some(fail(
                    ErrorKind::Unsupported,
                    format!("integer predicate '{pred}'"),
                ))
            }
        };
        Some(Ok(truth_elem(self.domain.cmp(op, x, y))))
    }

    /// `sitofp`/`uitofp` of a data-dependent `bits`-bit integer: the real it is, for
    /// `uitofp` its bits read unsigned (`2^bits + v` where `v` is negative).
    pub(super) fn data_int_to_float(
        &mut self,
        v: D::V,
        lo: i64,
        bits: u32,
        unsigned: bool,
    ) -> R<Elem<D::V>> {
        if !unsigned || lo >= 0 {
            return Ok(Elem::Float(v));
        }
        if bits > 32 {
            return Err(data_int_use(
                "the operand of an unsigned conversion (it could be negative)",
            ));
        }
        let zero = self.domain.constant(0.0);
        let wrap = self.domain.constant(f64::from(1u32 << (bits - 1)) * 2.0);
        let wrapped = self.domain.binary(Binary::Add, v, wrap);
        Ok(Elem::Float(match self.domain.cmp(CmpOp::Lt, v, zero) {
            Truth::Known(true) => wrapped,
            Truth::Known(false) => v,
            Truth::Unknown(c) => self.domain.select(c, wrapped, v),
        }))
    }

    /// An integer cast (`extsi`, `extui`, `trunci`, `index_cast`) of a data-dependent
    /// integer into `bits` bits: kept where every value it can be survives the cast.
    pub(super) fn data_int_cast(
        &mut self,
        v: D::V,
        lo: i64,
        hi: i64,
        bits: Option<u32>,
        unsigned: bool,
    ) -> R<Elem<D::V>> {
        let fits = match bits {
            Some(1) => false,
            Some(b) if b < 64 => {
                let (min, max) = (-(1i64 << (b - 1)), (1i64 << (b - 1)) - 1);
                lo >= min && hi <= max
            }
            _ => true,
        };
        if !fits || (unsigned && lo < 0) {
            return Err(data_int_use(
                "the operand of an integer cast that could change its value",
            ));
        }
        Ok(Elem::DataInt { v, lo, hi })
    }
}
