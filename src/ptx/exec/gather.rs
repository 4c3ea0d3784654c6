//! Loads at addresses computed from loaded integers: `x[row * N + label[row]]`, an
//! embedding row, a gather.
//!
//! Invariant: such an address is an integer term over integer input elements whose
//! launch declares their values (`values = "0..N"`, plus special values such as an
//! ignore_index), or whose dtype is small. The load is split over every combination of
//! those values ([`Domain::index_cases`]): a combination the thread's path rules out
//! reads nothing; one it may reach must be in bounds — else the load is an
//! `OutOfBounds` finding naming the input that reaches it (with a witness for the rest
//! of the path condition where one is needed), or `Unsupported` when no such input is
//! found; the others read their element. The value is the gather tree of
//! `term/gather.rs` over those cells, exact on every declared input. Only input
//! tensors (`role = "in"`, never written) are gathered from, so no access here can
//! race; stores at such addresses (scatters) are `Unsupported`.

use super::place::{Place, GATHER_UNSUPPORTED};
use super::*;
use crate::exec::domain::IndexCases;

impl<D: Domain> Sim<'_, D> {
    /// `ld` of `dsts.len()` elements of `size` bytes at data-dependent address `s +
    /// off`.
    pub(super) fn gather_load(
        &mut self,
        t: usize,
        s: D::V,
        off: i64,
        size: u64,
        space: Option<Space>,
        dsts: Vec<&Operand>,
    ) -> Result<(), Fail> {
        if !matches!(space, None | Some(Space::Global)) {
            return unsupported(
                "a load from shared or constant memory at a data-dependent address (only global \
                 tensors are gathered from)",
            );
        }
        let cases = self
            .domain
            .index_cases(s)
            .map_err(|m| (ErrorKind::Unsupported, format!("{GATHER_UNSUPPORTED}: {m}")))?;
        let reach: Vec<Truth<D::V>> = (0..cases.cases.len())
            .map(|k| match self.path {
                None => Truth::Known(true),
                Some(c) => self.domain.fix_index(c, &cases, k),
            })
            .collect();
        for (j, d) in dsts.into_iter().enumerate() {
            let extra = off + j as i64 * size as i64;
            let (tensor, cells) = self.gather_cells(t, &cases, &reach, extra, size)?;
            let v = self.domain.gather(&cases, &cells);
            let v = if self.inst.tensors[tensor].dtype.is_float() {
                Val::Float(v)
            } else {
                Val::Sym(v)
            };
            self.write(t, d, v)?;
        }
        Ok(())
    }

    /// The tensor read and the element each reachable case reads.
    fn gather_cells(
        &mut self,
        t: usize,
        cases: &IndexCases<D::V>,
        reach: &[Truth<D::V>],
        extra: i64,
        size: u64,
    ) -> Result<(usize, Vec<Option<D::V>>), Fail> {
        let addr_of = |k: usize| cases.cases[k].1 + extra as i128;
        // The tensor: the one the first in-bounds address lies in.
        let tensor = (0..cases.cases.len())
            .filter(|&k| !matches!(reach[k], Truth::Known(false)))
            .find_map(|k| {
                let a = u64::try_from(addr_of(k)).ok()?;
                match self.place(t, a, size, Some(Space::Global)) {
                    Ok(Place::Tensor(i, _)) => Some(i),
                    _ => None,
                }
            });
        let Some(i) = tensor else {
            // No reachable case is in bounds: report the first reachable one.
            return match (0..cases.cases.len()).find(|&k| !matches!(reach[k], Truth::Known(false)))
            {
                Some(k) => self.gather_oob(
                    cases,
                    &reach[k],
                    k,
                    format!("address {:#x} is in no tensor", addr_of(k)),
                ),
                None => Ok((0, vec![None; cases.cases.len()])),
            };
        };
        let td = &self.inst.tensors[i];
        if td.role != Role::In {
            return unsupported(format!(
                "a load at a data-dependent address from `{}`, which the kernel may write \
                 (gathers read input tensors only)",
                td.name
            ));
        }
        let e = td.dtype.bytes();
        if size != e {
            return unsupported(format!(
                "a {size}-byte load at a data-dependent address of `{}`, whose elements have {e} bytes",
                td.name
            ));
        }
        let base = ((i as i128) + 1) << TENSOR_SHIFT;
        let numel = td.numel() as i128;
        let name = td.name.clone();
        let mut cells = Vec::with_capacity(cases.cases.len());
        for k in 0..cases.cases.len() {
            if matches!(reach[k], Truth::Known(false)) {
                cells.push(None);
                continue;
            }
            let rel = addr_of(k) - base;
            if rel % e as i128 != 0 {
                return unsupported(format!(
                    "a load at a data-dependent address that is not a whole element of `{name}` \
                     (byte {rel}) when {}",
                    cases.describe(k)
                ));
            }
            let flat = rel / e as i128;
            if !(0..numel).contains(&flat) {
                let what = format!(
                    "global load of element {flat} of `{name}`, outside its {numel} elements"
                );
                return self
                    .gather_oob(cases, &reach[k], k, what)
                    .map(|_| (i, Vec::new()));
            }
            cells.push(self.tensor_elem(i, flat as usize));
        }
        Ok((i, cells))
    }

    /// An out-of-bounds case of a gather: a finding with the input when some input
    /// reaches it, else `Unsupported`.
    fn gather_oob(
        &mut self,
        cases: &IndexCases<D::V>,
        reach: &Truth<D::V>,
        k: usize,
        what: String,
    ) -> Result<(usize, Vec<Option<D::V>>), Fail> {
        let input = cases.describe(k);
        match reach {
            Truth::Known(_) => fail(
                ErrorKind::OutOfBounds,
                format!("{what} at a data-dependent address, when {input}"),
            ),
            Truth::Unknown(c) => match self.domain.witness(*c) {
                Some(w) => fail(
                    ErrorKind::OutOfBounds,
                    format!("{what} at a data-dependent address, when {input}, {w}"),
                ),
                None => unsupported(format!(
                    "{what} at a data-dependent address when {input}, if the path condition \
                     can hold then (no input found that makes it hold)"
                )),
            },
        }
    }

    /// A read-only load (`ld.global.nc`, `ld.const`) at a data-dependent address that
    /// is no gather from an input, in a module with initialised tables (libm's
    /// `__cudart_sin_cos_coeffs`, indexed by a quadrant): each element an opaque
    /// function of the address, named by the load and a fingerprint of the module's
    /// initialised variables, so identical code over identical tables gives an
    /// identical term (the libm probes) and decide reads nothing into it.
    pub(super) fn table_load(
        &mut self,
        t: usize,
        s: D::V,
        off: i64,
        size: u64,
        mnemonic: &str,
        dsts: Vec<&Operand>,
    ) -> Result<(), Fail> {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for v in self.vars.iter().filter(|v| v.init.is_some()) {
            let text = format!("{}@{:x}{:?}", v.name, v.addr, v.init);
            for b in text.bytes() {
                h ^= b as u64;
                h = h.wrapping_mul(0x100_0000_01b3);
            }
        }
        let name = format!("{mnemonic}@tables#{h:016x}");
        for (k, d) in dsts.into_iter().enumerate() {
            let o = self.domain.bits((off + k as i64 * size as i64) as u64);
            let v = self.opaque(&name, &[s, o])?;
            self.write(t, d, Val::Sym(v))?;
        }
        Ok(())
    }
}
