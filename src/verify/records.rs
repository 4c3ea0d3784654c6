//! What the all-sizes run is given (the launch read over symbolic sizes: [`Setup`],
//! [`TensorSym`], [`ArgSym`]) and what it records per path ([`Path`]: conditions,
//! accesses, failures, integer obligations and wraps).
//!
//! Invariant: plain data; a record holds for every size satisfying its path's condition.

use super::sym::{Cond, Poly};
use crate::launch::Role;
use crate::term::TermId;
use crate::triton_ir::ast::Loc;
use std::collections::HashMap;

/// A tensor as the launch declares it, with its shape over the sizes.
#[derive(Clone, Debug)]
pub struct TensorSym {
    pub name: String,
    pub shape: Vec<Poly>,
    pub role: Role,
    /// The element type (from the kernel's IR or the launch): integer tensors load
    /// as integers.
    pub dtype: crate::launch::Dtype,
}

impl TensorSym {
    pub fn numel(&self) -> Poly {
        self.shape.iter().fold(Poly::constant(1), |a, d| a.mul(d))
    }
}

/// A load or store lane.
#[derive(Clone, Debug)]
pub struct Access {
    pub tensor: usize,
    pub off: Poly,
    pub line: u32,
    pub loc: Loc,
    /// The stored value (stores only).
    pub value: Option<TermId>,
    /// The tensor index the offset decomposes into, proved in bounds on the path;
    /// `None` when it is not (see [`Path::failures`]).
    pub index: Option<Vec<Poly>>,
    /// For a store inside loops over sizes: the loops' iteration variables (bound like
    /// the program ids) and the conditions under which this lane is stored.
    pub vars: Vec<String>,
    pub guard: Vec<Cond>,
}

/// An access the path cannot prove in bounds.
#[derive(Clone, Debug)]
pub struct Failure {
    pub message: String,
    pub line: u32,
    pub loc: Loc,
    /// Sizes (from a Z3 model) where the access leaves its tensor, if Z3 found some.
    pub witness: Option<Vec<(String, i64)>>,
}

/// One path through the program.
#[derive(Clone, Debug, Default)]
pub struct Path {
    /// The choices that define it (beyond the base constraints).
    pub cond: Vec<Cond>,
    pub loads: Vec<Access>,
    pub stores: Vec<Access>,
    /// Integer results that leave their width for some sizes, with the size bounds
    /// under which they do not (the proof holds where none does). Filled from
    /// `pending` once the rest of the attempt is proved (`super::overflow::discharge`).
    pub wraps: Vec<Wrap>,
    /// The integer obligations the walk met, in order, not yet asked.
    pub pending: Vec<Pending>,
    pub failures: Vec<Failure>,
    /// The labels the path read (their domains are among `cond`).
    pub labels: Vec<super::labels::LabelRead>,
}

/// What the run needs besides the module.
pub struct Setup<'a> {
    /// The size names (Z3 models are read back over them).
    pub sizes: &'a [String],
    pub tensors: &'a [TensorSym],
    /// Each kernel parameter's value (pointers, integers, reals), by name.
    pub args: &'a HashMap<String, ArgSym>,
    /// The base constraints: sizes positive, program ids within the grid, and any
    /// candidate constraint being tried.
    pub base: &'a [Cond],
    pub pids: [Poly; 3],
    pub grid: [Poly; 3],
    pub max_paths: usize,
    /// The work the step may still do (the whole unbounded step shares one).
    pub work: &'a super::work::Work<'a>,
    /// The formula's reductions, which loop summaries are matched against.
    pub templates: &'a [super::at_index::Template],
    /// The formula of each output, by tensor name (a scan's prefixes, `super::scans`).
    pub outputs: &'a HashMap<&'a str, &'a crate::formula::Output>,
    pub input_shapes: &'a std::collections::BTreeMap<String, Vec<Poly>>,
    /// Undecided mask lanes become guards in values instead of forks
    /// ([`super::guards`]).
    pub lazy_masks: bool,
    /// The label tensors, whose elements load as symbols (`gathers.rs`).
    pub labels: &'a super::labels::Labels,
    /// Where the lazy twin of a forking attempt stalled (`super::stall`).
    pub lazy_stall: Option<&'a Stall>,
}

/// Where a lazy attempt stopped: a loop's summary stalled on a lane no template takes,
/// with no failed access on its path. A forking attempt under the same candidate that
/// reaches that loop holding `cond` stops there too, without its real body run
/// (`super::stall`).
#[derive(Clone, Debug)]
pub struct Stall {
    pub line: u32,
    pub loc: Loc,
    /// The lazy path's conditions when it reached the loop.
    pub cond: Vec<Cond>,
}

/// A kernel parameter's symbolic value.
#[derive(Clone, Debug)]
pub enum ArgSym {
    Tensor(usize),
    Int(Poly),
    Real(f64),
    Scalar(String),
}

/// An integer obligation met on a path, kept to be asked once the attempt's other
/// obligations hold (an attempt that fails never pays for it).
#[derive(Clone, Debug)]
pub struct Pending {
    /// What the path's solver held beyond the base constraints when it was met: the
    /// path's choices, the loops' iterations, the lane's mask. Shared (`Arc::ptr_eq`)
    /// by consecutive obligations met under the same facts.
    pub facts: std::sync::Arc<[Cond]>,
    /// Holds where the result fits its width.
    pub ok: Cond,
    pub what: String,
    pub loc: Loc,
}

/// An integer result that may leave its width on a path.
#[derive(Clone, Debug)]
pub struct Wrap {
    /// What wraps: `i32 index arithmetic`, `cast to i16`, `i32 loop counter`.
    pub what: String,
    pub loc: Loc,
    /// `(size, c)`: on the path, it stays within its width wherever `size <= c` (Z3
    /// proved). Empty: no bound on one size suffices.
    pub bounds: Vec<(String, i128)>,
}
