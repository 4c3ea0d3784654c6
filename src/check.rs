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

use crate::crosscheck;
use crate::decide::{self, Counterexample, Leaf, Verdict as ElemVerdict};
use crate::error::Error;
use crate::exec::value::unravel;
use crate::exec::StoreSite;
use crate::formula;
use crate::kernel::Kernel;
use crate::launch::{ArgBinding, ArgValue, Instance, Role};
use crate::npy::Array;
use crate::precision_search;
use crate::spec::Spec;
use crate::term::{TermId, Terms};
use crate::torch;
use crate::verify;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::time::Instant;

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

/// The float type of a kernel's tensors, for rounding the spec's decimal constants: the
/// element type of the first float tensor parameter of a TTIR kernel; for a PTX kernel
/// (whose pointers are untyped) the launch's dtype of its first float tensor.
fn float_type(kernel: &Kernel, inst: &Instance) -> torch::FloatType {
    use crate::triton_ir::ast::{FloatKind, Type};
    let entry = kernel.module.entry();
    // The element type of the first float tensor parameter.
    let kind = entry
        .into_iter()
        .flat_map(|f| f.args.iter())
        .find_map(|a| match &a.ty {
            Type::Ptr(t) => match t.elem() {
                Type::Float(k) => Some(*k),
                _ => None,
            },
            _ => None,
        });
    let kind = kind.or_else(|| {
        kernel.ptx.as_ref()?;
        inst.tensors.iter().find_map(|t| match t.dtype {
            crate::launch::Dtype::F64 => Some(FloatKind::F64),
            crate::launch::Dtype::F16 => Some(FloatKind::F16),
            crate::launch::Dtype::Bf16 => Some(FloatKind::BF16),
            crate::launch::Dtype::F32 => Some(FloatKind::F32),
            _ => None,
        })
    });
    match kind {
        Some(FloatKind::F64) => torch::FloatType::F64,
        Some(FloatKind::F16) => torch::FloatType::F16,
        Some(FloatKind::BF16) => torch::FloatType::BF16,
        _ => torch::FloatType::F32,
    }
}

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
    let mut report = compare(&terms, &spec, right, SPEC, title, inst, opts, start)?;
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
        let o = all_sizes(kernel, inst, spec_src, &mut terms, &claimed, &opts.limits);
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
        source: None,
        point: None,
    });
    report.rounding = Some(found);
    Ok(())
}

/// The spec proved for every size: read as formulas over symbolic sizes
/// (`SpecProgram::formulas`), that reading checked against the instance's element by
/// element, then `verify` proves the kernel equal to it.
fn all_sizes(
    kernel: &Kernel,
    inst: &Instance,
    spec_src: &str,
    terms: &mut Terms,
    claimed: &BTreeMap<String, Vec<Option<TermId>>>,
    limits: &verify::Limits,
) -> verify::Outcome {
    let start = Instant::now();
    let unknown = |reason: String| verify::Outcome {
        scope: verify::Scope::Unknown { reason },
        sizes: kernel.launch.sizes.keys().cloned().collect(),
        paths: 0,
        time: start.elapsed(),
    };
    if kernel.ptx.is_some() {
        // CTA-level and bounded: verify says so without reading the spec again.
        return verify::verify_with(kernel, inst, &[], limits);
    }
    let outputs = match spec_formulas(kernel, inst, spec_src, terms) {
        Ok(o) => o,
        Err(e) => return unknown(format!("the spec is not read for every size ({e})")),
    };
    // The spec's temporaries are not claims (see `check`).
    let outputs: Vec<formula::Output> = outputs
        .into_iter()
        .filter(|o| claimed.contains_key(&o.name))
        .collect();
    // Every claimed output needs its reading (a name bound to a size, `t = q.shape[1]`,
    // has none: fine for a temporary, not for a kernel output).
    if let Some(name) = claimed
        .keys()
        .find(|n| !outputs.iter().any(|o| &o.name == *n))
    {
        return unknown(format!(
            "the spec is not read for every size (output `{name}` is not a tensor at every size)"
        ));
    }
    // The instance agreement below checks the rewrite like the reading itself.
    let mut outputs = divisors_out(kernel, inst, outputs);
    for o in &mut outputs {
        o.spec = true;
    }
    if let Err(e) = agrees_at_instance(kernel, inst, &outputs, terms, claimed) {
        return unknown(e);
    }
    verify::verify_with(kernel, inst, &outputs, limits)
}

