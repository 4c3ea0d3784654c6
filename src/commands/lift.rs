//! `lift KERNEL`: lift every output to a formula proved on the launch instance, then
//! (with `all_sizes`) for every size, and print it in the chosen format: text, JSON
//! and PyTorch in its named form (`simplify`) unless `expand` is asked for.
//!
//! Architecture invariant: the formulas and the verdict come from `synth` and
//! `verify`, the named forms from `simplify` (each proved equal to its formula on the
//! instance); this runs them in order, chooses which form the all-sizes claim is of
//! (what is printed, see `verify_all_sizes`), and renders.

use super::{output, LaunchOptions};
use crate::decide::Decided;
use crate::error::Error;
use crate::formula::{Formula, ShapeEnv};
use crate::kernel::Kernel;
use crate::simplify::{self, Named, Rules};
use crate::synth::Lift;
use crate::term::Terms;
use crate::verdict::Verdict;
use crate::verify::{Limits, Scope};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// What `lift KERNEL` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LiftFormat {
    Text,
    Json,
    Latex,
    Torch,
    Numpy,
}

/// Lift `kernel`; with `all_sizes`, prove its formulas for every size within `limits`.
/// Formulas print in their named form.
pub fn lift(
    kernel: &Path,
    launch: &LaunchOptions,
    format: LiftFormat,
    all_sizes: bool,
    limits: &Limits,
) -> Result<Verdict, Error> {
    lift_with(kernel, launch, format, all_sizes, limits, false)
}

/// [`lift`]; with `expand`, text and PyTorch print the formulas as synthesised
/// (element-wise, no named ops).
pub fn lift_with(
    kernel: &Path,
    launch: &LaunchOptions,
    format: LiftFormat,
    all_sizes: bool,
    limits: &Limits,
    expand: bool,
) -> Result<Verdict, Error> {
    let k = launch.load(kernel)?;
    let with_named = !expand
        && matches!(
            format,
            LiftFormat::Text | LiftFormat::Json | LiftFormat::Torch | LiftFormat::Latex
        );
    let (lifted, terms, named) = lift_loaded(&k, &launch.sizes, all_sizes, limits, with_named)?;
    let env = &lifted.env;
    let rendered = match format {
        LiftFormat::Text => Some(Ok(
            lifted.to_text_with(&terms, &|f| text_of(f, &named, env, expand))
        )),
        LiftFormat::Json => {
            let mut doc = lifted.to_json();
            add_named_json(&mut doc, &lifted, &named);
            output::json(&doc);
            return Ok(lifted.verdict());
        }
        LiftFormat::Latex if expand => lifted.to_latex(),
        LiftFormat::Latex => lifted.to_latex_with(&|f| latex_of(f, &named, env)),
        LiftFormat::Torch => lifted.reference("torch", &|outs, env, name, sig| {
            crate::render::named::torch_kernel_function(outs, env, name, sig, &|f| {
                named.get(f).cloned()
            })
        }),
        LiftFormat::Numpy => lifted.to_numpy(),
    };
    match rendered {
        Some(Ok(text)) => print!("{text}"),
        Some(Err(e)) => return Err(Error::Usage(format!("cannot render: {}", e.message))),
        // Not every output lifted: the text report says which and why.
        None => eprint!("{}", lifted.to_text(&terms)),
    }
    Ok(lifted.verdict())
}

/// The `lift KERNEL` report of a loaded kernel in every format at once, for callers
/// in-process (the Python package): the text the CLI prints, the JSON document (with
/// named forms) and, where every output lifted, LaTeX and the NumPy reference.
pub struct LiftReport {
    pub verdict: Verdict,
    pub text: String,
    pub json: serde_json::Value,
    pub latex: Option<String>,
    pub numpy: Option<String>,
}

/// [`lift`] on a loaded kernel, rendered as [`LiftReport`] instead of printed.
pub fn lift_report(
    k: &Kernel,
    sizes: &BTreeMap<String, i64>,
    all_sizes: bool,
    limits: &Limits,
) -> Result<LiftReport, Error> {
    let (lifted, terms, named) = lift_loaded(k, sizes, all_sizes, limits, true)?;
    let env = &lifted.env;
    let text = lifted.to_text_with(&terms, &|f| text_of(f, &named, env, false));
    let mut json = lifted.to_json();
    add_named_json(&mut json, &lifted, &named);
    Ok(LiftReport {
        verdict: lifted.verdict(),
        text,
        json,
        latex: (lifted.to_latex_with(&|f| latex_of(f, &named, env))).and_then(Result::ok),
        numpy: lifted.to_numpy().and_then(Result::ok),
    })
}

/// A formula's text: its named form where proved, a repeated sub-formula bound once
/// (`where s = ...`); with `expand`, the formula as synthesised, written out.
fn text_of(f: &Formula, named: &HashMap<Formula, Named>, env: &ShapeEnv, expand: bool) -> String {
    match named.get(f) {
        Some(n) => crate::render::named::text(n, env),
        None if expand => crate::render::text::expr_in(f, env),
        None => crate::render::named::text(&Named::open(f), env),
    }
}

