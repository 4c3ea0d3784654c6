//! `tt.atomic_rmw` and `tt.atomic_cas`: read-modify-writes of global memory
//! (`tl.atomic_add`, `atomic_max`, `atomic_min`, `atomic_and`/`or`/`xor`,
//! `atomic_xchg`, `atomic_cas`), lane by lane, in the order the run reaches them
//! (programs in turn), each returning the element's old value.
//!
//! Invariant: each kind has the GPU's meaning on the element type the op names:
//! `fadd` adds reals; integer `add` wraps in its width; `max`/`min` compare signed,
//! `umax`/`umin` unsigned; `and`/`or`/`xor` act on bits; `exch` writes the value;
//! `cas` writes the value only where the element equals the compare value. An integer
//! that depends on the data is kept only where the result is exact without knowing it
//! (a max or min; a sum whose range fits the width); anything else is an error naming
//! the op. An element updated is in bounds, not an input, and holds a value before the
//! first update (an `inout` tensor's initial value, or an earlier write). Every update
//! is logged for the cross-program race check and may take or give back a lock
//! (`order.rs`). The GPU orders the atomics of different programs arbitrarily: the run
//! applies them in its one order; float adds give one sum over the reals (the verdict
//! states that reading, `triton_ir::atomic_notes`), and every other kind makes
//! `exec::execute_with` run the programs again in the reverse order and compare. An
//! integer max or min on a float tensor is Triton's float max or min through the bits
//! (`atomic_bits.rs`).

use super::interp::{fail, malformed, Interp, R};
use super::lanes::broadcast_scalar;
use super::order::Kind;
use crate::exec::domain::{Binary, Domain, Truth};
use crate::exec::error::ErrorKind;
use crate::exec::execution::StoreSite;
use crate::exec::table::IntOp;
use crate::exec::value::{unravel, Elem, Value};
use crate::launch::Role;
use crate::term::CmpOp;
use crate::triton_ir::ast::{Attr, Op, Type};
use std::rc::Rc;

/// What an atomic read-modify-write does to its element.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rmw {
    /// `fadd`: a real sum.
    FAdd,
    /// An integer op on the element's `bits`-bit integer.
    Int(IntOp),
    /// `exch`: the value replaces the element.
    Exch,
    /// `cas`: the value replaces the element where it equals the compare value.
    Cas,
}

impl Rmw {
    fn of(op: &Op) -> R<Rmw> {
        if op.name == "tt.atomic_cas" {
            return Ok(Rmw::Cas);
        }
        let kind = op
            .attr("atomic_rmw_op")
            .and_then(Attr::as_str)
            .unwrap_or("");
        Ok(match kind {
            "fadd" => Rmw::FAdd,
            "add" => Rmw::Int(IntOp::Add),
            "max" => Rmw::Int(IntOp::Max),
            "min" => Rmw::Int(IntOp::Min),
            "umax" => Rmw::Int(IntOp::MaxU),
            "umin" => Rmw::Int(IntOp::MinU),
            "and" => Rmw::Int(IntOp::And),
            "or" => Rmw::Int(IntOp::Or),
            "xor" => Rmw::Int(IntOp::Xor),
            "exch" => Rmw::Exch,
            other => {
                return fail(
                    ErrorKind::Unsupported,
                    format!("tt.atomic_rmw {other}: an atomic kind lift does not read"),
                )
            }
        })
    }

    fn verb(self) -> &'static str {
        match self {
            Rmw::FAdd => "adds atomically to",
            _ => "updates atomically",
        }
    }
}

/// The memory ordering of an atomic: (acquire, release); Triton's default is acq_rel.
fn semantics(op: &Op) -> (bool, bool) {
    match op.attr("sem").and_then(Attr::as_str).unwrap_or("acq_rel") {
        "relaxed" => (false, false),
        "acquire" => (true, false),
        "release" => (false, true),
        _ => (true, true),
    }
}