/// `outputs` with divisors taken out of matrix products
/// (`Formula::divisors_out_of_matmuls`): the form a kernel that divides once at the end
/// accumulates (flash attention), which one that divides first matches by a common
/// factor.
fn divisors_out(
    kernel: &Kernel,
    inst: &Instance,
    outputs: Vec<formula::Output>,
) -> Vec<formula::Output> {
    match formula::ShapeEnv::from_launch(&kernel.launch, &inst.sizes) {
        Ok(env) => outputs
            .into_iter()
            .map(|o| formula::Output::new(&o.name, o.formula.divisors_out_of_matmuls(&env)))
            .collect(),
        Err(_) => outputs,
    }
}

fn spec_formulas(
    kernel: &Kernel,
    inst: &Instance,
    spec_src: &str,
    terms: &mut Terms,
) -> Result<Vec<formula::Output>, String> {
    let program = torch::parse(spec_src).map_err(|e| e.to_string())?;
    let mut tensors = BTreeMap::new();
    for b in kernel.launch.args.values() {
        if let ArgBinding::Tensor { tensor, shape, .. } = b {
            let is_input = inst
                .tensors
                .iter()
                .any(|t| &t.name == tensor && t.role != Role::Out);
            if is_input {
                tensors.insert(tensor.clone(), shape.clone());
            }
        }
    }
    let mut scalars = BTreeSet::new();
    let mut values = BTreeMap::new();
    for (param, v) in &inst.args {
        match v {
            ArgValue::Scalar(s) => {
                scalars.insert(s.clone());
            }
            ArgValue::Value(x) => {
                values.insert(param.clone(), *x);
            }
            _ => {}
        }
    }
    let sizes = kernel.launch.sizes.keys().cloned().collect();
    let env = torch::SymEnv {
        tensors: &tensors,
        scalars: &scalars,
        values: &values,
        sizes: &sizes,
        float: float_type(kernel, inst),
    };
    program.formulas(terms, &env).map_err(|e| e.to_string())
}

/// The all-sizes reading must give, at the instance, the terms the instance reading gave
/// (`decide`-equal): it is the second of two readings of one spec, so a difference is a
/// bug in lift, reported as such.
fn agrees_at_instance(
    kernel: &Kernel,
    inst: &Instance,
    outputs: &[formula::Output],
    terms: &mut Terms,
    claimed: &BTreeMap<String, Vec<Option<TermId>>>,
) -> Result<(), String> {
    let env =
        formula::ShapeEnv::from_launch(&kernel.launch, &inst.sizes).map_err(|e| e.to_string())?;
    let mut pairs = Vec::new();
    let mut at = Vec::new();
    for o in outputs {
        let got = o.formula.instantiate(terms, &env).map_err(|e| {
            format!("the spec's reading for every size has no value at this instance: {e}")
        })?;
        let want = claimed
            .get(&o.name)
            .ok_or("an output the spec did not give")?;
        if got.len() != want.len() {
            return Err(format!(
                "the spec's reading for every size gives `{}` {} elements, not {} \
                 (a bug in lift: please report it)",
                o.name,
                got.len(),
                want.len()
            ));
        }
        for (k, (g, w)) in got.iter().zip(want).enumerate() {
            if let Some(w) = w {
                if g != w {
                    pairs.push((*g, *w));
                    at.push((o.name.clone(), k));
                }
            }
        }
    }
    let verdicts = decide::decide_all(terms, &pairs, &decide::Options::default());
    match verdicts
        .iter()
        .position(|v| !matches!(v, decide::Verdict::Equal { .. }))
    {
        None => Ok(()),
        Some(i) => Err(format!(
            "the spec's reading for every size differs from its instance reading at \
             {}[flat {}] (a bug in lift: please report it)",
            at[i].0, at[i].1
        )),
    }
}

