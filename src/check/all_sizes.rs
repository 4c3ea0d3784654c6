//! The proof for every size after a verified instance: `check`'s spec read as formulas
//! over symbolic sizes, `equiv`'s first kernel lifted, and `verify` run on them.
//!
//! Architecture invariant: a spec's all-sizes reading reaches `verify` only after it
//! is `decide`-equal, at the instance, to the instance reading (a difference is a bug
//! in lift, reported as UNKNOWN); two kernels are equal for every size only where both
//! are proved equal to one formula.

use super::reference::{float_type, int_args, scalar_args};
use crate::decide;
use crate::formula;
use crate::kernel::Kernel;
use crate::launch::{ArgBinding, Instance, Role};
use crate::spec::Spec;
use crate::term::{TermId, Terms};
use crate::torch;
use crate::verdict::Verdict;
use crate::verify;
use std::collections::BTreeMap;
use std::time::Instant;

/// The spec proved for every size: read as formulas over symbolic sizes
/// (`SpecProgram::formulas`), that reading checked against the instance's element by
/// element, then `verify` proves the kernel equal to it.
pub(super) fn of_spec(
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
    if kernel.is_ptx() {
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
    let (scalars, values) = scalar_args(inst);
    let sizes: std::collections::BTreeSet<String> = kernel.launch.sizes.keys().cloned().collect();
    // An integer argument fixed by the launch (a seed) is that int at every size.
    let mut ints = int_args(inst);
    ints.retain(|k, _| !sizes.contains(k));
    let env = torch::SymEnv {
        ints: &ints,
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

/// Two kernels equal for every size: both proved equal, for every size, to the formula
/// the first lifts to (the proof holds where both sides' constraints do). A refutation
/// of the second at sizes where the first is proved is a size where the two differ.
pub(super) fn of_kernels(
    left: &Kernel,
    right: &Kernel,
    li: &Instance,
    ri: &Instance,
    first: Option<(Terms, Spec)>,
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
    if left.is_ptx() || right.is_ptx() {
        // CTA-level and bounded: say so before lifting (a whole second execution).
        let which = match (left.is_ptx(), right.is_ptx()) {
            (true, true) => "both kernels are PTX",
            (true, false) => "the first kernel is PTX",
            _ => "the second kernel is PTX",
        };
        return unknown(format!(
            "{which}, and PTX proofs are CTA-level and bounded (Volta's model)"
        ));
    }
    // `first` is the first kernel's run exactly when `lifts_first` holds (the checks
    // above); without it (a caller that did not run it) it runs here.
    let (mut terms, spec) = match first {
        Some(run) => run,
        None => {
            let mut terms = Terms::new();
            match left.spec(li, &mut terms) {
                Ok(spec) => (terms, spec),
                Err(_) => {
                    return unknown(
                        "the first kernel does not lift to a formula on this instance".into(),
                    )
                }
            }
        }
    };
    let opts = crate::synth::Options::default();
    let lifted = match crate::synth::lift_spec(left, li, &mut terms, spec, &opts) {
        Ok(l) if l.verdict() == Verdict::Verified => l,
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

/// Whether [`of_kernels`] lifts the first kernel: the launches name the same sizes
/// and neither kernel is PTX.
pub(super) fn lifts_first(left: &Kernel, right: &Kernel) -> bool {
    left.launch.sizes.keys().eq(right.launch.sizes.keys()) && !left.is_ptx() && !right.is_ptx()
}

/// Whether `sizes` satisfy the size bounds and fixed sizes of a proof.
fn admits(bounds: &[(String, i64)], fixed: &[(String, i64)], sizes: &[(String, i64)]) -> bool {
    sizes.iter().all(|(n, v)| {
        bounds.iter().all(|(b, c)| b != n || v <= c) && fixed.iter().all(|(f, c)| f != n || v == c)
    })
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
        let (_, expected) = super::super::spec_terms(&kernel, &inst, spec, &mut terms).unwrap();
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