/// [`text_of`] in LaTeX (`--expand` prints `render::latex` directly).
fn latex_of(f: &Formula, named: &HashMap<Formula, Named>, env: &ShapeEnv) -> String {
    match named.get(f) {
        Some(n) => crate::render::named::latex(n, env),
        None => crate::render::named::latex(&Named::open(f), env),
    }
}

/// The proved named form of every lifted formula that has one. A rule file that does
/// not load is said on stderr, and the formulas print as synthesised.
fn named_forms(lifted: &Lift) -> HashMap<Formula, Named> {
    let mut out = HashMap::new();
    let rules = match Rules::load() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("note: named forms off: {e}");
            return out;
        }
    };
    for f in lifted.outputs.iter().filter_map(|o| o.formula.as_ref()) {
        match simplify::simplify(f, &lifted.env, &rules) {
            Ok(s) if s.proved => {
                out.insert(f.clone(), s.named);
            }
            Ok(_) => {}
            Err(e) => eprintln!("note: no named form: {e}"),
        }
    }
    out
}

/// Adds to each output of a `lift.lift/1` document its named form, where proved:
/// `"named"` (a `lift.formula/1` node tree with named-op nodes) and `"named_text"`.
fn add_named_json(doc: &mut serde_json::Value, lifted: &Lift, named: &HashMap<Formula, Named>) {
    let Some(outs) = doc["outputs"].as_array_mut() else {
        return;
    };
    for (json, o) in outs.iter_mut().zip(&lifted.outputs) {
        let n = o.formula.as_ref().and_then(|f| named.get(f));
        json["named"] = n
            .and_then(|n| crate::render::named::json(n, &lifted.env).ok())
            .unwrap_or(serde_json::Value::Null);
        json["named_text"] = n
            .map(|n| crate::render::named::text(n, &lifted.env).into())
            .unwrap_or(serde_json::Value::Null);
        json["named_nodes"] = match (o.formula.as_ref(), n) {
            (Some(f), Some(n)) => serde_json::json!({"formula": f.size(), "named": n.size()}),
            _ => serde_json::Value::Null,
        };
    }
}

/// `lift KERNEL` on a loaded kernel: the lift (proved for every size with
/// `all_sizes`) and the terms its report prints from.
pub(crate) fn lift_loaded(
    k: &Kernel,
    sizes: &BTreeMap<String, i64>,
    all_sizes: bool,
    limits: &Limits,
    with_named: bool,
) -> Result<(Lift, Terms, HashMap<Formula, Named>), Error> {
    let inst = k.instance(sizes)?;
    let mut terms = Terms::new();
    let mut lifted = crate::synth::lift(k, &inst, &mut terms)?;
    let mut named = if with_named {
        named_forms(&lifted)
    } else {
        HashMap::new()
    };
    if all_sizes {
        // The instance's proofs, reused by the replays where they meet the same terms.
        let equal = std::mem::take(&mut lifted.equal_pairs);
        let decided = Decided::none().with(&terms, &equal);
        verify_all_sizes(&mut lifted, &mut named, k, &inst, limits, &decided);
    }
    Ok((lifted, terms, named))
}

/// Proves for every size what will be printed: each named form (written out) where
/// there is one, else the formula as synthesised. A named form is equal to its formula
/// on the instance only (its rules are sampled, not proved), so where the named forms
/// do not prove for every size, or prove only with a size fixed, the formulas are tried
/// as synthesised: when they prove more widely (or the named forms are refuted at sizes
/// where they differ from the formulas), the formulas are what is printed.
fn verify_all_sizes(
    lifted: &mut Lift,
    named: &mut HashMap<Formula, Named>,
    k: &Kernel,
    inst: &crate::launch::Instance,
    limits: &Limits,
    decided: &Decided,
) {
    if named.is_empty() {
        lifted.verify_all_sizes_reusing(k, inst, limits, &Formula::clone, decided);
        return;
    }
    // Divisors out of matrix products, as `check` reads a spec: the form a kernel that
    // divides once at the end accumulates (flash attention's `softmax(s) @ v`).
    let env = lifted.env.clone();
    let shown = |f: &Formula| match named.get(f) {
        Some(n) => n.expand().divisors_out_of_matmuls(&env),
        None => f.clone(),
    };
    // Where every named form writes out to its formula exactly (attention's
    // `softmax(s) @ v`), the proof of the formulas below is this one again.
    let written_out_same = lifted
        .outputs
        .iter()
        .filter_map(|o| o.formula.as_ref())
        .all(|f| shown(f) == *f);
    lifted.verify_all_sizes_reusing(k, inst, limits, &shown, decided);
    let named_fixed = match lifted.all_sizes.as_ref().map(|o| &o.scope) {
        None => return,
        Some(Scope::AllSizes { fixed, .. }) if fixed.is_empty() => return,
        // The kernel differs from the named forms at `sizes`; where they equal the
        // formulas there, it differs from the formulas too.
        Some(Scope::Refuted { sizes, .. }) if equal_at(named, k, sizes) => return,
        // Proved with a size fixed (`N == 8`): where the named forms equal the formulas
        // with those sizes moved, the kernel fixes them, not the named forms.
        Some(Scope::AllSizes { fixed, .. }) if equal_at(named, k, &moved(inst, fixed)) => return,
        // Else the formulas may hold more widely.
        Some(Scope::AllSizes { fixed, .. }) => Some(fixed.clone()),
        Some(_) => None,
    };
    let as_named = lifted.all_sizes.take();
    if let Some(o) = &as_named {
        tracing::info!("the named forms, written out: {}", o.describe());
    }
    if written_out_same {
        lifted.all_sizes = as_named.clone();
    } else {
        lifted.verify_all_sizes_reusing(k, inst, limits, &Formula::clone, decided);
    }
    let formulas_fixed = match lifted.all_sizes.as_ref().map(|o| &o.scope) {
        Some(Scope::AllSizes { fixed, .. }) => Some(fixed),
        _ => None,
    };
    let formulas_wider = match (&named_fixed, formulas_fixed) {
        (Some(n), Some(f)) => f.len() < n.len() && f.iter().all(|s| n.contains(s)),
        (None, f) => f.is_some(),
        (Some(_), None) => false,
    };
    let named_refuted = matches!(
        as_named.as_ref().map(|o| &o.scope),
        Some(Scope::Refuted { .. })
    );
    if formulas_wider || named_refuted {
        named.clear();
    } else if named_fixed.is_some() {
        // The named forms' claim is as wide: it is the one printed.
        lifted.all_sizes = as_named;
    }
}