/// The two sides `check` compares: the kernel's symbolic run on `inst`, and the PyTorch
/// spec's outputs as terms over the same inputs (decimal constants rounded to the
/// kernel's float type).
pub fn spec_terms(
    kernel: &Kernel,
    inst: &Instance,
    spec_src: &str,
    terms: &mut Terms,
) -> Result<(Spec, Vec<torch::SpecOutput>), Error> {
    let program = torch::parse(spec_src).map_err(|e| Error::Usage(format!("--spec: {e}")))?;
    let spec = kernel.spec(inst, terms)?;
    let expected = spec_outputs(kernel, inst, &program, terms)?;
    Ok((spec, expected))
}

/// The PyTorch spec's outputs on `inst` as terms over its inputs (decimal constants
/// rounded to the kernel's float type).
pub fn spec_outputs(
    kernel: &Kernel,
    inst: &Instance,
    program: &torch::SpecProgram,
    terms: &mut Terms,
) -> Result<Vec<torch::SpecOutput>, Error> {
    let mut tensors = BTreeMap::new();
    let mut scalars = BTreeSet::new();
    let mut values = BTreeMap::new();
    for t in &inst.tensors {
        if t.role != Role::Out {
            tensors.insert(t.name.clone(), t.shape.clone());
        }
    }
    for (param, v) in &inst.args {
        match v {
            ArgValue::Scalar(s) => {
                scalars.insert(s.clone());
            }
            ArgValue::Value(x) => {
                values.insert(param.clone(), *x);
            }
            _ => {}
        }
    }
    let env = torch::Env {
        tensors: &tensors,
        scalars: &scalars,
        values: &values,
        sizes: &inst.sizes,
        float: float_type(kernel, inst),
    };
    program
        .instantiate(terms, &env)
        .map_err(|e| Error::Usage(format!("--spec: {e}")))
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
        || -> Result<Report, Error> {
            let mut terms = Terms::new();
            let ls = left.spec(&li, &mut terms)?;
            let rs = right.spec(&ri, &mut terms)?;
            let mut rmap = BTreeMap::new();
            for t in rs.outputs {
                rmap.insert(t.name.clone(), (t.shape, t.elems));
            }
            let title = format!("{} against {}", left.path.display(), right.path.display());
            compare(&terms, &ls, rmap, "second kernel", title, &li, opts, start)
        },
        || crosscheck::cross_check(left, &li, &claim, Some(&given_inputs(opts))),
    );
    let mut report = proved?;
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
        let o = equiv_all_sizes(left, right, &li, &ri, &opts.limits);
        if matches!(o.scope, verify::Scope::Refuted { .. }) {
            report.outcome = Outcome::Refuted;
        }
        report.all_sizes = Some(o);
        report.seconds = start.elapsed().as_secs_f64();
    }
    Ok(report)
}

