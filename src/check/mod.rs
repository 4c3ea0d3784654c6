//! `lift check` and `lift equiv`: pair every output element of a kernel with the
//! element of a PyTorch spec or of a second kernel, decide all pairs, and fold the
//! per-element verdicts into one report.
//!
//! Architecture invariant: this module only pairs and aggregates; proofs and
//! counterexamples come from `decide`, terms from `exec` (kernels) and `torch` (specs).
//! A report says `Verified` only when every paired element was proved equal. With
//! [`CheckOptions::all_sizes`], a verified instance is then proved for every size: the
//! spec read as formulas over symbolic sizes (`torch`), checked against its instance
//! reading, handed to `verify`.
//!
//! By concern: `reference` (the spec's side as terms), `compare` (pairing and
//! deciding), `all_sizes` (the proof for every size), `precision` (the search for a
//! rounding that leaves PyTorch's tolerance), `report` (text and JSON).

mod all_sizes;
mod cases;
mod compare;
mod findings;
pub mod precision;
mod reference;
mod report;

pub use findings::{CheckOptions, Finding, Outcome, Report};
pub use reference::{spec_outputs, spec_terms};

use crate::crosscheck;
use crate::error::Error;
use crate::exec::value::unravel;
use crate::kernel::Kernel;
use crate::launch::Instance;
use crate::spec::Spec;
use crate::term::{TermId, Terms};
use crate::verify;
use compare::{compare, SPEC};
use precision as precision_search;
use std::collections::BTreeMap;
use std::time::Instant;

