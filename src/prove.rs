//! The bounded proof of a formula: a [`Formula`] instantiated at one instance's sizes,
//! proved equal to a kernel's element terms one element at a time.
//!
//! Architecture invariant: `Ok` only when every element of the formula's instance is
//! `decide`-equal to the kernel's element at the same index; a failure says which
//! element and why as a typed [`Failure`], never as text to be matched. It serves the
//! lift search (`synth`), the all-sizes step's replays (`verify`) and `check`; it
//! imports neither of them.

use crate::decide::{self, Decided, EqualPairs, Precondition, Verdict};
use crate::formula::{Formula, ShapeEnv};
use crate::term::{Node, TermId, Terms};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// Formulas instantiated at one lift's sizes (`None`: it does not instantiate there).
/// The term store only grows, so an instance stays valid for the whole lift; synthesis,
/// the proof and the cross-check share it (a 128³ matmul's 2M products are built once).
#[derive(Default)]
pub struct Instances {
    formulas: HashMap<Formula, Option<Rc<Vec<TermId>>>>,
    /// The products `a @ b` instantiated so far: formulas that differ elsewhere (a
    /// candidate and its tidied form) share them.
    products: crate::formula::Products,
    /// The element pairs the proofs made with this cache decided `Equal` with no
    /// precondition under the default options: what a proof in another store of the
    /// same terms reuses (`decide::Decided`).
    pub equal: EqualPairs,
    /// The canonical forms the proofs made with this cache built, continued by the
    /// next proof (`decide::Kept`): one lift's outputs read the same rows' max and sum.
    forms: decide::Kept,
}

impl Instances {
    pub fn new() -> Self {
        Self::default()
    }
}

/// Why a formula is not proved equal to a kernel's elements.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// The formula has another shape than the output (a wrong value everywhere).
    #[error("shape {got:?}, the output has {want:?}")]
    Shape { got: Vec<usize>, want: Vec<usize> },
    /// `decide` found a point where element `element` differs (a wrong value).
    #[error("refuted at element #{element}")]
    Refuted { element: usize },
    /// `decide` could not settle element `element`.
    #[error("element #{element}: {reason}")]
    Unknown { element: usize, reason: String },
    /// The formula has no value at these sizes (its shape does not evaluate, or it
    /// does not instantiate).
    #[error("{0}")]
    NoInstance(String),
    /// The formula's instance has another number of elements than the output.
    #[error("element count differs")]
    Count,
}

impl Failure {
    /// Whether the failure shows the formula gives a wrong value at these sizes (a
    /// finding), rather than a proof that could not be finished.
    pub fn is_wrong_value(&self) -> bool {
        matches!(self, Failure::Refuted { .. } | Failure::Shape { .. })
    }
}

/// `f`'s elements at the sizes of `env`, from `cache` when it was instantiated before.
pub fn instance(
    terms: &mut Terms,
    env: &ShapeEnv,
    f: &Formula,
    cache: &mut Instances,
) -> Result<Rc<Vec<TermId>>, String> {
    if let Some(e) = cache.formulas.get(f) {
        return e
            .clone()
            .ok_or_else(|| "the formula does not instantiate".into());
    }
    let e = f
        .instantiate_reusing(terms, env, &mut cache.products)
        .map(Rc::new);
    cache.formulas.insert(f.clone(), e.as_ref().ok().cloned());
    e.map_err(|e| e.message)
}

/// Proves `f`, at the sizes of `env`, equal to `elems` (of shape `shape`) element by
/// element.
pub fn prove(
    terms: &mut Terms,
    env: &ShapeEnv,
    f: &Formula,
    shape: &[usize],
    elems: &[TermId],
) -> Result<(), Failure> {
    prove_with(terms, env, f, shape, elems, &mut Instances::new())
}

/// [`prove`] reusing the instances of `cache`.
pub fn prove_with(
    terms: &mut Terms,
    env: &ShapeEnv,
    f: &Formula,
    shape: &[usize],
    elems: &[TermId],
    cache: &mut Instances,
) -> Result<(), Failure> {
    let opts = decide::Options::default();
    prove_with_options(terms, env, f, shape, elems, cache, &opts, &Decided::none())
}