/// Two kernels equal for every size: both proved equal, for every size, to the formula
/// the first lifts to (the proof holds where both sides' constraints do). A refutation
/// of the second at sizes where the first is proved is a size where the two differ.
fn equiv_all_sizes(
    left: &Kernel,
    right: &Kernel,
    li: &Instance,
    ri: &Instance,
    limits: &verify::Limits,
) -> verify::Outcome {
    let start = Instant::now();
    let unknown = |reason: String| verify::Outcome {
        scope: verify::Scope::Unknown { reason },
        sizes: left.launch.sizes.keys().cloned().collect(),
        paths: 0,
        time: start.elapsed(),
    };
    if left.launch.sizes.keys().ne(right.launch.sizes.keys()) {
        return unknown("the two launches name different sizes".into());
    }
    if left.ptx.is_some() || right.ptx.is_some() {
        // CTA-level and bounded: say so before lifting (a whole second execution).
        let which = match (left.ptx.is_some(), right.ptx.is_some()) {
            (true, true) => "both kernels are PTX",
            (true, false) => "the first kernel is PTX",
            _ => "the second kernel is PTX",
        };
        return unknown(format!(
            "{which}, and PTX proofs are CTA-level and bounded (Volta's model)"
        ));
    }
    let mut terms = Terms::new();
    let lifted = match crate::synth::lift(left, li, &mut terms) {
        Ok(l) if l.verdict() == Outcome::Verified => l,
        _ => return unknown("the first kernel does not lift to a formula on this instance".into()),
    };
    let outputs: Vec<formula::Output> = lifted
        .outputs
        .iter()
        .filter(|o| {
            ri.tensors
                .iter()
                .any(|t| t.name == o.name && t.role != Role::In)
        })
        .filter_map(|o| {
            o.formula
                .as_ref()
                .map(|f| formula::Output::new(&o.name, f.clone()))
        })
        .collect();
    // One form both kernels are held to (any formula both equal makes them equal).
    let outputs = divisors_out(left, li, outputs);
    let l = verify::verify_with(left, li, &outputs, limits);
    let r = verify::verify_with(right, ri, &outputs, limits);
    let (paths, time) = (l.paths + r.paths, start.elapsed());
    use verify::Scope::*;
    let scope = match (&l.scope, &r.scope) {
        (
            AllSizes {
                constraints: c1,
                bounds: b1,
                fixed: f1,
            },
            AllSizes {
                constraints: c2,
                bounds: b2,
                fixed: f2,
            },
        ) => {
            let mut constraints = c1.clone();
            constraints.extend(c2.iter().filter(|c| !c1.contains(c)).cloned());
            // Size constraints first, then each kernel's index-arithmetic assumption.
            constraints.sort_by_key(|c| c.starts_with("i32 "));
            let join = |a: &[(String, i64)], b: &[(String, i64)]| {
                let mut v = a.to_vec();
                v.extend(b.iter().filter(|x| !a.contains(x)).cloned());
                v
            };
            AllSizes {
                constraints,
                bounds: join(b1, b2),
                fixed: join(f1, f2),
            }
        }
        (AllSizes { bounds, fixed, .. }, Refuted { sizes, reason })
            if admits(bounds, fixed, sizes) =>
        {
            Refuted {
                sizes: sizes.clone(),
                reason: format!(
                    "the second kernel differs there from the formula the first is proved \
                     equal to: {reason}"
                ),
            }
        }
        _ => Unknown {
            reason: format!(
                "first kernel: {}; second kernel: {}",
                l.describe(),
                r.describe()
            ),
        },
    };
    verify::Outcome {
        scope,
        sizes: l.sizes,
        paths,
        time,
    }
}

/// Whether `sizes` satisfy the size bounds and fixed sizes of a proof.
fn admits(bounds: &[(String, i64)], fixed: &[(String, i64)], sizes: &[(String, i64)]) -> bool {
    sizes.iter().all(|(n, v)| {
        bounds.iter().all(|(b, c)| b != n || v <= c) && fixed.iter().all(|(f, c)| f != n || v == c)
    })
}

type Side = BTreeMap<String, (Vec<usize>, Vec<Option<TermId>>)>;

/// The name `compare` gives a PyTorch spec: the right side, which a kernel refines
/// where the spec is NaN outside its domain (`decide::SpecSide`).
const SPEC: &str = "spec";

