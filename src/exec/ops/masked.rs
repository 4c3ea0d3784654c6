//! Masked-off lanes of a `tt.load` without `other=`: Triton leaves them undefined.
//!
//! An undefined lane is a value of the interpreter's lane representation
//! ([`Elem::Undef`], never a term): ops on it give undefined lanes (see `ops.rs`), a
//! reduction or scan over it is undefined, and a `select` on a decided mask that picks
//! the defined side is defined. Only a use that the GPU would act on is an error:
//! storing it into an output element, or using it as an address, a mask or a branch
//! condition. With `--masked-load zero` ([`MaskedLoad::Zero`]) such lanes read as 0.0,
//! the NVIDIA backend's zero fill.

use super::interp::{Fail, Interp};
use crate::exec::domain::Domain;
use crate::exec::error::ErrorKind;
use crate::exec::execution::MaskedLoad;
use crate::exec::value::Elem;
use crate::triton_ir::ast::Op;

impl<D: Domain> Interp<'_, D> {
    /// The value of a masked-off lane of `op` (a load without `other=`); `index`
    /// caches this load's entry in the table of undefined loads.
    pub(super) fn masked_off_lane(&mut self, op: &Op, index: &mut Option<usize>) -> Elem<D::V> {
        match self.options.masked_load {
            // A zero of the load's element type: an integer load (a label) an integer.
            MaskedLoad::Zero => match op.result_types.first().map(|t| t.elem()) {
                Some(crate::triton_ir::ast::Type::Int(1)) => Elem::Bool(false),
                Some(crate::triton_ir::ast::Type::Int(_)) => Elem::Int(0),
                _ => Elem::Float(self.domain.constant(0.0)),
            },
            MaskedLoad::Undefined => {
                let u = *index.get_or_insert_with(|| {
                    self.undef_loads.push((op.line, op.loc.clone()));
                    self.undef_loads.len() - 1
                });
                Elem::Undef(u)
            }
        }
    }

    /// "the load at .ttir line L (kernel.py:12)" for undefined-load number `u`.
    fn origin(&self, u: usize) -> String {
        let (line, loc) = self.undef_loads.get(u).cloned().unwrap_or_default();
        let src = if loc.file.is_some() {
            format!(" ({loc})")
        } else {
            String::new()
        };
        format!("a masked-off lane of the load at .ttir line {line}{src}, which has no `other=`")
    }

    /// An undefined value about to be stored into element `flat` of `tensor`.
    pub(super) fn undefined_stored(
        &self,
        u: usize,
        tensor: usize,
        flat: usize,
        lane: &[usize],
    ) -> Fail {
        let decl = &self.inst.tensors[tensor];
        Fail {
            kind: ErrorKind::MaskedOff,
            message: format!(
                "stores an undefined value into {}{:?}{}: it comes from {} (Triton leaves such lanes undefined; --masked-load zero reads them as 0, the NVIDIA backend's zero fill)",
                decl.name,
                decl.unravel(flat),
                if lane.is_empty() { String::new() } else { format!(" (lane {lane:?})") },
                self.origin(u)
            ),
        }
    }

    /// An undefined value used as `what` (an address, a mask, a branch condition).
    pub(super) fn undefined_use(&self, u: usize, what: &str) -> Fail {
        Fail {
            kind: ErrorKind::MaskedOff,
            message: format!(
                "{what} is an undefined value: it comes from {}",
                self.origin(u)
            ),
        }
    }
}