/// [`prove_with`] of `out`'s formula ([`prove_spec`] where it is read from a spec),
/// its pairs `decided` knows (the same terms decided `Equal` in another store) taken as
/// `Equal` undecided.
pub fn prove_reusing(
    terms: &mut Terms,
    env: &ShapeEnv,
    out: &crate::formula::Output,
    shape: &[usize],
    elems: &[TermId],
    cache: &mut Instances,
    decided: &Decided,
) -> Result<(), Failure> {
    let opts = decide::Options {
        spec: if out.spec {
            decide::SpecSide::Left
        } else {
            decide::SpecSide::Neither
        },
        ..decide::Options::default()
    };
    prove_with_options(
        terms,
        env,
        &out.formula,
        shape,
        elems,
        cache,
        &opts,
        decided,
    )
}

/// [`prove`] of a formula read from a PyTorch spec: where the formula is NaN because a
/// point left its domain (`0/0`), any value of the kernel refines it, as in `check`
/// (`decide::SpecSide`).
pub fn prove_spec(
    terms: &mut Terms,
    env: &ShapeEnv,
    f: &Formula,
    shape: &[usize],
    elems: &[TermId],
) -> Result<(), Failure> {
    let opts = decide::Options {
        spec: decide::SpecSide::Left,
        ..decide::Options::default()
    };
    let cache = &mut Instances::new();
    prove_with_options(terms, env, f, shape, elems, cache, &opts, &Decided::none())
}

#[allow(clippy::too_many_arguments)]
fn prove_with_options(
    terms: &mut Terms,
    env: &ShapeEnv,
    f: &Formula,
    shape: &[usize],
    elems: &[TermId],
    cache: &mut Instances,
    opts: &decide::Options,
    decided: &Decided,
) -> Result<(), Failure> {
    let fshape = f.shape(env).map_err(|e| Failure::NoInstance(e.message))?;
    if fshape != shape {
        return Err(Failure::Shape {
            got: fshape,
            want: shape.to_vec(),
        });
    }
    let cand = instance(terms, env, f, cache).map_err(Failure::NoInstance)?;
    if cand.len() != elems.len() {
        return Err(Failure::Count);
    }
    let pairs: Vec<(TermId, TermId)> = cand.iter().copied().zip(elems.iter().copied()).collect();
    let row = shape.last().copied().unwrap_or(1);
    let verdicts =
        decide::decide_rows_continuing(terms, &pairs, opts, row, decided, &mut cache.forms);
    if *opts == decide::Options::default() {
        let equal =
            |v: &Verdict| matches!(v, Verdict::Equal { preconditions } if preconditions.is_empty());
        let proved = pairs.iter().zip(&verdicts).filter(|(_, v)| equal(v));
        cache.equal.extend(proved.map(|(p, _)| *p));
    }
    for (element, v) in verdicts.into_iter().enumerate() {
        match v {
            Verdict::Equal { .. } => {}
            Verdict::NotEqual(_) => return Err(Failure::Refuted { element }),
            // Two gathers may split a label's values differently where one is
            // discarded (`check::cases`): decided again at each declared value.
            Verdict::Unknown { reason } => {
                let (a, b) = pairs[element];
                if equal_by_declared_values(terms, a, b, &decide::Options::default()).is_none() {
                    return Err(Failure::Unknown { element, reason });
                }
            }
        }
    }
    Ok(())
}

// ---- integer inputs with declared values ---------------------------------------------
//
// Element pairs `decide` leaves open that read integer inputs with declared values
// (labels `values = ["0..N", -100]`): decided again once per combination of those
// values, each integer element fixed to a constant.
//
// Why: a gather is a select tree over the index's declared values (`term/gather.rs`),
// and two sides may split it differently where a value is discarded — a kernel that
// reads `x[row, where(t != -100, t, 0)]` has a leaf for `t < 0` that the spec's ignored
// class (or a formula's `take`, 0 outside the axis) does not. `decide` treats the label
// as a real, so the combination `t < 0 ∧ t ≠ -100`, which no declared value takes, keeps
// the forms apart. Fixed to each declared value, both sides fold to plain terms.
//
// Invariant: a pair is reported equal only when `decide` proves it equal at every
// combination of the declared values of every integer element it reads — every input
// the proof speaks of (docs/launch.md: the refuter, witnesses and cross-check pick only
// declared values). The number of combinations is bounded by [`MAX_COMBINATIONS`].

