//! `tt.atomic_rmw`: a read-modify-write of global memory (`tl.atomic_add`), lane by lane,
//! in the order the run reaches it (programs in turn).
//!
//! Invariant: only float `fadd` is read; every other kind (`max`, `xchg`, integer adds,
//! ...) is an error naming it. An element updated is in bounds, not an input, and holds
//! a value before the first add (an `inout` tensor's initial value, or an earlier
//! write). The GPU orders the adds of different programs arbitrarily: the run applies
//! them in its one order, which over the reals gives their one sum; the verdict states
//! that reading (`triton_ir::atomic_notes`). The op's result is each lane's old value.

use super::interp::{fail, malformed, Interp, R};
use super::lanes::broadcast_scalar;
use crate::exec::domain::{Binary, Domain};
use crate::exec::error::ErrorKind;
use crate::exec::execution::StoreSite;

use crate::exec::value::{unravel, Elem, Value};
use crate::launch::Role;
use crate::triton_ir::ast::{Attr, Op};
use std::rc::Rc;

impl<'a, D: Domain> Interp<'a, D> {
    pub(super) fn atomic_rmw(&mut self, op: &Op, args: &[Rc<Value<D::V>>]) -> R<Value<D::V>> {
        let kind = op
            .attr("atomic_rmw_op")
            .and_then(Attr::as_str)
            .unwrap_or("");
        if kind != "fadd" {
            return fail(
                ErrorKind::Unsupported,
                format!("tt.atomic_rmw {kind}: only float atomic adds (fadd) are read"),
            );
        }
        let (Some(ptrs), Some(vals)) = (args.first(), args.get(1)) else {
            return malformed("needs a pointer and a value");
        };
        let vals = broadcast_scalar(vals, &ptrs.shape);
        let mask = args.get(2).map(|m| broadcast_scalar(m, &ptrs.shape));
        let site = self.store_sites.len();
        let mut used_site = false;
        let mut undef_index = None;
        let mut old = Vec::with_capacity(ptrs.elems.len());
        for (i, &p) in ptrs.elems.iter().enumerate() {
            match mask.as_ref().map(|m| m.elems[i]) {
                None | Some(Elem::Bool(true)) => {}
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
            let (tensor, flat) = self.address(p, &lane, ptrs.shape.len(), "adds atomically to")?;
            let decl = &self.inst.tensors[tensor];
            let index = decl.unravel(flat);
            if decl.role == Role::In {
                return fail(
                    ErrorKind::WriteToInput,
                    format!(
                        "lane {lane:?} adds atomically to {}{index:?}, but the launch declares `{}` as an input (use role = \"inout\")",
                        decl.name, decl.name
                    ),
                );
            }
            let add = match vals.elems[i] {
                Elem::Float(v) => v,
                Elem::Undef(u) => return Err(self.undefined_stored(u, tensor, flat, &lane)),
                other => {
                    return malformed(format!("tt.atomic_rmw fadd of {}", other.kind()));
                }
            };
            let before = match self.memory[tensor].written[flat] {
                Some((v, _, _)) => v,
                None if decl.role == Role::Inout => self.domain.input(tensor, &index, flat),
                None => {
                    self.unwritten = Some(tensor);
                    return fail(
                        ErrorKind::NeverWritten,
                        format!(
                            "lane {lane:?} adds atomically to {}{index:?}, an element of output `{}` that holds no value yet (declare it role = \"inout\": the kernel adds to what the caller put there)",
                            decl.name, decl.name
                        ),
                    );
                }
            };
            let after = self.domain.binary(Binary::Add, before, add);
            used_site = true;
            self.memory[tensor].written[flat] = Some((after, site, self.program));
            old.push(Elem::Float(before));
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
}
