//! The lift of a kernel's outputs: for each output of the symbolic run, the search's
//! formula proved equal element by element (or the stall), then the concrete
//! cross-check before any formula is returned.
//!
//! Architecture invariant: an output gets a formula only after `prove` shows it equal
//! to every element at this instance and the kernel's concrete run agrees with it at
//! the cross-check points; otherwise it says why not.

use super::{causal, meanify, show, synthesize, tidy, Known, Memo, Options, Synth};
use crate::formula::{Formula, ShapeEnv};
use crate::kernel::Kernel;
use crate::launch::Instance;
use crate::prove::{instance, prove_with, Instances};
use crate::spec::Spec;
use crate::term::{TermId, Terms};
use crate::triton_ir::ast::Loc;
use crate::Error;
use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// The result for one output tensor.
#[derive(Clone, Debug)]
pub struct Lifted {
    pub name: String,
    pub shape: Vec<usize>,
    /// The proved formula.
    pub formula: Option<Formula>,
    /// Why no formula was proved (the stalled sub-term, or the failed proof).
    pub stalled: Option<String>,
    /// Set when the output is wrong whatever the formula: an element that is NaN or
    /// infinite for every input.
    pub undefined: Option<String>,
    /// The source lines (Python, via the IR's `loc`s) the output's values come from.
    pub sources: Vec<Loc>,
}

/// Wall-clock time of each phase of a lift.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timings {
    /// Symbolic execution of the kernel (the point-wise spec).
    pub execute: Duration,
    /// The search for candidate formulas.
    pub synthesize: Duration,
    /// Proving the candidates equal to the spec, element by element.
    pub prove: Duration,
}

/// Everything a lift produced: the spec, the shape environment, one result per output.
pub struct Lift {
    pub spec: Spec,
    pub env: ShapeEnv,
    pub outputs: Vec<Lifted>,
    pub timings: Timings,
    /// Roundings below f32 the proofs read as exact (see [`Kernel::assumptions`]).
    pub assumptions: Vec<String>,
    /// `Some("ieee (…)")` under `--precision ieee` (see [`Kernel::precision_note`]).
    pub precision: Option<String>,
    /// The proof for every size (`None` until [`Lift::verify_all_sizes`] runs).
    pub all_sizes: Option<crate::verify::Outcome>,
    /// The element pairs the proofs on the instance decided `Equal` with no
    /// precondition, in the lift's term store: what the all-sizes step's replays need
    /// not decide again (`decide::Decided`).
    pub equal_pairs: crate::decide::EqualPairs,
    /// The kernel's entry name and file, for headings and reading source lines.
    pub kernel_name: String,
    pub kernel_path: std::path::PathBuf,
    /// The output tensors in the order of the kernel's parameters (renderings return
    /// them so).
    pub output_order: Vec<String>,
    /// The input tensors and scalars in the order of the kernel's parameters.
    pub input_order: Vec<String>,
}

/// Lift every output of `kernel` on instance `inst`.
pub fn lift(kernel: &Kernel, inst: &Instance, terms: &mut Terms) -> Result<Lift, Error> {
    lift_with(kernel, inst, terms, &Options::default())
}

/// [`lift`] with explicit [`Options`].
pub fn lift_with(
    kernel: &Kernel,
    inst: &Instance,
    terms: &mut Terms,
    opts: &Options,
) -> Result<Lift, Error> {
    let start = Instant::now();
    let spec = kernel.spec(inst, terms)?;
    let execute = start.elapsed();
    let mut lifted = lift_spec(kernel, inst, terms, spec, opts)?;
    lifted.timings.execute = execute;
    Ok(lifted)
}