/// Most value combinations one pair is split into.
pub const MAX_COMBINATIONS: usize = 256;

/// The integer input elements under `a` and `b` whose values are declared (or a small
/// dtype's whole range), with those values; `None` when there are none or when their
/// combinations exceed [`MAX_COMBINATIONS`].
fn declared_leaves(terms: &Terms, a: TermId, b: TermId) -> Option<Vec<(TermId, Arc<[i64]>)>> {
    let mut leaves = Vec::new();
    let mut todo = vec![a, b];
    let mut seen = rustc_hash::FxHashSet::default();
    while let Some(x) = todo.pop() {
        if !seen.insert(x) {
            continue;
        }
        if let Node::Input { tensor, .. } = terms.node(x) {
            if terms.int_input(tensor).is_some() {
                if let Some(v) = terms.int_values(tensor) {
                    leaves.push((x, v));
                }
            }
            continue;
        }
        terms.for_each_child(x, |c| todo.push(c));
    }
    leaves.sort_by_key(|l| l.0);
    let combinations = leaves
        .iter()
        .try_fold(1usize, |n, (_, v)| n.checked_mul(v.len()))?;
    (!leaves.is_empty() && combinations <= MAX_COMBINATIONS).then_some(leaves)
}

/// `a` and `b` proved equal value by value of the declared integer elements they read:
/// the preconditions of every combination's proof, or `None` where some combination is
/// not proved (or there is nothing to split over).
pub fn equal_by_declared_values(
    terms: &mut Terms,
    a: TermId,
    b: TermId,
    opts: &decide::Options,
) -> Option<Vec<Precondition>> {
    let leaves = declared_leaves(terms, a, b)?;
    let ids: Vec<TermId> = leaves.iter().map(|l| l.0).collect();
    let mut pre = Vec::new();
    for vals in Terms::index_cases(&leaves) {
        let fa = terms.fix_leaves(a, &ids, &vals);
        let fb = terms.fix_leaves(b, &ids, &vals);
        match decide::decide(terms, fa, fb, opts) {
            Verdict::Equal { preconditions } => pre.extend(preconditions),
            _ => return None,
        }
    }
    Some(pre)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Kernel;
    use std::collections::BTreeMap;

    /// A lifted formula proves against its own elements; against elements in another
    /// order it is refuted at an element, and against another shape it fails on the
    /// shape: both wrong values, told apart by variant, not by text.
    #[test]
    fn failures_say_what_went_wrong_as_variants() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("triton_ir/softmax/kernel.ttir");
        let kernel = Kernel::load(&path, None).unwrap();
        let inst = kernel.instance(&BTreeMap::new()).unwrap();
        let mut terms = Terms::new();
        let lifted = crate::synth::lift(&kernel, &inst, &mut terms).unwrap();
        let out = &lifted.outputs[0];
        let f = out.formula.clone().unwrap();
        let t = &lifted.spec.outputs[0];
        let elems: Vec<TermId> = t.elems.iter().map(|e| e.unwrap()).collect();
        let env = &lifted.env;
        assert_eq!(prove(&mut terms, env, &f, &t.shape, &elems), Ok(()));
        let mut shuffled = elems.clone();
        shuffled.rotate_left(1);
        let e = prove(&mut terms, env, &f, &t.shape, &shuffled).unwrap_err();
        assert!(
            matches!(e, Failure::Refuted { .. }) && e.is_wrong_value(),
            "{e}"
        );
        let other: Vec<usize> = t.shape.iter().rev().map(|d| d + 1).collect();
        let e = prove(&mut terms, env, &f, &other, &elems).unwrap_err();
        assert!(
            matches!(e, Failure::Shape { .. }) && e.is_wrong_value(),
            "{e}"
        );
    }
}
