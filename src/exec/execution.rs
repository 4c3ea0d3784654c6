//! What a bounded run returns ([`Execution`]: each output tensor's final contents and
//! who wrote them, warnings, work done) and the choices it is run with ([`Options`]).
//!
//! Invariant: an output element is `None` only where no program wrote it and the
//! tensor is `out` (an `inout` element keeps its input value).

use super::domain::Domain;
use crate::launch::{Instance, Role};
use crate::triton_ir::ast::Loc;

/// Where a store happened: its .ttir line and Python source location.
#[derive(Clone, Debug, PartialEq)]
pub struct StoreSite {
    pub line: u32,
    pub loc: Loc,
}

/// The final contents of one output (`out` or `inout`) tensor.
#[derive(Clone, Debug)]
pub struct Output<V> {
    /// Index into the instance's tensors.
    pub tensor: usize,
    pub name: String,
    pub shape: Vec<usize>,
    /// Element values, row-major; `None` where nothing was written (for `inout`
    /// tensors unwritten elements keep their input value and are `Some`).
    pub elems: Vec<Option<V>>,
    /// For each element, the index into [`Execution::store_sites`] of its last writer.
    pub writers: Vec<Option<usize>>,
}

/// The result of running every program.
#[derive(Clone, Debug)]
pub struct Execution<V> {
    pub outputs: Vec<Output<V>>,
    pub store_sites: Vec<StoreSite>,
    /// Non-fatal findings (e.g. an element written by two programs).
    pub warnings: Vec<String>,
    /// The first element written by two programs (its warning, also in `warnings`):
    /// the later write wins, so the launch gives each program too little of the work.
    pub written_twice: Option<String>,
    /// Ops executed, over all programs (a measure of work).
    pub ops_executed: u64,
    /// Whether an atomic whose result may depend on the programs' order ran (any but
    /// a float add): `exec::execute_with` then runs the programs in reverse as well.
    pub order_sensitive: bool,
}

/// How the masked-off lanes of a `tt.load` without `other=` read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MaskedLoad {
    /// Undefined, as Triton says: harmless unless such a value is stored (or used as
    /// an address, mask or branch condition), which is an error.
    #[default]
    Undefined,
    /// 0.0, the NVIDIA backend's zero fill (`--masked-load zero`).
    Zero,
}

/// Choices of the executor's semantics that the launch does not make.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub masked_load: MaskedLoad,
}

/// Safety limit on ops executed in one run (a kernel looping on huge sizes).
pub const MAX_OPS: u64 = 200_000_000;

/// The final contents of every `out`/`inout` tensor, from each executor's memory:
/// `written(i)` gives tensor `i`'s last write per element (value, store site).
/// Unwritten `inout` elements keep their input value; unwritten `out` elements are
/// `None`.
pub fn collect_outputs<D: Domain>(
    inst: &Instance,
    domain: &mut D,
    mut written: impl FnMut(usize) -> Vec<Option<(D::V, usize)>>,
) -> Vec<Output<D::V>> {
    let mut outputs = Vec::new();
    for (i, t) in inst.tensors.iter().enumerate() {
        if t.role == Role::In {
            continue;
        }
        let mem = written(i);
        let mut elems = Vec::with_capacity(mem.len());
        let mut writers = Vec::with_capacity(mem.len());
        for (flat, slot) in mem.into_iter().enumerate() {
            let (elem, writer) = match slot {
                Some((v, site)) => (Some(v), Some(site)),
                None if t.role == Role::Inout => {
                    (Some(domain.input(i, &t.unravel(flat), flat)), None)
                }
                None => (None, None),
            };
            elems.push(elem);
            writers.push(writer);
        }
        outputs.push(Output {
            tensor: i,
            name: t.name.clone(),
            shape: t.shape.clone(),
            elems,
            writers,
        });
    }
    outputs
}
