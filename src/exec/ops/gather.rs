//! Loads through pointers whose offset depends on integer data (`tl.load(X_ptr + y)`
//! with `y` a loaded label, an embedding row).
//!
//! Invariant: the same contract as the PTX executor's gathers (`ptx/exec/gather.rs`):
//! the offset is split over the declared values of the integer inputs it reads
//! ([`Domain::index_cases`]); a value the enclosing branches on the data rule out
//! (`self.path`, e.g. `label == ignore_index` on the side that returned) reads nothing;
//! a value some input reaches must address an element of the tensor, else the load is
//! `OutOfBounds` naming that input (or `Unsupported` when no input is found for the
//! rest of the path condition); the value is the gather tree of `term/gather.rs`.
//! Only input values are gathered: `in` tensors, and `inout` elements not yet written. The concrete domain never builds a
//! `DataPtr` (its integers are numbers), so `lift run` reads addresses as before.

use super::interp::{fail, Interp, R};
use crate::exec::domain::{Domain, IndexCases, Truth};
use crate::exec::error::ErrorKind;
use crate::launch::Role;

impl<D: Domain> Interp<'_, D> {
    /// The value lane `lane` loads at element `offset + idx` of `tensor`.
    pub(super) fn gather_lane(
        &mut self,
        tensor: usize,
        offset: i64,
        idx: D::V,
        lane: &[usize],
    ) -> R<D::V> {
        let cases = match self.domain.index_cases(idx) {
            Ok(c) => c,
            Err(m) => {
                return fail(
                    ErrorKind::Unsupported,
                    format!("lane {lane:?} loads at an offset that depends on the data: {m}"),
                )
            }
        };
        let decl = &self.inst.tensors[tensor];
        if decl.role == Role::Out {
            return fail(
                ErrorKind::Unsupported,
                format!(
                    "lane {lane:?} loads from `{}` at an offset that depends on the data, and \
                     the kernel may write `{}` (gathers read input tensors only)",
                    decl.name, decl.name
                ),
            );
        }
        let numel = decl.numel() as i128;
        let mut cells = Vec::with_capacity(cases.cases.len());
        for k in 0..cases.cases.len() {
            let reach = self.path_at(&cases, k);
            if matches!(reach, Truth::Known(false)) {
                cells.push(None);
                continue;
            }
            let flat = offset as i128 + cases.cases[k].1;
            if !(0..numel).contains(&flat) {
                let decl = &self.inst.tensors[tensor];
                let what = format!(
                    "lane {lane:?} loads element {flat} of `{}`, outside its {numel} elements, \
                     at an offset that depends on the data, when {}",
                    decl.name,
                    cases.describe(k)
                );
                return match reach {
                    Truth::Unknown(c) => match self.domain.witness(c) {
                        Some(w) => fail(ErrorKind::OutOfBounds, format!("{what}, {w}")),
                        None => fail(
                            ErrorKind::Unsupported,
                            format!(
                                "{what}, if the branches around it can be taken then (no input \
                                 found that takes them)"
                            ),
                        ),
                    },
                    Truth::Known(_) => fail(ErrorKind::OutOfBounds, what),
                };
            }
            let decl = &self.inst.tensors[tensor];
            // An `inout` element the kernel has not written yet holds its input value;
            // one it wrote may differ per case, which the tree would have to carry.
            if decl.role == Role::Inout && self.memory[tensor].written[flat as usize].is_some() {
                return fail(
                    ErrorKind::Unsupported,
                    format!(
                        "lane {lane:?} loads {}{:?} at an offset that depends on the data after \
                         the kernel wrote it (gathers read input values only)",
                        decl.name,
                        decl.unravel(flat as usize)
                    ),
                );
            }
            let index = decl.unravel(flat as usize);
            cells.push(Some(self.domain.input(tensor, &index, flat as usize)));
        }
        Ok(self.domain.gather(&cases, &cells))
    }

    /// Whether the enclosing branches can be taken with the index at combination `k`.
    fn path_at(&mut self, cases: &IndexCases<D::V>, k: usize) -> Truth<D::V> {
        let mut rest: Option<D::V> = None;
        for (c, side) in self.path.clone() {
            let lit = match self.domain.fix_index(c, cases, k) {
                Truth::Known(b) => Truth::Known(b == side),
                Truth::Unknown(u) if side => Truth::Unknown(u),
                Truth::Unknown(u) => self.domain.not(u),
            };
            match lit {
                Truth::Known(true) => {}
                Truth::Known(false) => return Truth::Known(false),
                Truth::Unknown(l) => {
                    rest = match rest {
                        None => Some(l),
                        Some(r) => match self.domain.and(r, l) {
                            Truth::Known(false) => return Truth::Known(false),
                            Truth::Known(true) => None,
                            Truth::Unknown(x) => Some(x),
                        },
                    }
                }
            }
        }
        match rest {
            None => Truth::Known(true),
            Some(r) => Truth::Unknown(r),
        }
    }
}
