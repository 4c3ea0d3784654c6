//! Every `spec = "..."` of the Triton suite parses and instantiates on its launch, with
//! the launch's output tensors as outputs; and the instantiated spec, evaluated on each
//! instance's reference inputs, reproduces the reference outputs (NumPy, float64).

use crate::common;

use lift::launch::{ArgValue, Launch, Role};
use lift::npy::Array;
use lift::term::Terms;
use lift::torch::{self, Env, FloatType, SpecOutput};
use std::collections::{BTreeMap, BTreeSet};

struct LaunchEnv {
    tensors: BTreeMap<String, Vec<usize>>,
    outs: Vec<(String, Vec<usize>)>,
    scalars: BTreeSet<String>,
    values: BTreeMap<String, f64>,
    sizes: BTreeMap<String, i64>,
}

/// Inputs, outputs and scalars of a launch at `sizes` (the launch default if empty).
fn launch_env(f: &common::Fixture, sizes: &BTreeMap<String, i64>) -> LaunchEnv {
    let path = f.dir.join("kernel.launch.toml");
    // Read the TOML directly too: the default sizes must be those of the launch file.
    let raw: toml::Value = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(raw.get("sizes").is_some(), "{}: no sizes", path.display());
    let launch = Launch::from_file(&path).unwrap();
    let inst = launch.instantiate(sizes).unwrap();
    let mut env = LaunchEnv {
        tensors: BTreeMap::new(),
        outs: Vec::new(),
        scalars: BTreeSet::new(),
        values: BTreeMap::new(),
        sizes: inst.sizes.clone(),
    };
    for t in &inst.tensors {
        if t.role != Role::Out {
            env.tensors.insert(t.name.clone(), t.shape.clone());
        }
        if t.role != Role::In {
            env.outs.push((t.name.clone(), t.shape.clone()));
        }
    }
    for (param, v) in &inst.args {
        match v {
            ArgValue::Scalar(s) => {
                env.scalars.insert(s.clone());
            }
            ArgValue::Value(v) => {
                env.values.insert(param.clone(), *v);
            }
            ArgValue::Tensor(_) | ArgValue::Int(_) => {}
        }
    }
    env
}

fn instantiate(spec: &str, le: &LaunchEnv, terms: &mut Terms) -> Vec<SpecOutput> {
    let prog = torch::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    let env = Env {
        tensors: &le.tensors,
        scalars: &le.scalars,
        values: &le.values,
        sizes: &le.sizes,
        float: FloatType::F32,
    };
    let out = prog
        .instantiate(terms, &env)
        .unwrap_or_else(|e| panic!("{spec}: {e}"));
    assert_eq!(
        prog.outputs,
        out.iter().map(|o| o.name.clone()).collect::<Vec<_>>()
    );
    out
}

#[test]
fn every_fixture_spec_instantiates_with_the_launch_outputs() {
    let mut checked = 0;
    for f in common::fixtures() {
        if f.meta.spec.is_empty() {
            continue;
        }
        let le = launch_env(&f, &BTreeMap::new());
        let mut terms = Terms::new();
        let out = instantiate(&f.meta.spec, &le, &mut terms);
        let mut got: Vec<(String, Vec<usize>)> = out
            .iter()
            .map(|o| (o.name.clone(), o.shape.clone()))
            .collect();
        let mut want = le.outs.clone();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{}: spec `{}`", f.name(), f.meta.spec);
        for o in &out {
            assert_eq!(o.elems.len(), o.shape.iter().product::<usize>());
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} fixture specs");
}

fn at(a: &Array, idx: &[i64]) -> f64 {
    let mut flat = 0usize;
    for (&i, &d) in idx.iter().zip(&a.shape) {
        flat = flat * d + i as usize;
    }
    a.data[flat]
}

/// The spec, evaluated on the reference inputs, matches the reference outputs on every
/// instance of every correct kernel and every twin (twins carry the correct op's data).
#[test]
fn fixture_specs_reproduce_the_numpy_references() {
    let mut compared = 0;
    for f in common::fixtures() {
        if f.meta.spec.is_empty() || f.meta.expect == "error" {
            continue;
        }
        for inst in &f.meta.instance {
            let le = launch_env(&f, &inst.sizes);
            let inputs = f.inputs(inst);
            let expected = f.expected(inst);
            let mut terms = Terms::new();
            let out = instantiate(&f.meta.spec, &le, &mut terms);
            for o in &out {
                let Some(want) = expected.get(&o.name) else {
                    panic!("{}/{}: no expected output {}", f.name(), inst.name, o.name);
                };
                assert_eq!(
                    want.shape,
                    o.shape,
                    "{}/{}: {}",
                    f.name(),
                    inst.name,
                    o.name
                );
                let input = |t: &str, idx: &[i64]| at(&inputs[t], idx);
                let param = |p: &str| inst.scalars[p];
                for (i, &e) in o.elems.iter().enumerate() {
                    let got = terms.eval(e, &input, &param);
                    let w = want.data[i];
                    assert!(
                        (got - w).abs() <= 1e-6 + 1e-5 * w.abs(),
                        "{}/{}: {}[{i}] = {got}, expected {w} (term {})",
                        f.name(),
                        inst.name,
                        o.name,
                        terms.display(e)
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 1000, "only {compared} elements compared");
}
