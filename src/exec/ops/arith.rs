//! The bounded run's integer ops on one lane (the hooks `exec::walk::Control::int_op`,
//! ...; the dispatch of every value op is `exec::walk`): machine integers of the op's
//! width (`int.rs`, `exec::ints` over [`Machine`]), integers chosen by the data
//! (`select.rs`), and conditions on the data.
//!
//! Invariant: every float operation goes through the [`Domain`]; integers are machine
//! integers of the op's width.

use super::int;
use super::interp::{fail, malformed, truth_elem, Interp, R};
use crate::exec::domain::{Domain, Truth};
use crate::exec::error::ErrorKind;
use crate::exec::ints::{self, Machine};
use crate::exec::table::IntOp;
use crate::exec::value::{Elem, Value};
use crate::triton_ir::ast::{Op, Type};

impl<'a, D: Domain> Interp<'a, D> {
    /// `arith.cmpi` of one lane pair, on operands of `bits`.
    pub(super) fn int_compare_lane(
        &mut self,
        pred: &str,
        bits: u32,
        a: Elem<D::V>,
        b: Elem<D::V>,
    ) -> R<Elem<D::V>> {
        match (a, b) {
            (Elem::Int(x), Elem::Int(y)) => {
                ints::compare(&mut Machine, pred, bits, &(x as i128), &(y as i128)).map(Elem::Bool)
            }
            (Elem::DataInt { .. }, Elem::Int(_) | Elem::DataInt { .. })
            | (Elem::Int(_), Elem::DataInt { .. }) => self
                .data_int_compare(pred, a, b)
                .unwrap_or_else(|| malformed("integer comparison")),
            (Elem::Bool(x), Elem::Bool(y)) => {
                ints::compare_conds(&mut Machine, pred, &x, &y).map(Elem::Bool)
            }
            (Elem::Undef(u), _) | (_, Elem::Undef(u)) => Ok(Elem::Undef(u)),
            (a, b) => fail(
                ErrorKind::Unsupported,
                format!("integer comparison of {} with {}", a.kind(), b.kind()),
            ),
        }
    }

    /// An integer cast (`extsi`, `extui`, `trunci`, ...) of one lane, as op `op` types it.
    pub(super) fn int_cast_lane(
        &mut self,
        op: &Op,
        signed: bool,
        unsigned: bool,
        e: Elem<D::V>,
    ) -> R<Elem<D::V>> {
        let to_bool = matches!(op.result_types.first().map(Type::elem), Some(Type::Int(1)));
        let bits = match op.result_types.first().map(Type::elem) {
            Some(Type::Int(b)) => Some(*b),
            _ => None,
        };
        let src = op.operand_types.first().map_or(64, int::width);
        match e {
            Elem::DataInt { v, lo, hi } => self.data_int_cast(v, lo, hi, bits, unsigned),
            Elem::Int(i) if to_bool => Ok(Elem::Bool(ints::to_bool(&mut Machine, &(i as i128)))),
            Elem::Int(i) => {
                let dst = bits.unwrap_or(64);
                ints::cast(&mut Machine, src, dst, unsigned, &(i as i128))
                    .map(|x| Elem::Int(x as i64))
            }
            Elem::Bool(b) if to_bool => Ok(Elem::Bool(b)),
            Elem::Bool(b) => ints::from_bool(&mut Machine, &b, signed).map(|x| Elem::Int(x as i64)),
            Elem::Undef(u) => Ok(Elem::Undef(u)),
            other => fail(
                ErrorKind::Unsupported,
                format!("integer cast of {}", other.kind()),
            ),
        }
    }

    /// `sitofp`/`uitofp` of one lane of `bits`.
    pub(super) fn int_to_float_lane(
        &mut self,
        bits: u32,
        unsigned: bool,
        e: Elem<D::V>,
    ) -> R<Elem<D::V>> {
        match e {
            Elem::Int(i) => {
                let x = ints::as_converted(&mut Machine, bits, unsigned, &(i as i128))?;
                Ok(Elem::Float(self.domain.constant(x as f64)))
            }
            Elem::DataInt { v, lo, .. } => self.data_int_to_float(v, lo, bits, unsigned),
            Elem::Bool(b) => {
                let x = ints::from_bool(&mut Machine, &b, !unsigned)?;
                Ok(Elem::Float(self.domain.constant(x as f64)))
            }
            Elem::Cond(c) => {
                // `sitofp` reads a true i1 as -1 (MLIR's sign extension).
                let one = self.domain.constant(if unsigned { 1.0 } else { -1.0 });
                let zero = self.domain.constant(0.0);
                Ok(Elem::Float(self.domain.select(c, one, zero)))
            }
            Elem::Undef(u) => Ok(Elem::Undef(u)),
            other => malformed(format!("converts {}", other.kind())),
        }
    }