/// The instance's sizes with each of `fixed` moved by one (down, or up from 1).
fn moved(inst: &crate::launch::Instance, fixed: &[(String, i64)]) -> Vec<(String, i64)> {
    let mut sizes: Vec<(String, i64)> = inst.sizes.iter().map(|(n, v)| (n.clone(), *v)).collect();
    for (name, v) in fixed {
        if let Some(s) = sizes.iter_mut().find(|s| &s.0 == name) {
            s.1 = if *v > 1 { v - 1 } else { v + 1 };
        }
    }
    sizes
}

/// Whether every named form equals its formula at `sizes` (decided on that instance).
fn equal_at(named: &HashMap<Formula, Named>, k: &Kernel, sizes: &[(String, i64)]) -> bool {
    let Ok(inst) = k.instance(&sizes.iter().cloned().collect()) else {
        return false;
    };
    let Ok(env) = ShapeEnv::from_launch(&k.launch, &inst.sizes) else {
        return false;
    };
    named
        .iter()
        .all(|(f, n)| simplify::prove(f, &n.expand(), &env))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The softmax fixture (N <= 8, instance M=4, N=8), lifted on its instance, with a
    /// "named form" of our choosing for its formula `f`.
    fn softmax_with_named(
        named_of: impl Fn(&Formula) -> Formula,
    ) -> (Lift, HashMap<Formula, Named>) {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("triton_ir/softmax");
        let k = Kernel::load(
            &dir.join("kernel.ttir"),
            Some(&dir.join("kernel.launch.toml")),
        )
        .unwrap();
        let limits = Limits::default();
        let (mut lifted, _, _) = lift_loaded(&k, &BTreeMap::new(), false, &limits, false).unwrap();
        let f = lifted.outputs[0].formula.clone().unwrap();
        let mut named = HashMap::from([(f.clone(), Named::Formula(named_of(&f)))]);
        let inst = k.instance(&BTreeMap::new()).unwrap();
        let none = Decided::none();
        verify_all_sizes(&mut lifted, &mut named, &k, &inst, &limits, &none);
        (lifted, named)
    }

    /// The sizes the all-sizes proof fixes (`None`: not proved for all sizes).
    fn fixed_sizes(lifted: &Lift) -> Option<Vec<(String, i64)>> {
        match lifted.all_sizes.as_ref().map(|o| &o.scope) {
            Some(Scope::AllSizes { fixed, .. }) => Some(fixed.clone()),
            _ => None,
        }
    }

    #[test]
    fn a_named_form_equal_only_at_the_instance_size_is_not_printed() {
        // f · 8 · mean(f) is f · 8/N: f itself at the instance's N = 8 only (it proves
        // with N == 8 fixed, where f proves for every N <= 8).
        let (lifted, named) =
            softmax_with_named(|f| f.clone() * (Formula::int(8) * f.clone().mean(1, true)));
        assert!(named.is_empty(), "the wrong named form was kept");
        assert_eq!(fixed_sizes(&lifted), Some(vec![]), "{:?}", lifted.all_sizes);
    }

    #[test]
    fn a_named_form_equal_at_every_size_is_what_is_proved() {
        // (2 · f) · 1/2, another tree for f at every size.
        let (lifted, named) =
            softmax_with_named(|f| (Formula::int(2) * f.clone()) * Formula::ratio(1, 2));
        assert_eq!(named.len(), 1);
        assert_eq!(fixed_sizes(&lifted), Some(vec![]), "{:?}", lifted.all_sizes);
    }
}