impl<'a, D: Domain> Interp<'a, D> {
    pub(super) fn atomic_rmw(&mut self, op: &Op, args: &[Rc<Value<D::V>>]) -> R<Value<D::V>> {
        let rmw = Rmw::of(op)?;
        let elem_ty = op.result_types.first().map(|t| t.elem().clone());
        let bits = match (&elem_ty, rmw) {
            (Some(Type::Int(b)), _) => *b,
            (Some(Type::Float(_)), Rmw::FAdd | Rmw::Exch | Rmw::Cas) => 0,
            (ty, _) => {
                return fail(
                    ErrorKind::Unsupported,
                    format!(
                        "{} of {}: only float adds, exchanges and compare-and-swaps of floats are read (a float max or min through its bits is not)",
                        op.name,
                        ty.as_ref().map_or("no type".into(), |t| t.to_string())
                    ),
                )
            }
        };
        if rmw == Rmw::FAdd && bits != 0 {
            return malformed("tt.atomic_rmw fadd of an integer");
        }
        let (Some(ptrs), Some(vals)) = (args.first(), args.get(1)) else {
            return malformed("needs a pointer and a value");
        };
        // `tt.atomic_cas %ptr, %cmp, %val`; `tt.atomic_rmw %ptr, %val[, %mask]`.
        let (cmps, vals, mask) = match rmw {
            Rmw::Cas => {
                let Some(v) = args.get(2) else {
                    return malformed("tt.atomic_cas needs a pointer, a compare value and a value");
                };
                (
                    Some(broadcast_scalar(vals, &ptrs.shape)),
                    broadcast_scalar(v, &ptrs.shape),
                    None,
                )
            }
            _ => (
                None,
                broadcast_scalar(vals, &ptrs.shape),
                args.get(2).map(|m| broadcast_scalar(m, &ptrs.shape)),
            ),
        };
        if rmw != Rmw::FAdd {
            self.order.order_sensitive = true;
        }
        let (acquire, release) = semantics(op);
        let site = self.store_sites.len();
        let mut used_site = false;
        let mut undef_index = None;
        let mut old = Vec::with_capacity(ptrs.elems.len());
        for (i, &p) in ptrs.elems.iter().enumerate() {
            let mut lane_cond = None;
            match mask.as_ref().map(|m| m.elems[i]) {
                None | Some(Elem::Bool(true)) => {}
                // only a float max or min through its bits reads such a mask (below)
                Some(Elem::Cond(c)) => lane_cond = Some(c),
                Some(Elem::Bool(false)) => {
                    let e = self.masked_off_lane(op, &mut undef_index);
                    old.push(e);
                    continue;
                }
                Some(Elem::Undef(u)) => return Err(self.undefined_use(u, "an atomic's mask")),
                Some(other) => {
                    return fail(
                        ErrorKind::Unsupported,
                        format!("atomic mask is {} that depends on the data", other.kind()),
                    )
                }
            }
            let lane = unravel(i, &ptrs.shape);
            let (tensor, flat) = self.address(p, &lane, ptrs.shape.len(), rmw.verb())?;
            let inst = self.inst;
            let decl = &inst.tensors[tensor];
            let index = decl.unravel(flat);
            if decl.role == Role::In {
                return fail(
                    ErrorKind::WriteToInput,
                    format!(
                        "lane {lane:?} {} {}{index:?}, but the launch declares `{}` as an input (use role = \"inout\")",
                        rmw.verb(), decl.name, decl.name
                    ),
                );
            }
            let value = vals.elems[i];
            if let Elem::Undef(u) = value {
                return Err(self.undefined_stored(u, tensor, flat, &lane));
            }
            let before = match self.memory[tensor].written[flat] {
                Some((v, _, _)) => v,
                None if decl.role == Role::Inout => self.domain.input(tensor, &index, flat),
                None => {
                    self.unwritten = Some(tensor);
                    return fail(
                        ErrorKind::NeverWritten,
                        format!(
                            "lane {lane:?} {} {}{index:?}, an element of output `{}` that holds no value yet (declare it role = \"inout\": the kernel updates what the caller put there)",
                            rmw.verb(), decl.name, decl.name
                        ),
                    );
                }
            };
            // integer atomics on a float tensor's bits: Triton's float max and min
            let float_bits = bits != 0 && decl.dtype.is_float();
            if lane_cond.is_some() && !float_bits {
                return fail(
                    ErrorKind::Unsupported,
                    "atomic mask is a boolean that depends on the data",
                );
            }
            let before_elem = match (bits, float_bits) {
                (0, _) => Elem::Float(before),
                (_, true) => self.bits_of(before, bits),
                _ => self.int_elem(before, bits),
            };
            let element = || format!("{}{index:?}", decl.name);
            self.order
                .access(tensor, flat, element, Kind::Atomic, None, op.line, &op.loc)?;
            let after = match rmw {
                Rmw::FAdd => match value {
                    Elem::Float(v) => Some(self.domain.binary(Binary::Add, before, v)),
                    other => return malformed(format!("tt.atomic_rmw fadd of {}", other.kind())),
                },
                Rmw::Int(io) if float_bits => {
                    let v = self.float_of_lane(value, bits)?;
                    Some(self.float_bits_update((tensor, flat), io, before, v, lane_cond)?)
                }
                Rmw::Exch | Rmw::Cas if float_bits => {
                    return fail(
                        ErrorKind::Unsupported,
                        format!("{} of a float tensor through an integer pointer", op.name),
                    )
                }
                Rmw::Int(io) => {
                    let e = self.int_binary(io, bits, before_elem, value).map_err(|f| {
                        super::interp::Fail {
                            kind: f.kind,
                            message: format!(
                                "{}: {}",
                                op.attr("atomic_rmw_op")
                                    .and_then(Attr::as_str)
                                    .unwrap_or(""),
                                f.message
                            ),
                        }
                    })?;
                    Some(self.memory_value(e)?)
                }
                Rmw::Exch => Some(self.memory_value(value)?),
                Rmw::Cas => {
                    let cmp = cmps.as_ref().map_or(value, |c| c.elems[i]);
                    match self.equal(before_elem, cmp)? {
                        true => Some(self.memory_value(value)?),
                        false => {
                            self.order.failed_take((tensor, flat), &element());
                            None
                        }
                    }
                }
            };
            if let Some(after) = after {
                let new_int = self.domain.as_number(after).map(|x| x as i64);
                // giving back a lock this program holds, else (a compare-and-swap that
                // found its compare value and wrote another) taking one
                let released = self.order.wrote((tensor, flat), new_int, release);
                let cmp = cmps.as_ref().and_then(|c| match c.elems[i] {
                    Elem::Int(k) => Some(k),
                    _ => None,
                });
                if let (false, Some(free)) = (released, cmp) {
                    if new_int != Some(free) {
                        self.order
                            .take((tensor, flat), free, acquire, op.line, &op.loc);
                    }
                }
                if after != before {
                    self.effects += 1;
                }
                used_site = true;
                self.memory[tensor].written[flat] = Some((after, site, self.program));
            }
            old.push(before_elem);
        }
        if used_site {
            self.store_sites.push(StoreSite {
                line: op.line,
                loc: op.loc.clone(),
            });
        }
        Ok(Value {
            shape: ptrs.shape.clone(),
            elems: old,
        })
    }

