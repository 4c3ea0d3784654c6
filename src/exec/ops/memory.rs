//! `tt.load` and `tt.store`: addresses checked against their tensors, masks, memory.
//!
//! Invariant: every lane that reads or writes memory is in bounds, reads an element
//! that is defined (an input, or an output written before), and writes no input; every
//! access to an output is logged for the cross-program race check (`order.rs`).

use super::interp::{fail, malformed, Interp, R};
use super::lanes::broadcast_scalar;
use super::order::Kind;
use crate::exec::domain::Domain;
use crate::exec::error::ErrorKind;
use crate::exec::execution::StoreSite;
use crate::exec::value::{unravel, Elem, Value};
use crate::launch::Role;
use crate::triton_ir::ast::Op;
use std::rc::Rc;

impl<'a, D: Domain> Interp<'a, D> {
    /// Check a pointer lane and return (tensor, flat offset).
    pub(super) fn address(
        &self,
        p: Elem<D::V>,
        lane: &[usize],
        shape_rank: usize,
        verb: &str,
    ) -> R<(usize, usize)> {
        let Elem::Ptr { tensor, offset } = p else {
            return match p {
                Elem::Undef(u) => {
                    Err(self.undefined_use(u, &format!("the address lane {lane:?} {verb} through")))
                }
                Elem::DataPtr { .. } => fail(
                    ErrorKind::Unsupported,
                    format!(
                        "lane {lane:?} {verb} at an offset that depends on the data (a scatter);                          only loads are split over the index's declared values"
                    ),
                ),
                other => malformed(format!("address is {}", other.kind())),
            };
        };
        let t = &self.inst.tensors[tensor];
        let n = t.numel();
        if offset < 0 || offset as usize >= n {
            let lane = if shape_rank == 0 {
                String::new()
            } else {
                format!("lane {lane:?} ")
            };
            return fail(
                ErrorKind::OutOfBounds,
                format!(
                    "out of bounds: {lane}{verb} {}[{offset}] (flat), but {} has {n} elements (shape {:?})",
                    t.name, t.name, t.shape
                ),
            );
        }
        Ok((tensor, offset as usize))
    }

    pub(super) fn load(&mut self, op: &Op, args: &[Rc<Value<D::V>>]) -> R<Value<D::V>> {
        let Some(ptrs) = args.first() else {
            return malformed("no pointer operand");
        };
        let mask = args.get(1).map(|m| broadcast_scalar(m, &ptrs.shape));
        let other = args.get(2).map(|o| broadcast_scalar(o, &ptrs.shape));
        let mut elems = Vec::with_capacity(ptrs.elems.len());
        let mut undef_index = None;
        for (i, &p) in ptrs.elems.iter().enumerate() {
            let on = match mask.as_ref().map(|m| m.elems[i]) {
                None | Some(Elem::Bool(true)) => true,
                Some(Elem::Bool(false)) => false,
                Some(Elem::Undef(u)) => return Err(self.undefined_use(u, "a load mask")),
                Some(other) => {
                    return fail(
                        ErrorKind::Unsupported,
                        format!("load mask is {} that depends on the data", other.kind()),
                    )
                }
            };
            if !on {
                match &other {
                    Some(o) => elems.push(o.elems[i]),
                    None => {
                        let e = self.masked_off_lane(op, &mut undef_index);
                        elems.push(e);
                    }
                }
                continue;
            }
            let lane = unravel(i, &ptrs.shape);
            if let Elem::DataPtr {
                tensor,
                offset,
                idx,
            } = p
            {
                let v = self.gather_lane(tensor, offset, idx, &lane)?;
                let dtype = self.inst.tensors[tensor].dtype;
                elems.push(self.loaded(dtype, v));
                continue;
            }
            let (tensor, flat) = self.address(p, &lane, ptrs.shape.len(), "loads")?;
            let decl = &self.inst.tensors[tensor];
            let value = match decl.role {
                Role::In => self.domain.input(tensor, &decl.unravel(flat), flat),
                Role::Out | Role::Inout => match self.memory[tensor].written[flat] {
                    Some((v, _, _)) => v,
                    None if decl.role == Role::Inout => {
                        self.domain.input(tensor, &decl.unravel(flat), flat)
                    }
                    None => {
                        self.unwritten = Some(tensor);
                        return fail(
                            ErrorKind::NeverWritten,
                            format!(
                                "lane {lane:?} reads {}{:?}, an element of output `{}` that was never written (declare it role = \"inout\" if the kernel reads its initial value)",
                                decl.name,
                                decl.unravel(flat),
                                decl.name
                            ),
                        );
                    }
                },
            };
            if decl.role != Role::In {
                let element = || format!("{}{:?}", decl.name, decl.unravel(flat));
                self.order
                    .access(tensor, flat, element, Kind::Load, None, op.line, &op.loc)?;
            }
            elems.push(self.loaded(decl.dtype, value));
        }
        Ok(Value {
            shape: ptrs.shape.clone(),
            elems,
        })
    }

