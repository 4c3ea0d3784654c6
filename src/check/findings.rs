//! What `check` and `equiv` answer and take: the [`Report`] with its findings, and the
//! [`CheckOptions`]. A leaf of `check`: every stage of the command builds or reads these.

use super::precision as precision_search;
use crate::decide;
use crate::exec::StoreSite;
use crate::npy::Array;
use crate::verify;
use std::collections::BTreeMap;

/// The overall answer: the crate's one [`Verdict`](crate::verdict::Verdict).
pub use crate::verdict::Verdict as Outcome;

/// One output element that is not proved equal.
#[derive(Clone, Debug)]
pub struct Finding {
    pub tensor: String,
    pub index: Vec<usize>,
    /// The left side's value (the kernel, or the first kernel), if computed.
    pub left: Option<f64>,
    /// The right side's value (the spec, or the second kernel).
    pub right: Option<f64>,
    /// The input values at which they differ (refutations only).
    pub inputs: Vec<(String, f64)>,
    /// Why it is refuted or unknown, in words.
    pub reason: String,
    /// The reason is only that the two sides differ at the inputs (the text report
    /// then explains nothing more).
    pub plain: bool,
    /// Where the left side stored the element.
    pub source: Option<StoreSite>,
    /// The decider's point, to rebuild whole input tensors (see [`Report::counterexample_inputs`]).
    pub point: Option<u64>,
}

/// What `check`/`equiv` found.
#[derive(Clone, Debug)]
pub struct Report {
    pub outcome: Outcome,
    /// What was compared with what, in words.
    pub title: String,
    pub sizes: BTreeMap<String, i64>,
    /// Per output tensor: name, shape, number of elements proved equal.
    pub tensors: Vec<(String, Vec<usize>, usize)>,
    /// Kernel outputs the spec says nothing about (not checked).
    pub unchecked: Vec<String>,
    /// Names the spec assigns that the kernel does not write: its temporaries.
    pub temporaries: Vec<String>,
    pub preconditions: Vec<String>,
    /// Roundings below f32 that the proof read as exact (f16 casts, tf32 dots), with
    /// their lines (see [`Kernel::assumptions`]).
    pub assumptions: Vec<String>,
    /// `Some("ieee (…)")` under `--precision ieee` (see [`Kernel::precision_note`]).
    pub precision: Option<String>,
    /// The left kernel's IR, for naming store lines: "ttir" or "ptx".
    pub ir: &'static str,
    /// The first refuted element (in row-major order of the first tensor that has one).
    pub counterexample: Option<Finding>,
    /// Elements left undecided (first few), with reasons.
    pub unknown: Vec<Finding>,
    /// The proof for every size (`check` with [`CheckOptions::all_sizes`]).
    pub all_sizes: Option<verify::Outcome>,
    /// A point where the kernel in its own precision leaves PyTorch's tolerance (see
    /// [`precision_search`]); the counterexample is then this point's.
    pub rounding: Option<precision_search::Found>,
    pub seconds: f64,
}

/// Options shared by `check` and `equiv`.
#[derive(Default)]
pub struct CheckOptions {
    /// Input arrays to try first as the refutation point (e.g. reference inputs).
    pub inputs: BTreeMap<String, Array>,
    /// Values of symbolic scalars for that first point.
    pub scalars: BTreeMap<String, f64>,
    pub decide: decide::Options,
    /// After a verified instance, also prove the spec for every size (`check` only).
    pub all_sizes: bool,
    /// The work limits of that all-sizes step.
    pub limits: verify::Limits,
}
