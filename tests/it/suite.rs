//! The suite under `triton_ir/`, one data-driven test per claim of the foundation:
//! every kernel parses and executes; `lift run` reproduces the NumPy references of every
//! correct kernel; the symbolic spec evaluated at the same inputs gives the same
//! numbers; wrong twins really differ; error kernels fail with the promised error.

use crate::common;

use common::{first_mismatch, fixtures, Fixture, InstanceToml};
use lift::npy::Array;
use lift::term::Terms;
use lift::Kernel;
use std::collections::BTreeMap;

/// numpy.allclose tolerances of the issue: 1e-5 relative.
const RTOL: f64 = 1e-5;
const ATOL: f64 = 1e-8;

fn concrete(f: &Fixture, inst: &InstanceToml) -> Result<BTreeMap<String, Array>, lift::Error> {
    let k = Kernel::load(&f.kernel(), None)?;
    let inputs = f.inputs(inst);
    let sizes = k.sizes_from_inputs(&inputs, &inst.sizes)?;
    let i = k.instance(&sizes)?;
    let run = k.run(&i, &inputs, &inst.scalars)?;
    Ok(run.outputs.into_iter().collect())
}

#[test]
fn correct_kernels_reproduce_numpy_references() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for f in fixtures().iter().filter(|f| f.meta.expect == "verified") {
        assert!(
            f.meta.instance.len() >= 2,
            "{}: needs two instances",
            f.name()
        );
        for inst in &f.meta.instance {
            let expected = f.expected(inst);
            assert!(
                !expected.is_empty(),
                "{}/{}: no expected outputs",
                f.name(),
                inst.name
            );
            match concrete(f, inst) {
                Err(e) => failures.push(format!("{}/{}: {e}", f.name(), inst.name)),
                Ok(outputs) => {
                    for (name, want) in &expected {
                        let got = &outputs[name];
                        if let Some(m) = first_mismatch(got, want, RTOL, ATOL) {
                            failures.push(format!("{}/{}: {name}: {m}", f.name(), inst.name));
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked >= 66, "only {checked} outputs checked");
}

#[test]
fn wrong_twins_execute_and_differ_from_the_reference() {
    let twins: Vec<_> = fixtures()
        .into_iter()
        .filter(|f| f.meta.expect == "refuted" && f.meta.bug_region.is_none())
        .collect();
    assert!(twins.len() >= 8, "only {} wrong twins", twins.len());
    for f in &twins {
        let mut differs = false;
        for inst in &f.meta.instance {
            let outputs =
                concrete(f, inst).unwrap_or_else(|e| panic!("{}/{}: {e}", f.name(), inst.name));
            for (name, want) in f.expected(inst) {
                differs |= first_mismatch(&outputs[&name], &want, RTOL, ATOL).is_some();
            }
        }
        assert!(
            differs,
            "{}: the twin agrees with the reference on every instance",
            f.name()
        );
    }
}

#[test]
fn symbolic_spec_evaluates_to_the_concrete_run() {
    for f in fixtures().iter().filter(|f| f.meta.expect != "error") {
        for inst in &f.meta.instance {
            let k = Kernel::load(&f.kernel(), None).unwrap();
            let inputs = f.inputs(inst);
            let sizes = k.sizes_from_inputs(&inputs, &inst.sizes).unwrap();
            let i = k.instance(&sizes).unwrap();
            let mut terms = Terms::new();
            let spec = k
                .spec(&i, &mut terms)
                .unwrap_or_else(|e| panic!("{}: {e}", f.name()));
            let run = k.run(&i, &inputs, &inst.scalars).unwrap();
            let input = |t: &str, idx: &[i64]| -> f64 {
                let a = &inputs[t];
                let flat = idx
                    .iter()
                    .zip(&a.shape)
                    .fold(0usize, |acc, (&x, &d)| acc * d + x as usize);
                a.data[flat]
            };
            let param = |p: &str| inst.scalars[p];
            for (t, (name, arr)) in spec.outputs.iter().zip(&run.outputs) {
                assert_eq!(&t.name, name);
                for (flat, e) in t.elems.iter().enumerate() {
                    let want = arr.data[flat];
                    let Some(id) = e else {
                        assert!(
                            want.is_nan(),
                            "{}: {name}[{flat}] written concretely only",
                            f.name()
                        );
                        continue;
                    };
                    let got = terms.eval(*id, &input, &param);
                    let ok = (got - want).abs() <= 1e-9 * (1.0 + want.abs())
                        || (got.is_nan() && want.is_nan());
                    assert!(
                        ok,
                        "{}/{}: {name}[{flat}]: term evaluates to {got}, concrete run gives {want}\n  term: {}",
                        f.name(),
                        inst.name,
                        terms.display(*id)
                    );
                }
            }
        }
    }
}

#[test]
fn error_kernels_fail_with_the_promised_error() {
    let errs: Vec<_> = fixtures()
        .into_iter()
        .filter(|f| f.meta.expect == "error")
        .collect();
    assert!(errs.len() >= 3, "only {} error kernels", errs.len());
    for f in &errs {
        let phrase = f
            .meta
            .error
            .as_deref()
            .expect("error kernels name their error");
        // The error must show in the symbolic run and, where inputs exist, the concrete one.
        let inst = f.meta.instance.last().unwrap();
        let k = Kernel::load(&f.kernel(), None).unwrap();
        let i = k.instance(&inst.sizes).unwrap();
        let mut terms = Terms::new();
        let e = k
            .spec(&i, &mut terms)
            .err()
            .unwrap_or_else(|| panic!("{}: spec succeeded", f.name()));
        let msg = e.to_string();
        assert!(
            msg.contains(phrase),
            "{}: error '{msg}' lacks '{phrase}'",
            f.name()
        );
        assert_eq!(
            e.exit_code(),
            1,
            "{}: kernel faults are exit code 1",
            f.name()
        );
        assert!(
            msg.contains("kernel.ttir:"),
            "{}: error names no .ttir line: {msg}",
            f.name()
        );
        assert!(
            msg.contains("kernel.py:"),
            "{}: error names no Python line: {msg}",
            f.name()
        );
        let c = concrete(f, inst)
            .err()
            .unwrap_or_else(|| panic!("{}: run succeeded", f.name()));
        assert!(
            c.to_string().contains(phrase),
            "{}: concrete error '{c}' lacks '{phrase}'",
            f.name()
        );
    }
}