#[allow(clippy::too_many_arguments)]
fn compare(
    terms: &Terms,
    left: &Spec,
    right: Side,
    right_name: &str,
    title: String,
    inst: &Instance,
    opts: &CheckOptions,
    start: Instant,
) -> Result<Report, Error> {
    let mut pairs = Vec::new();
    let mut slots = Vec::new(); // (tensor position in left.outputs, flat)
    let mut findings_unwritten = Vec::new();
    let mut tensors = Vec::new();
    let mut unchecked = Vec::new();
    for (ti, t) in left.outputs.iter().enumerate() {
        let Some((shape, elems)) = right.get(&t.name) else {
            unchecked.push(t.name.clone());
            continue;
        };
        if shape != &t.shape {
            return Err(Error::Usage(format!(
                "output `{}` has shape {:?} in the kernel but {:?} in the {right_name}",
                t.name, t.shape, shape
            )));
        }
        tensors.push((t.name.clone(), t.shape.clone(), 0usize));
        for (flat, (l, r)) in t.elems.iter().zip(elems).enumerate() {
            match (l, r) {
                (Some(a), Some(b)) => {
                    pairs.push((*a, *b));
                    slots.push((ti, flat));
                }
                (None, None) => {}
                (l, _) => findings_unwritten.push(Finding {
                    tensor: t.name.clone(),
                    index: t.index(flat),
                    left: None,
                    right: None,
                    inputs: Vec::new(),
                    reason: if l.is_none() {
                        "the kernel never writes this element".into()
                    } else {
                        format!("the {right_name} never writes this element")
                    },
                    source: t.sources[flat].clone(),
                    point: None,
                }),
            }
        }
    }
    for name in right.keys() {
        if !left.outputs.iter().any(|t| &t.name == name) {
            return Err(Error::Usage(format!(
                "the {right_name} defines `{name}`, which is not an output of the kernel (outputs: {})",
                left.outputs.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")
            )));
        }
    }

    // Without given inputs, the first point sets the inputs of a running extremum's
    // finite seed beyond it (`exec::extrema::seed_witness`).
    let roots: Vec<TermId> = pairs.iter().map(|p| p.0).collect();
    let seeds = if opts.inputs.is_empty() {
        crate::exec::extrema::seed_witness(terms, &roots)
    } else {
        BTreeMap::new()
    };
    let extra = |leaf: &Leaf| -> Option<f64> {
        match leaf {
            Leaf::Input { tensor, index } => {
                let Some(a) = opts.inputs.get(&**tensor) else {
                    return seeds.get(&(tensor.to_string(), index.to_vec())).copied();
                };
                let flat = flat_index(index, &a.shape)?;
                a.data.get(flat).copied()
            }
            Leaf::Param(p) => opts.scalars.get(&**p).copied(),
        }
    };
    let decide_opts = decide::Options {
        spec: if right_name == SPEC {
            decide::SpecSide::Right
        } else {
            opts.decide.spec
        },
        ..opts.decide.clone()
    };
    let verdicts: Vec<ElemVerdict> =
        decide::decide_all_with_points(terms, &pairs, &decide_opts, &extra);

    let mut preconditions = BTreeSet::new();
    let mut counterexample = findings_unwritten.first().cloned();
    let mut unknown = Vec::new();
    let mut proved = vec![0usize; left.outputs.len()];
    for ((ti, flat), v) in slots.iter().zip(verdicts) {
        let t = &left.outputs[*ti];
        match v {
            ElemVerdict::Equal { preconditions: pre } => {
                proved[*ti] += 1;
                preconditions.extend(pre.iter().map(|p| p.to_string()));
            }
            ElemVerdict::NotEqual(cx) => {
                if counterexample.is_none() {
                    counterexample = Some(refutation(t, *flat, &cx));
                }
            }
            ElemVerdict::Unknown { reason } => unknown.push(Finding {
                tensor: t.name.clone(),
                index: t.index(*flat),
                left: None,
                right: None,
                inputs: Vec::new(),
                // Bit-level code that looks like a libm function says which.
                reason: match left
                    .notes
                    .iter()
                    .find(|(n, f, _)| *n == t.name && f == flat)
                {
                    Some((_, _, note)) => format!("{reason}; {note}"),
                    None => reason,
                },
                source: t.sources[*flat].clone(),
                point: None,
            }),
        }
    }
    for (name, _, n) in tensors.iter_mut() {
        if let Some(ti) = left.outputs.iter().position(|t| &t.name == name) {
            *n = proved[ti];
        }
    }
    let outcome = if counterexample.is_some() {
        Outcome::Refuted
    } else if !unknown.is_empty() || tensors.is_empty() {
        Outcome::Unknown
    } else {
        Outcome::Verified
    };
    unknown.truncate(5);
    Ok(Report {
        outcome,
        title,
        sizes: inst.sizes.clone(),
        tensors,
        unchecked,
        temporaries: Vec::new(),
        preconditions: preconditions.into_iter().collect(),
        assumptions: Vec::new(),
        precision: None,
        ir: "ttir",
        counterexample,
        unknown,
        all_sizes: None,
        rounding: None,
        seconds: start.elapsed().as_secs_f64(),
    })
}

