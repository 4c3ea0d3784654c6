//! The spec language's two readings agree: for every case of the PyTorch differential
//! suite (`tests/torch_diff/index.json`, which tests/torch_diff.rs holds against
//! PyTorch itself), the all-sizes reading (`SpecProgram::formulas`, what `lift check`
//! proves for every size), instantiated at the case's shapes, is `decide`-equal element
//! by element to the instance reading (`SpecProgram::instantiate`). `check` asks the
//! same of every spec before trusting the reading; this test asks it of every op.

use lift::decide::{self, Verdict};
use lift::formula::{ShapeEnv, Size};
use lift::term::Terms;
use lift::torch::{self, Env, FloatType, SymEnv};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[derive(Deserialize)]
struct Index {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    spec: String,
    inputs: BTreeMap<String, Vec<usize>>,
    #[serde(default)]
    sizes: BTreeMap<String, i64>,
    #[serde(default)]
    error: Option<String>,
}

/// A case's shapes over its size names: an axis whose length is a size's value is that
/// size (so `layer_norm(x, (N,))` reads `N` as x's last axis), the rest constants.
fn symbolic_shapes(case: &Case) -> BTreeMap<String, Vec<Size>> {
    case.inputs
        .iter()
        .map(|(name, shape)| {
            let dims = shape
                .iter()
                .map(|&d| match case.sizes.iter().find(|(_, &v)| v == d as i64) {
                    Some((s, _)) => Size::Size(s.clone()),
                    None => Size::Int(d as i64),
                })
                .collect();
            (name.clone(), dims)
        })
        .collect()
}

/// `Ok(None)` when the all-sizes reading refuses the case, else the pairs that differ.
fn compare(case: &Case) -> Result<Option<Vec<String>>, String> {
    let prog = torch::parse(&case.spec).map_err(|e| e.to_string())?;
    let mut terms = Terms::new();
    let (scalars, values) = (BTreeSet::new(), BTreeMap::new());
    let env = Env {
        tensors: &case.inputs,
        scalars: &scalars,
        values: &values,
        sizes: &case.sizes,
        float: FloatType::F32,
    };
    let want = prog
        .instantiate(&mut terms, &env)
        .map_err(|e| e.to_string())?;
    let shapes = symbolic_shapes(case);
    let size_names: BTreeSet<String> = case.sizes.keys().cloned().collect();
    let sym = SymEnv {
        ints: &Default::default(),
        tensors: &shapes,
        scalars: &scalars,
        values: &values,
        sizes: &size_names,
        float: FloatType::F32,
    };
    let formulas = match prog.formulas(&mut terms, &sym) {
        Ok(f) => f,
        Err(e) => {
            if std::env::var("LIFT_SHOW_REFUSED").is_ok() {
                eprintln!("case {} `{}` refused: {e}", case.id, case.spec);
            }
            return Ok(None);
        }
    };
    let mut shape_env = ShapeEnv::new();
    for (name, shape) in &case.inputs {
        shape_env = shape_env.tensor(name, shape);
    }
    for (name, v) in &case.sizes {
        shape_env = shape_env.size(name, *v);
    }
    let mut pairs = Vec::new();
    let mut at = Vec::new();
    for (f, w) in formulas.iter().zip(&want) {
        assert_eq!(f.name, w.name);
        let got = match f.formula.instantiate(&mut terms, &shape_env) {
            Ok(got) => got,
            // This harness reads every input as a real tensor, so a gather at labels
            // (`take`: cross-entropy, NLL, embedding) has no integer values to split
            // over; those are compared for every size against PyTorch with declared
            // labels in `label_lifts`.
            Err(e) if e.to_string().contains("not an integer tensor") => return Ok(None),
            Err(e) => return Err(format!("{}: {e}", f.name)),
        };
        if got.len() != w.elems.len() {
            return Ok(Some(vec![format!(
                "{}: {} elements, not {}",
                f.name,
                got.len(),
                w.elems.len()
            )]));
        }
        for (k, (&g, &e)) in got.iter().zip(&w.elems).enumerate() {
            if g != e {
                pairs.push((g, e));
                at.push(format!("{}[flat {k}]", f.name));
            }
        }
    }
    let verdicts = decide::decide_all(&terms, &pairs, &decide::Options::default());
    Ok(Some(
        verdicts
            .iter()
            .zip(at)
            .filter(|(v, _)| !matches!(v, Verdict::Equal { .. }))
            .map(|(v, a)| format!("{a}: {v:?}"))
            .collect(),
    ))
}

#[test]
fn the_all_sizes_reading_agrees_with_the_instance_reading_on_every_case_it_reads() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/torch_diff/index.json"),
    )
    .expect("tests/torch_diff/index.json");
    let index: Index = serde_json::from_str(&text).expect("index.json parses");
    let (mut read, mut refused, mut failures) = (0, 0, Vec::new());
    for case in index.cases.iter().filter(|c| c.error.is_none()) {
        match compare(case) {
            Err(e) => failures.push(format!("case {} `{}`: {e}", case.id, case.spec)),
            Ok(None) => refused += 1,
            Ok(Some(bad)) if bad.is_empty() => read += 1,
            Ok(Some(bad)) => failures.push(format!(
                "case {} `{}`: {} elements differ, e.g. {}",
                case.id,
                case.spec,
                bad.len(),
                bad[0]
            )),
        }
    }
    eprintln!("{read} cases read for all sizes, {refused} refused");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Most of the language is read for every size (elementwise ops through the op
    // library, reductions, softmax, norms, matmul, slicing, cat).
    assert!(
        read >= 100,
        "only {read} cases read for all sizes ({refused} refused)"
    );
}