/// [`lift_with`] from the kernel's symbolic run on `inst` made before (`spec`, whose
/// terms are in `terms`): the formulas of a spec, or where each output stalls.
pub fn lift_spec(
    kernel: &Kernel,
    inst: &Instance,
    terms: &mut Terms,
    spec: Spec,
    opts: &Options,
) -> Result<Lift, Error> {
    let mut timings = Timings::default();
    let env = ShapeEnv::from_launch(&kernel.launch, &inst.sizes)?;
    let mut outputs = Vec::new();
    let mut known = Known::default();
    let mut instances = Instances::new();
    // Sub-lists built for one output, kept for the next (attention's lse and output
    // share the row max and the row sum of exponentials).
    let mut built_before = Memo::default();
    for t in &spec.outputs {
        let mut lifted = Lifted {
            name: t.name.clone(),
            shape: t.shape.clone(),
            formula: None,
            stalled: None,
            undefined: None,
            sources: sources(kernel, t),
        };
        let elems: Option<Vec<TermId>> = t.elems.iter().copied().collect();
        let Some(elems) = elems else {
            lifted.stalled = Some(format!("{} element(s) never written", t.unwritten()));
            outputs.push(lifted);
            continue;
        };
        // An element that is NaN or ±inf for every input is wrong whatever the formula.
        if let Some(flat) = elems
            .iter()
            .position(|&e| terms.is_nan(e) || terms.as_inf(e).is_some())
        {
            let idx: Vec<String> = t.index(flat).iter().map(|i| i.to_string()).collect();
            lifted.undefined = Some(format!(
                "{}[{}] is {} for every input (IEEE 0/0, 0·inf or inf - inf in the kernel, \
                 e.g. in masked-off lanes)",
                t.name,
                idx.join(","),
                terms.display(elems[flat])
            ));
            lifted.stalled = lifted.undefined.clone();
            outputs.push(lifted);
            continue;
        }
        let mut s = Synth::new(terms, &env, &known, opts);
        s.unit_size_axes = unit_size_axes(&env, &t.name, &t.shape);
        s.streams = super::philox::Streams::new(kernel, inst, env.dim_exprs.get(&t.name));
        s.instances = std::mem::take(&mut instances);
        s.memo = std::mem::take(&mut built_before);
        let start = Instant::now();
        let built = causal::lift(&mut s, opts, &t.name, &t.shape, &elems)
            .unwrap_or_else(|| synthesize(&mut s, opts, &t.name, &t.shape, &elems, false));
        timings.synthesize += start.elapsed();
        let timed_out = s.timed_out;
        if std::env::var_os("LIFT_DEBUG_WORK").is_some() {
            eprintln!(
                "synth {}: {} steps, {} enumerated, stopped {timed_out}",
                t.name,
                s.steps_taken,
                s.fallback.formed()
            );
        }
        instances = std::mem::take(&mut s.instances);
        s.restart();
        built_before = std::mem::take(&mut s.memo);
        match built {
            Ok(f) => {
                let f = broadcast_to_output(meanify(f, &env), &env, &t.name, &t.shape);
                // The tidied form where it is proved (it should always be), else as built.
                let tidied = tidy(f.clone());
                let start = Instant::now();
                let proved = prove_with(terms, &env, &tidied, &t.shape, &elems, &mut instances);
                let proved = match proved {
                    Ok(()) => Ok(tidied),
                    Err(why) => match prove_with(terms, &env, &f, &t.shape, &elems, &mut instances)
                    {
                        Ok(()) => Ok(f),
                        Err(_) => Err((why, tidied)),
                    },
                };
                timings.prove += start.elapsed();
                match proved {
                    Ok(f) => {
                        known.insert(elems.clone(), (t.shape.clone(), f.clone()));
                        lifted.formula = Some(f)
                    }
                    Err((why, tidied)) => {
                        lifted.stalled = Some(format!(
                            "candidate not proved: {} = {}: {why}",
                            t.name,
                            crate::render::text::expr(&tidied)
                        ))
                    }
                }
            }
            Err(stall) => {
                let why = if timed_out {
                    format!(
                        "work limit of {} build steps spent; no formula for the sub-term",
                        opts.steps
                    )
                } else {
                    "no formula for the sub-term".to_string()
                };
                lifted.stalled = Some(format!("{why} {}", show(terms, stall)))
            }
        }
        outputs.push(lifted);
    }
    cross_check(kernel, inst, terms, &env, &mut outputs, &mut instances)?;
    Ok(Lift {
        spec,
        env,
        outputs,
        timings,
        assumptions: kernel.assumptions(),
        precision: kernel.precision_note(),
        all_sizes: None,
        equal_pairs: std::mem::take(&mut instances.equal),
        kernel_name: kernel.name(),
        kernel_path: kernel.path.clone(),
        output_order: kernel.output_order(),
        input_order: kernel.input_order(),
    })
}