    /// A `bits`-bit integer element of memory as a lane: the integer where the domain
    /// knows it, else an integer of the data within the width.
    fn int_elem(&mut self, v: D::V, bits: u32) -> Elem<D::V> {
        if let Some((lo, hi)) = self.domain.int_range(v).filter(|(lo, hi)| lo == hi) {
            let _ = hi;
            return Elem::Int(lo as i64);
        }
        let b = bits.clamp(2, 64) - 1;
        let (min, max) = ((-1i128 << b) as i64, ((1i128 << b) - 1) as i64);
        let (lo, hi) = self.domain.int_range(v).map_or((min, max), |(lo, hi)| {
            (lo.max(min as i128) as i64, hi.min(max as i128) as i64)
        });
        Elem::DataInt { v, lo, hi }
    }

    /// The real memory holds for a lane written by an atomic.
    fn memory_value(&mut self, e: Elem<D::V>) -> R<D::V> {
        Ok(match e {
            Elem::Float(v) | Elem::DataInt { v, .. } => v,
            Elem::Int(k) => self.domain.integer(k as i128),
            Elem::Bool(b) => self.domain.constant(b as u8 as f64),
            other => return malformed(format!("an atomic writes {}", other.kind())),
        })
    }

    /// Whether a compare-and-swap finds its compare value; an error where that depends
    /// on the data.
    fn equal(&mut self, a: Elem<D::V>, b: Elem<D::V>) -> R<bool> {
        if let (Elem::Int(x), Elem::Int(y)) = (a, b) {
            return Ok(x == y);
        }
        let (Ok(x), Ok(y)) = (self.memory_value(a), self.memory_value(b)) else {
            return malformed("tt.atomic_cas compares a value that is not a number");
        };
        match self.domain.cmp(CmpOp::Eq, x, y) {
            Truth::Known(t) => Ok(t),
            Truth::Unknown(_) => fail(
                ErrorKind::Unsupported,
                "tt.atomic_cas: whether the element equals the compare value depends on the data",
            ),
        }
    }
}