/// Prove a kernel equal to a PyTorch spec on one launch instance.
pub fn check(
    kernel: &Kernel,
    inst: &Instance,
    spec_src: &str,
    opts: &CheckOptions,
) -> Result<Report, Error> {
    let start = Instant::now();
    let mut terms = Terms::new();
    let (spec, expected) = spec_terms(kernel, inst, spec_src, &mut terms)?;
    // A name the kernel does not write is a temporary of the spec (`c = cos[:, :4]`),
    // as people write references; the report lists them, so a misspelt output shows.
    let (expected, temporaries): (Vec<_>, Vec<_>) = expected
        .into_iter()
        .partition(|o| spec.outputs.iter().any(|t| t.name == o.name));
    if expected.is_empty() {
        return Err(Error::Usage(format!(
            "the spec assigns none of the kernel's outputs ({}); it assigns {}",
            spec.outputs
                .iter()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            temporaries
                .iter()
                .map(|t| format!("`{}`", t.name))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let mut right = BTreeMap::new();
    for out in expected {
        right.insert(
            out.name.clone(),
            (
                out.shape,
                out.elems.into_iter().map(Some).collect::<Vec<_>>(),
            ),
        );
    }
    let title = format!("{} against `{}`", kernel.path.display(), spec_src.trim());
    let claimed: BTreeMap<String, Vec<Option<TermId>>> = right
        .iter()
        .map(|(name, (_, elems))| (name.clone(), elems.clone()))
        .collect();
    let mut report = compare(&mut terms, &spec, right, SPEC, title, inst, opts, start)?;
    report.temporaries = temporaries.into_iter().map(|t| t.name).collect();
    report.assumptions = kernel.assumptions();
    report.assumptions.extend(spec.assumptions.iter().cloned());
    report.precision = kernel.precision_note();
    report.ir = kernel.ir();
    let claim = crosscheck::Claim::Spec(&terms, &claimed);
    let mut report = cross_checked(report, kernel, inst, &claim, opts, start)?;
    if report.outcome != Outcome::Refuted {
        rounding_search(&mut report, kernel, inst, spec_src)?;
        report.seconds = start.elapsed().as_secs_f64();
    }
    if opts.all_sizes && report.outcome == Outcome::Verified {
        let o = all_sizes::of_spec(kernel, inst, spec_src, &mut terms, &claimed, &opts.limits);
        if matches!(o.scope, verify::Scope::Refuted { .. }) {
            report.outcome = Outcome::Refuted;
        }
        report.all_sizes = Some(o);
        report.seconds = start.elapsed().as_secs_f64();
    }
    Ok(report)
}

/// Where the kernel accumulates below f32 (by default) or computes in f32's range
/// (`--precision ieee`), look for a point where its own precision leaves PyTorch's
/// tolerance; one found makes the report Refuted there.
fn rounding_search(
    report: &mut Report,
    kernel: &Kernel,
    inst: &Instance,
    spec_src: &str,
) -> Result<(), Error> {
    let scope = precision_search::Scope {
        grow: kernel.accumulates_below_f32(),
        large: kernel.precision == crate::exec::domain::Precision::Ieee,
    };
    if !(scope.grow || scope.large) {
        return Ok(());
    }
    let Some(found) = precision_search::search(kernel, inst, spec_src, scope)? else {
        return Ok(());
    };
    let shown: Vec<(String, f64)> = found
        .inputs
        .arrays
        .iter()
        .flat_map(|(name, a)| {
            a.data.iter().take(4).enumerate().map(move |(flat, v)| {
                let idx: Vec<String> = unravel(flat, &a.shape)
                    .iter()
                    .map(|i| i.to_string())
                    .collect();
                (format!("{name}[{}]", idx.join(",")), *v)
            })
        })
        .collect();
    report.outcome = Outcome::Refuted;
    report.counterexample = Some(Finding {
        tensor: found.tensor.clone(),
        index: found.index.clone(),
        left: Some(found.rounded),
        right: Some(found.expected),
        inputs: shown,
        reason: found.describe(),
        plain: false,
        source: None,
        point: None,
    });
    report.rounding = Some(found);
    Ok(())
}

/// A Verified report stands only if the kernel's concrete run agrees with the claim at
/// the cross-check points (see [`crosscheck`]); otherwise it becomes Refuted there.
fn cross_checked(
    report: Report,
    kernel: &Kernel,
    inst: &Instance,
    claim: &crosscheck::Claim,
    opts: &CheckOptions,
    start: Instant,
) -> Result<Report, Error> {
    if report.outcome != Outcome::Verified {
        return Ok(report);
    }
    let d = crosscheck::cross_check(kernel, inst, claim, Some(&given_inputs(opts)))?;
    Ok(disagreeing(report, inst, d, start))
}

/// The cross-check's inputs to try first: the user's `--input`/`--scalar` values.
fn given_inputs(opts: &CheckOptions) -> crosscheck::PointInputs {
    crosscheck::PointInputs {
        arrays: opts.inputs.clone(),
        scalars: opts.scalars.clone(),
    }
}

/// A Verified report (callers check) with the concrete run's disagreement, if any:
/// Refuted there.
fn disagreeing(
    mut report: Report,
    inst: &Instance,
    d: Option<crosscheck::Disagreement>,
    start: Instant,
) -> Report {
    let Some(d) = d else {
        return report;
    };
    let shape = inst
        .tensors
        .iter()
        .find(|t| t.name == d.tensor)
        .map(|t| t.shape.clone())
        .unwrap_or_default();
    let mut inputs = Vec::new();
    for (name, a) in &d.inputs.arrays {
        for (flat, v) in a.data.iter().enumerate() {
            let idx: Vec<String> = unravel(flat, &a.shape)
                .iter()
                .map(|i| i.to_string())
                .collect();
            inputs.push((format!("{name}[{}]", idx.join(",")), *v));
        }
    }
    inputs.extend(d.inputs.scalars.iter().map(|(k, v)| (k.clone(), *v)));
    report.outcome = Outcome::Refuted;
    report.counterexample = Some(Finding {
        tensor: d.tensor.clone(),
        index: unravel(d.flat, &shape),
        left: Some(d.kernel),
        right: Some(d.claimed),
        inputs,
        reason: "the kernel's concrete run (lift run) disagrees with the proof here: the \
                 concrete value is what the kernel computes, and the proof was wrong (a \
                 bug in lift's term layer: please report it)"
            .into(),
        plain: false,
        source: None,
        point: Some(d.point),
    });
    report.seconds = start.elapsed().as_secs_f64();
    report
}

/// Prove two kernels equal on one launch instance (tensors matched by name).
pub fn equiv(
    left: &Kernel,
    right: &Kernel,
    sizes: &BTreeMap<String, i64>,
    opts: &CheckOptions,
) -> Result<Report, Error> {
    let start = Instant::now();
    let li = left.instance(sizes)?;
    // The right kernel's own launch (its parameter names may differ) on the same sizes.
    let ri = right.instance(&li.sizes)?;
    for t in &li.tensors {
        match ri.tensors.iter().find(|r| r.name == t.name) {
            Some(r) if r.shape != t.shape || r.role != t.role => {
                return Err(Error::Usage(format!(
                    "tensor `{}` is {:?} {:?} in {} but {:?} {:?} in {}",
                    t.name, t.role, t.shape, left.launch.file, r.role, r.shape, right.launch.file
                )))
            }
            _ => {}
        }
    }
    // The concrete cross-check needs no proof: it runs beside the symbolic runs (its
    // disagreement only matters to a Verified report, and is read after it).
    let claim = crosscheck::Claim::Kernel(right, &ri);
    let (proved, concrete) = rayon::join(
        || -> Result<(Report, Option<(Terms, Spec)>), Error> {
            let mut terms = Terms::new();
            let ls = left.spec(&li, &mut terms)?;
            // The first kernel's run, as a lift of it alone would have it, for the
            // all-sizes step (which lifts it): the kernel is executed once.
            let first = (opts.all_sizes && all_sizes::lifts_first(left, right))
                .then(|| (terms.clone(), ls.clone()));
            let rs = right.spec(&ri, &mut terms)?;
            let mut rmap = BTreeMap::new();
            for t in rs.outputs {
                rmap.insert(t.name.clone(), (t.shape, t.elems));
            }
            let title = format!("{} against {}", left.path.display(), right.path.display());
            let report = compare(
                &mut terms,
                &ls,
                rmap,
                "second kernel",
                title,
                &li,
                opts,
                start,
            )?;
            Ok((report, first))
        },
        || crosscheck::cross_check(left, &li, &claim, Some(&given_inputs(opts))),
    );
    let (mut report, first) = proved?;
    report.assumptions = left.assumptions();
    report.ir = left.ir();
    report.assumptions.extend(right.assumptions());
    report.precision = left.precision_note().or_else(|| right.precision_note());
    let mut report = if report.outcome == Outcome::Verified {
        disagreeing(report, &li, concrete?, start)
    } else {
        report
    };
    if opts.all_sizes && report.outcome == Outcome::Verified {
        let o = all_sizes::of_kernels(left, right, &li, &ri, first, &opts.limits);
        if matches!(o.scope, verify::Scope::Refuted { .. }) {
            report.outcome = Outcome::Refuted;
        }
        report.all_sizes = Some(o);
        report.seconds = start.elapsed().as_secs_f64();
    }
    Ok(report)
}