    pub(super) fn store(&mut self, op: &Op, args: &[Rc<Value<D::V>>]) -> R<()> {
        let (Some(ptrs), Some(vals)) = (args.first(), args.get(1)) else {
            return malformed("needs a pointer and a value");
        };
        let vals = broadcast_scalar(vals, &ptrs.shape);
        let mask = args.get(2).map(|m| broadcast_scalar(m, &ptrs.shape));
        let site = self.store_sites.len();
        let mut used_site = false;
        for (i, &p) in ptrs.elems.iter().enumerate() {
            match mask.as_ref().map(|m| m.elems[i]) {
                None | Some(Elem::Bool(true)) => {}
                Some(Elem::Bool(false)) => continue,
                Some(Elem::Undef(u)) => return Err(self.undefined_use(u, "a store mask")),
                Some(other) => {
                    return fail(
                        ErrorKind::Unsupported,
                        format!("store mask is {} that depends on the data", other.kind()),
                    )
                }
            }
            let lane = unravel(i, &ptrs.shape);
            let (tensor, flat) = self.address(p, &lane, ptrs.shape.len(), "stores")?;
            let decl = &self.inst.tensors[tensor];
            if decl.role == Role::In {
                return fail(
                    ErrorKind::WriteToInput,
                    format!(
                        "lane {lane:?} writes {}{:?}, but the launch declares `{}` as an input (use role = \"out\" or \"inout\")",
                        decl.name,
                        decl.unravel(flat),
                        decl.name
                    ),
                );
            }
            let value = match vals.elems[i] {
                Elem::Float(v) => v,
                Elem::Int(k) => self.domain.constant(k as f64),
                Elem::DataInt { v, .. } => v,
                Elem::Bool(b) => self.domain.constant(b as u8 as f64),
                Elem::Cond(c) => {
                    let (one, zero) = (self.domain.constant(1.0), self.domain.constant(0.0));
                    self.domain.select(c, one, zero)
                }
                Elem::Undef(u) => return Err(self.undefined_stored(u, tensor, flat, &lane)),
                Elem::Ptr { .. } | Elem::DataPtr { .. } => return malformed("stores a pointer"),
            };
            let element = || format!("{}{:?}", decl.name, decl.unravel(flat));
            self.order.access(
                tensor,
                flat,
                element,
                Kind::Store,
                Some(value),
                op.line,
                &op.loc,
            )?;
            self.effects += 1;
            if let Some((_, _, prev)) = self.memory[tensor].written[flat] {
                // a write under a lock is ordered after the earlier one (the race log
                // checks that order)
                if prev != self.program && !self.order.in_critical_section() {
                    let w = format!(
                        "{}{:?} is written by programs {:?} and {:?}; the later write wins",
                        decl.name,
                        decl.unravel(flat),
                        prev,
                        self.program
                    );
                    self.written_twice.get_or_insert_with(|| w.clone());
                    self.warn_once(w);
                }
            }
            used_site = true;
            self.memory[tensor].written[flat] = Some((value, site, self.program));
        }
        if used_site {
            self.store_sites.push(StoreSite {
                line: op.line,
                loc: op.loc.clone(),
            });
        }
        Ok(())
    }
}
