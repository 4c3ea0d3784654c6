//! The spec library against real PyTorch: every case of `tests/torch_diff/index.json`
//! (written by `tests/torch_diff/generate.py`, which ran each spec in PyTorch float64)
//! is instantiated by lift and evaluated at the same inputs. NaN must be NaN, an
//! infinity the same infinity, a finite value within 1e-9 relative (1e-12 absolute:
//! lift evaluates `log(1 + x)` where PyTorch calls `log1p`). Every op and keyword the
//! library accepts must appear in some case, so a new op cannot skip the comparison.

use lift::npy;
use lift::term::Terms;
use lift::torch::{self, Env, FloatType, SpecProgram};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const RTOL: f64 = 1e-9;
const ATOL: f64 = 1e-12;

#[derive(Deserialize)]
struct Index {
    torch: String,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    spec: String,
    inputs: BTreeMap<String, Vec<usize>>,
    #[serde(default)]
    outputs: Vec<String>,
    #[serde(default)]
    sizes: BTreeMap<String, i64>,
    /// lift must refuse the spec, with a message containing this.
    #[serde(default)]
    error: Option<String>,
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/torch_diff")
}

fn index() -> Index {
    let text = std::fs::read_to_string(dir().join("index.json")).expect("index.json");
    serde_json::from_str(&text).expect("index.json parses")
}

fn instantiate(case: &Case, terms: &mut Terms) -> Result<Vec<torch::SpecOutput>, torch::SpecError> {
    let prog = torch::parse(&case.spec)?;
    let (scalars, values) = (BTreeSet::new(), BTreeMap::new());
    let env = Env {
        tensors: &case.inputs,
        scalars: &scalars,
        values: &values,
        sizes: &case.sizes,
        float: FloatType::F64,
    };
    prog.instantiate(terms, &env)
}

fn agree(got: f64, want: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        want.is_nan() && got.is_nan()
    } else if want.is_infinite() || got.is_infinite() {
        want == got
    } else {
        (got - want).abs() <= ATOL + RTOL * want.abs()
    }
}

/// Every mismatch of one case, as lines.
fn compare(case: &Case) -> Vec<String> {
    let data = dir().join("data").join(&case.id);
    let mut terms = Terms::new();
    let outs = match instantiate(case, &mut terms) {
        Ok(o) => o,
        Err(e) => return vec![format!("lift rejects it: {e}")],
    };
    let inputs: BTreeMap<String, npy::Array> = case
        .inputs
        .keys()
        .map(|n| {
            let a = npy::read(&data.join(format!("in_{n}.npy"))).unwrap();
            (n.clone(), a)
        })
        .collect();
    let value = |name: &str, idx: &[i64]| -> f64 {
        let a = &inputs[name];
        let flat = idx
            .iter()
            .zip(&a.shape)
            .fold(0usize, |f, (&i, &s)| f * s + i as usize);
        a.data[flat]
    };
    let names: Vec<&str> = outs.iter().map(|o| o.name.as_str()).collect();
    if names != case.outputs {
        return vec![format!("outputs {names:?}, PyTorch's {:?}", case.outputs)];
    }
    let mut bad = Vec::new();
    for out in &outs {
        let want = npy::read(&data.join(format!("out_{}.npy", out.name))).unwrap();
        if want.shape != out.shape {
            bad.push(format!(
                "{}: shape {:?}, PyTorch's {:?}",
                out.name, out.shape, want.shape
            ));
            continue;
        }
        for (i, (&e, &w)) in out.elems.iter().zip(&want.data).enumerate() {
            let g = terms.eval(e, &value, &|p| panic!("no param {p}"));
            if !agree(g, w) {
                bad.push(format!(
                    "{}[flat {i}]: lift {g:e}, PyTorch {w:e}   (term {})",
                    out.name,
                    terms.display(e)
                ));
            }
        }
    }
    bad
}

#[test]
fn every_spec_evaluates_as_pytorch_does() {
    let index = index();
    let mut failures = Vec::new();
    for case in index.cases.iter().filter(|c| c.error.is_none()) {
        let bad = compare(case);
        if !bad.is_empty() {
            let shown: Vec<&String> = bad.iter().take(4).collect();
            failures.push(format!(
                "case {} `{}`: {} mismatches, e.g.\n    {}",
                case.id,
                case.spec,
                bad.len(),
                shown
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("\n    ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from PyTorch {}:\n{}",
        failures.len(),
        index.cases.len(),
        index.torch,
        failures.join("\n")
    );
}

/// Specs lift must refuse: PyTorch refuses them too (`torch_error`), or PyTorch accepts
/// them but their meaning (a rounding conversion, an unsupported argument) is outside
/// what a spec expresses, and lift's message must name it.
#[test]
fn specs_lift_cannot_honour_are_errors_naming_why() {
    for case in index().cases.iter().filter(|c| c.error.is_some()) {
        let want = case.error.as_deref().unwrap();
        match instantiate(case, &mut Terms::new()) {
            Ok(_) => panic!("case {} `{}`: lift accepts it", case.id, case.spec),
            Err(e) => assert!(
                e.message.contains(want),
                "case {} `{}`: error `{}` does not mention `{want}`",
                case.id,
                case.spec,
                e.message
            ),
        }
    }
}

/// Whether `spec` calls `name` as a function or method (`torch.name(`, `.name(`).
fn calls(spec: &str, name: &str) -> bool {
    spec.match_indices(&format!("{name}("))
        .any(|(i, _)| spec[..i].ends_with('.'))
}

#[test]
fn every_op_and_keyword_of_the_library_has_a_case() {
    let index = index();
    let specs: Vec<&str> = index.cases.iter().map(|c| c.spec.as_str()).collect();
    let ops = SpecProgram::supported_ops();
    let mut missing = Vec::new();
    for &op in ops {
        if !specs.iter().any(|s| calls(s, op)) {
            missing.push(format!("op `{op}`"));
        }
        // Every parameter but the tensor, by keyword, in a call of this op or of one with
        // the same parameters (`other=` once for maximum, mul, gt, ...).
        let params = SpecProgram::op_params(op).unwrap();
        let family: Vec<&str> = ops
            .iter()
            .copied()
            .filter(|&o| SpecProgram::op_params(o) == Some(params))
            .collect();
        for p in params.iter().skip(1).filter(|p| !p.starts_with('*')) {
            let covered = specs
                .iter()
                .any(|s| s.contains(&format!("{p}=")) && family.iter().any(|o| calls(s, o)));
            if !covered {
                missing.push(format!("keyword `{p}` of `{op}`"));
            }
        }
    }
    missing.dedup();
    assert!(
        missing.is_empty(),
        "no case in tests/torch_diff/generate.py uses: {}",
        missing.join(", ")
    );
}