/// Which axes of output `name` (shape `shape`) have extent 1 at this instance though the
/// launch gives them a size, not the literal 1.
fn unit_size_axes(env: &ShapeEnv, name: &str, shape: &[usize]) -> Vec<bool> {
    let dims = env.dim_exprs.get(name);
    (0..shape.len())
        .map(|a| {
            let dim = dims.and_then(|d| d.get(a));
            shape[a] == 1 && dim.is_some_and(|d| !crate::formula::size_names(d).is_empty())
        })
        .collect()
}

/// Before any formula is called proved, the kernel runs concretely at the cross-check
/// points and every lifted output must agree with its formula there (see
/// [`crosscheck`](crate::crosscheck)); a disagreement withdraws the formulas.
fn cross_check(
    kernel: &Kernel,
    inst: &Instance,
    terms: &mut Terms,
    env: &ShapeEnv,
    outputs: &mut [Lifted],
    instances: &mut Instances,
) -> Result<(), Error> {
    let mut claimed = BTreeMap::new();
    for o in outputs.iter() {
        if let Some(f) = &o.formula {
            let elems = instance(terms, env, f, instances).map_err(Error::Usage)?;
            claimed.insert(o.name.clone(), elems.iter().map(|&e| Some(e)).collect());
        }
    }
    if claimed.is_empty() {
        return Ok(());
    }
    let claim = crate::crosscheck::Claim::Terms(terms, &claimed);
    if let Some(d) = crate::crosscheck::cross_check(kernel, inst, &claim, None)? {
        let why = format!(
            "the kernel's concrete run (lift run) gives {} at {}[#{}] where the proved \
             formulas give {} (inputs of point {}): the proof was wrong, a bug in lift",
            d.kernel, d.tensor, d.flat, d.claimed, d.point
        );
        for o in outputs.iter_mut().filter(|o| o.formula.is_some()) {
            o.formula = None;
            o.stalled = Some(why.clone());
        }
    }
    Ok(())
}

/// Where the values of output `t` come from: for Triton IR, the data slice of each
/// store that wrote it; for PTX, the stores' own `.loc` lines.
fn sources(kernel: &Kernel, t: &crate::spec::SpecTensor) -> Vec<Loc> {
    let stores: BTreeSet<u32> = t.sources.iter().flatten().map(|s| s.line).collect();
    let mut out: Vec<Loc> = Vec::new();
    for line in stores {
        let locs = match kernel.triton() {
            Some(module) => crate::triton_ir::slice::store_sources(module, line),
            None => t
                .sources
                .iter()
                .flatten()
                .filter(|s| s.line == line && s.loc.file.is_some())
                .map(|s| s.loc.clone())
                .take(1)
                .collect(),
        };
        for l in locs {
            if !out.iter().any(|o| o.file == l.file && o.line == l.line) {
                out.push(l);
            }
        }
    }
    out.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    out
}

/// `f` (built for the output's elements, possibly of a smaller shape that broadcasts)
/// broadcast to the output's shape, as size expressions of the launch.
fn broadcast_to_output(f: Formula, env: &ShapeEnv, name: &str, shape: &[usize]) -> Formula {
    match (f.shape(env), env.dim_exprs.get(name)) {
        (Ok(fs), Some(exprs)) if fs != shape && exprs.len() == shape.len() => {
            f.broadcast_to(exprs.clone())
        }
        _ => f,
    }
}