fn flat_index(index: &[i64], shape: &[usize]) -> Option<usize> {
    if index.len() != shape.len() {
        return None;
    }
    let mut flat = 0usize;
    for (&i, &d) in index.iter().zip(shape) {
        if i < 0 || i as usize >= d {
            return None;
        }
        flat = flat * d + i as usize;
    }
    Some(flat)
}

/// The reason of an ordinary refutation.
const SIDES_DIFFER: &str = "the two sides differ at these inputs";

fn refutation(t: &crate::spec::SpecTensor, flat: usize, cx: &Counterexample) -> Finding {
    let inputs = cx
        .values
        .iter()
        .map(|(leaf, v)| (leaf_name(leaf), *v))
        .collect();
    Finding {
        tensor: t.name.clone(),
        index: t.index(flat),
        left: Some(cx.lhs),
        right: Some(cx.rhs),
        inputs,
        reason: if cx.below_f32 {
            format!(
                "they differ by {:e}: below f32's resolution at these values (a real \
                 difference, which a kernel computing in f32 may round away)",
                (cx.lhs - cx.rhs).abs()
            )
        } else {
            SIDES_DIFFER.into()
        },
        source: t.sources[flat].clone(),
        point: Some(cx.point),
    }
}

impl Report {
    /// Whole inputs for a refutation: every input tensor, and the value of every
    /// symbolic scalar. The counterexample's values where it names elements, the same
    /// point's values elsewhere (the given arrays' values when the point was theirs).
    /// Write them with `npy::write` and replay with `lift run`.
    pub fn counterexample_inputs(
        &self,
        inst: &Instance,
        given: &BTreeMap<String, Array>,
    ) -> (Vec<(String, Array)>, BTreeMap<String, f64>) {
        if let Some(found) = &self.rounding {
            // The search's own point, at its sizes.
            let arrays = found.inputs.arrays.clone().into_iter().collect();
            return (arrays, found.inputs.scalars.clone());
        }
        let Some((cx, point)) = self
            .counterexample
            .as_ref()
            .and_then(|c| Some((c, c.point?)))
        else {
            return (Vec::new(), BTreeMap::new());
        };
        let named: BTreeMap<&str, f64> = cx.inputs.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let from_caller = point == decide::CALLER_POINT;
        let value = |leaf: Leaf, fallback: Option<f64>| -> f64 {
            named
                .get(leaf_name(&leaf).as_str())
                .copied()
                .or(if from_caller { fallback } else { None })
                .unwrap_or_else(|| decide::point_value(point, &leaf))
        };
        let arrays = inst
            .tensors
            .iter()
            .filter(|t| t.role != Role::Out)
            .map(|t| {
                let data = (0..t.numel())
                    .map(|flat| {
                        let index: Box<[i64]> = t.unravel(flat).into();
                        let leaf = Leaf::Input {
                            tensor: t.name.as_str().into(),
                            index,
                        };
                        let v = value(
                            leaf,
                            given.get(&t.name).and_then(|a| a.data.get(flat).copied()),
                        );
                        // Integer tensors hold integers of their dtype, as the
                        // refuter's points do (`Terms::fit_input_value`).
                        if v.is_finite() {
                            t.fit(v)
                        } else {
                            v
                        }
                    })
                    .collect();
                (
                    t.name.clone(),
                    Array {
                        shape: t.shape.clone(),
                        data,
                    },
                )
            })
            .collect();
        let scalars = inst
            .args
            .values()
            .filter_map(|a| match a {
                ArgValue::Scalar(name) => Some(name.clone()),
                _ => None,
            })
            .map(|name| {
                let v = value(Leaf::Param(name.as_str().into()), None);
                (name, v)
            })
            .collect();
        (arrays, scalars)
    }

    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let sizes: Vec<String> = self.sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(s, "{} on {}", self.title, sizes.join(", "));
        for (name, shape, proved) in &self.tensors {
            let total: usize = shape.iter().product();
            let _ = writeln!(
                s,
                "  {name}{shape:?}: {proved} of {total} elements proved equal"
            );
        }
        if !self.unchecked.is_empty() {
            let _ = writeln!(
                s,
                "  not checked (not in the spec): {}",
                self.unchecked.join(", ")
            );
        }
        if !self.temporaries.is_empty() {
            let _ = writeln!(
                s,
                "  temporaries of the spec (not kernel outputs): {}",
                self.temporaries.join(", ")
            );
        }
        if !self.preconditions.is_empty() {
            // Preconditions can be long (a variance under an rsqrt): show a few, cut.
            let _ = writeln!(
                s,
                "  under {} preconditions, e.g.:",
                self.preconditions.len()
            );
            for p in self.preconditions.iter().take(3) {
                let _ = writeln!(s, "    {}", shorten(p, 160));
            }
            if self.preconditions.len() > 3 {
                let _ = writeln!(s, "    … (all of them with --format json)");
            }
        }
        if let Some(cx) = &self.counterexample {
            let _ = writeln!(
                s,
                "  counterexample at {}{}:",
                cx.tensor,
                show_index(&cx.index)
            );
            match (cx.left, cx.right) {
                (Some(l), Some(r)) => {
                    let _ = writeln!(s, "    kernel gives {l}, expected {r}");
                    if cx.reason != SIDES_DIFFER {
                        let _ = writeln!(s, "    {}", cx.reason);
                    } else if !l.is_finite() && r.is_finite() {
                        let _ = writeln!(
                            s,
                            "    (IEEE {l} in the kernel: 0/0, 0·inf or inf - inf, e.g. in masked-off lanes)"
                        );
                    }
                }
                _ => {
                    let _ = writeln!(s, "    {}", cx.reason);
                }
            }
            if !cx.inputs.is_empty() {
                let shown: Vec<String> = cx
                    .inputs
                    .iter()
                    .take(12)
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect();
                let more = if cx.inputs.len() > 12 {
                    format!(", … ({} values)", cx.inputs.len())
                } else {
                    String::new()
                };
                let _ = writeln!(s, "    at {}{more}", shown.join(", "));
            }
            if let Some(src) = &cx.source {
                let _ = writeln!(
                    s,
                    "    stored at {} (.{} line {})",
                    src.loc, self.ir, src.line
                );
            }
        }
        for u in &self.unknown {
            let _ = writeln!(
                s,
                "  undecided {}{}: {}",
                u.tensor,
                show_index(&u.index),
                u.reason
            );
        }
        if let Some(p) = &self.precision {
            let _ = writeln!(s, "  precision: {p}");
        }
        for a in &self.assumptions {
            let _ = writeln!(s, "  assumes {a}");
        }
        let verdict = match (self.outcome, self.all_sizes.as_ref().map(|o| (o, &o.scope))) {
            (Outcome::Verified, Some((o, verify::Scope::AllSizes { .. }))) => format!(
                "VERIFIED {} (proved on this launch instance and, in {:.1} ms over {} paths, \
                 for every size)",
                o.describe(),
                o.time.as_secs_f64() * 1e3,
                o.paths
            ),
            (Outcome::Verified, Some((o, _))) => {
                format!("VERIFIED on this launch instance ({})", o.describe())
            }
            (Outcome::Verified, None) => "VERIFIED (proved on this launch instance)".into(),
            (Outcome::Refuted, Some((o, verify::Scope::Refuted { .. }))) => format!(
                "{} (VERIFIED on this launch instance only; replay it with --size)",
                o.describe()
            ),
            (Outcome::Refuted, _) => match &self.rounding {
                Some(f) => {
                    let sizes: Vec<String> =
                        f.sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    format!(
                        "REFUTED at {} in the kernel's own precision (beyond {}'s tolerance)",
                        sizes.join(", "),
                        f.dtype
                    )
                }
                None => "REFUTED".into(),
            },
            (Outcome::Unknown, _) => "UNKNOWN".into(),
        };
        let _ = writeln!(s, "{verdict} in {:.3} s", self.seconds);
        s
    }

    /// Stable JSON schema `lift.check/1`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let finding = |f: &Finding| {
            json!({
                "tensor": f.tensor, "index": f.index, "kernel": f.left, "expected": f.right,
                "inputs": f.inputs.iter().map(|(k, v)| json!({"leaf": k, "value": v})).collect::<Vec<_>>(),
                "reason": f.reason,
                "source": f.source.as_ref().map(|s| json!({"ir": self.ir, "ir_line": s.line, "ttir_line": s.line, "python": s.loc.to_string()})),
            })
        };
        let (scope, constraints) = verify::Outcome::scope_json(self.all_sizes.as_ref());
        json!({
            "schema": "lift.check/1",
            "verdict": self.outcome,
            "title": self.title,
            "sizes": self.sizes,
            "tensors": self.tensors.iter().map(|(n, s, p)| json!({"tensor": n, "shape": s, "proved": p})).collect::<Vec<_>>(),
            "unchecked": self.unchecked,
            "temporaries": self.temporaries,
            "preconditions": self.preconditions,
            "assumptions": self.assumptions,
            "precision": self.precision.as_deref().unwrap_or("real"),
            "counterexample": self.counterexample.as_ref().map(finding),
            "rounding": self.rounding.as_ref().map(|f| json!({
                "sizes": f.sizes, "tensor": f.tensor, "index": f.index,
                "kernel_rounded": f.rounded, "kernel_real": f.real, "expected": f.expected,
                "dtype": f.dtype, "rtol": f.rtol, "atol": f.atol, "inputs": f.pattern,
            })),
            "unknown": self.unknown.iter().map(finding).collect::<Vec<_>>(),
            "scope": scope,
            "constraints": constraints,
            "all_sizes": self.all_sizes.as_ref().map(|o| o.to_json()),
            "seconds": self.seconds,
        })
    }
}