    /// `fptosi`/`fptoui` of one lane to `bits`.
    pub(super) fn float_to_int_lane(
        &mut self,
        bits: u32,
        unsigned: bool,
        e: Elem<D::V>,
    ) -> R<Elem<D::V>> {
        match e {
            Elem::Float(v) => {
                let x = self.domain.as_number(v);
                ints::from_float(&mut Machine, x, bits, unsigned).map(|i| Elem::Int(i as i64))
            }
            Elem::Undef(u) => Ok(Elem::Undef(u)),
            other => malformed(format!("converts {}", other.kind())),
        }
    }

    /// `ub.poison`: every lane undefined, as a masked-off load's.
    pub(super) fn poison_value(&mut self, op: &Op) -> Value<D::V> {
        let shape: Vec<usize> = op
            .result_types
            .first()
            .map(|t| t.shape().iter().map(|&d| d.max(0) as usize).collect())
            .unwrap_or_default();
        let idx = self.undef_loads.len();
        self.undef_loads.push((op.line, op.loc.clone()));
        Value::splat(Elem::Undef(idx), &shape)
    }

    pub(super) fn int_binary(
        &mut self,
        op: IntOp,
        bits: u32,
        a: Elem<D::V>,
        b: Elem<D::V>,
    ) -> R<Elem<D::V>> {
        match (a, b) {
            (Elem::Int(x), Elem::Int(y)) => {
                ints::binary(&mut Machine, op, bits, &(x as i128), &(y as i128))
                    .map(|r| Elem::Int(r as i64))
            }
            (Elem::DataInt { .. }, Elem::Int(_) | Elem::DataInt { .. })
            | (Elem::Int(_), Elem::DataInt { .. }) => self
                .data_int_binary(op, bits, a, b)
                .unwrap_or_else(|| malformed("integer op")),
            (Elem::Bool(x), Elem::Bool(y)) => ints::logic(&mut Machine, op, &x, &y).map(Elem::Bool),
            (Elem::Cond(c), Elem::Bool(k)) | (Elem::Bool(k), Elem::Cond(c)) => match (op, k) {
                (IntOp::And, true) | (IntOp::Or, false) | (IntOp::Xor, false) => Ok(Elem::Cond(c)),
                (IntOp::And, false) => Ok(Elem::Bool(false)),
                (IntOp::Or, true) => Ok(Elem::Bool(true)),
                (IntOp::Xor, true) => Ok(truth_elem(self.domain.not(c))),
                _ => fail(
                    ErrorKind::Unsupported,
                    "integer arithmetic on a data-dependent boolean",
                ),
            },
            (Elem::Cond(x), Elem::Cond(y)) => match op {
                IntOp::And => Ok(truth_elem(self.domain.and(x, y))),
                IntOp::Or => Ok(truth_elem(self.domain.or(x, y))),
                IntOp::Xor => {
                    // x != y  ==  (x || y) && !(x && y)
                    let either = self.domain.or(x, y);
                    let both = self.domain.and(x, y);
                    match (either, both) {
                        (Truth::Known(e), Truth::Known(b)) => Ok(Elem::Bool(e && !b)),
                        _ => fail(ErrorKind::Unsupported, "xor of two data-dependent booleans"),
                    }
                }
                _ => fail(
                    ErrorKind::Unsupported,
                    "integer arithmetic on a data-dependent boolean",
                ),
            },
            (Elem::Undef(u), _) | (_, Elem::Undef(u)) => Ok(Elem::Undef(u)),
            (a, b) => malformed(format!("integer op on {} and {}", a.kind(), b.kind())),
        }
    }
}