/// `x[1,2]` for an input element, the name for a scalar (as terms print them).
fn leaf_name(leaf: &Leaf) -> String {
    match leaf {
        Leaf::Input { tensor, index } => {
            let parts: Vec<String> = index.iter().map(|i| i.to_string()).collect();
            format!("{tensor}[{}]", parts.join(","))
        }
        Leaf::Param(p) => p.to_string(),
    }
}

fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let head: String = text.chars().take(max_chars / 2).collect();
    let tail: String = {
        let v: Vec<char> = text.chars().collect();
        v[v.len() - max_chars / 2..].iter().collect()
    };
    format!("{head} … {tail}")
}

fn show_index(index: &[usize]) -> String {
    let parts: Vec<String> = index.iter().map(|i| i.to_string()).collect();
    format!("[{}]", parts.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guard on the all-sizes reading: formulas that differ from the instance
    /// reading anywhere are refused, so a wrong reading can never reach `verify`.
    #[test]
    fn an_all_sizes_reading_that_differs_at_the_instance_is_refused() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("triton_ir/softmax/kernel.ttir");
        let kernel = Kernel::load(&path, None).unwrap();
        let inst = kernel.instance(&BTreeMap::new()).unwrap();
        let mut terms = Terms::new();
        let spec = "y = torch.softmax(x, dim=-1)";
        let (_, expected) = spec_terms(&kernel, &inst, spec, &mut terms).unwrap();
        let claimed: BTreeMap<String, Vec<Option<TermId>>> = expected
            .into_iter()
            .map(|o| (o.name, o.elems.into_iter().map(Some).collect()))
            .collect();
        let same = spec_formulas(&kernel, &inst, spec, &mut terms).unwrap();
        assert_eq!(
            agrees_at_instance(&kernel, &inst, &same, &mut terms, &claimed),
            Ok(())
        );
        // Softmax along the other axis: same shape, other values.
        let other = "y = torch.softmax(x, dim=0)";
        let wrong = spec_formulas(&kernel, &inst, other, &mut terms).unwrap();
        let e = agrees_at_instance(&kernel, &inst, &wrong, &mut terms, &claimed).unwrap_err();
        assert!(e.contains("differs from its instance reading"), "{e}");
    }
}
