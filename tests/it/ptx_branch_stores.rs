//! Stores under data-dependent branches (issue 19): a store inside an if-converted
//! branch is a guarded update of its cell, and an access in the race log that happens
//! only for some inputs. The fixtures are NVRTC's PTX of `ptx/relu/*.cu` and
//! `ptx/cond_max/*.cu`; their verdicts against specs are in the fixture files
//! (`tests/ptx_spec_checks.rs`, `tests/ptx_equiv.rs`). Here: the race of a conditional
//! store is reported with an input under which both accesses happen, and that input
//! replays the race in a concrete run, while an input under which the store never
//! happens runs race-free.

#![allow(clippy::result_large_err)]

use lift::exec::ErrorKind;
use lift::npy::Array;
use lift::race::{race, Safety};
use lift::{Error, Kernel};
use std::collections::BTreeMap;
use std::path::Path;

fn kernel(rel: &str) -> Kernel {
    Kernel::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(rel), None).unwrap()
}

fn sizes() -> BTreeMap<String, i64> {
    BTreeMap::from([("B".to_string(), 2), ("N".to_string(), 128)])
}

/// Rows in decreasing order: `s[tid] >= s[tid + stride]` at every tree step, so no
/// conditional store of cond_max ever happens.
fn decreasing() -> Array {
    Array {
        shape: vec![2, 128],
        data: (0..256).map(|k| -((k % 128) as f64)).collect(),
    }
}

fn run(k: &Kernel, x: &Array) -> Result<Vec<f64>, Error> {
    let inst = k.instance(&sizes())?;
    let inputs = BTreeMap::from([("x".to_string(), x.clone())]);
    let r = k.run(&inst, &inputs, &BTreeMap::new())?;
    Ok(r.outputs
        .into_iter()
        .find(|(n, _)| n == "out")
        .unwrap()
        .1
        .data)
}

/// The `x[b,j] = v` assignments after "both happen for the inputs " in a race message.
fn witness(msg: &str) -> Vec<((usize, usize), f64)> {
    let tail = msg
        .split("both happen for the inputs ")
        .nth(1)
        .unwrap_or_else(|| panic!("no witness in: {msg}"));
    let tail = tail.split(" (thread").next().unwrap();
    tail.split(", x[")
        .map(|part| {
            let part = part.trim_start_matches("x[");
            let (index, value) = part.split_once("] = ").unwrap();
            let (b, j) = index.split_once(',').unwrap();
            (
                (b.trim().parse().unwrap(), j.trim().parse().unwrap()),
                value.trim().parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn conditional_store_race_names_an_input_that_replays() {
    let k = kernel("ptx/cond_max/missing_syncthreads.ptx");
    let report = race(&k, &k.instance(&sizes()).unwrap()).unwrap();
    let Safety::Unsafe { kind, message } = &report.safety else {
        panic!("no race reported:\n{}", report.to_text())
    };
    assert_eq!(*kind, ErrorKind::Race, "{message}");
    assert!(
        message.contains("writes under a data-dependent condition"),
        "{message}"
    );
    // Reported at the store inside the branch, not at the branch.
    assert!(message.contains(": st.shared.f32: data race"), "{message}");
    let w = witness(message);
    assert!(!w.is_empty(), "{message}");

    // No conditional store happens on decreasing rows: no race, and the max is x[b, 0].
    let x = decreasing();
    assert_eq!(run(&k, &x).unwrap(), vec![0.0, 0.0]);

    // The witness makes the stores happen: the concrete run races.
    let mut x = x;
    for ((b, j), v) in &w {
        x.data[b * 128 + j] = *v;
    }
    match run(&k, &x) {
        Err(Error::Exec { err, .. }) => assert_eq!(err.kind, ErrorKind::Race, "{err}"),
        other => panic!("the witness does not replay the race: {other:?}"),
    }
}

#[test]
fn conditional_max_tree_is_safe() {
    let k = kernel("ptx/cond_max/tree.ptx");
    let report = race(&k, &k.instance(&sizes()).unwrap()).unwrap();
    assert_eq!(report.safety, Safety::Safe, "{}", report.to_text());
    // The same inputs that make the twin race give the row max here.
    let mut x = decreasing();
    x.data[65] = 3.25;
    x.data[128 + 7] = 9.5;
    assert_eq!(run(&k, &x).unwrap(), vec![3.25, 9.5]);
}

/// `if (x > 0) y[i] = x;` with `y` declared `inout`: an element the branch does not
/// store keeps its input value, so the one-sided store is `select(x > 0, x, y)`, and
/// the symbolic terms agree with a concrete run. (With `y` an `out` tensor the same
/// kernel is UNKNOWN: `relu/one_sided_store.fixture.toml`.)
#[test]
fn one_sided_store_into_an_inout_tensor_keeps_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let launch = dir.path().join("inout.launch.toml");
    std::fs::write(
        &launch,
        "block = [32]\ngrid = [\"cdiv(N, 32)\"]\nsizes = { N = 8 }\n\n[args]\n\
         relu_one_sided_store_param_0 = { tensor = \"x\", shape = [\"N\"], role = \"in\" }\n\
         relu_one_sided_store_param_1 = { tensor = \"y\", shape = [\"N\"], role = \"inout\" }\n\
         relu_one_sided_store_param_2 = \"N\"\n",
    )
    .unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx/relu/one_sided_store.ptx");
    let k = Kernel::load(&path, Some(&launch)).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let x = [1.5, -2.0, 0.0, 0.25, -0.5, 3.0, -1.0, 2.0];
    let y = [7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0];
    let want: Vec<f64> = x
        .iter()
        .zip(&y)
        .map(|(&a, &b)| if a > 0.0 { a } else { b })
        .collect();

    let mut terms = lift::term::Terms::new();
    let spec = k.spec(&inst, &mut terms).unwrap();
    let out = spec.outputs.iter().find(|o| &*o.name == "y").unwrap();
    let input = |t: &str, idx: &[i64]| match t {
        "x" => x[idx[0] as usize],
        _ => y[idx[0] as usize],
    };
    let got: Vec<f64> = out
        .elems
        .iter()
        .map(|e| terms.eval(e.unwrap(), &input, &|_| f64::NAN))
        .collect();
    assert_eq!(got, want);

    let arrays = BTreeMap::from([
        (
            "x".to_string(),
            Array {
                shape: vec![8],
                data: x.to_vec(),
            },
        ),
        (
            "y".to_string(),
            Array {
                shape: vec![8],
                data: y.to_vec(),
            },
        ),
    ]);
    let run = k.run(&inst, &arrays, &BTreeMap::new()).unwrap();
    let concrete = &run.outputs.iter().find(|(n, _)| n == "y").unwrap().1.data;
    assert_eq!(concrete, &want);
}

/// Two threads store `s[0]` with no barrier between them, under complementary
/// conditions (`v > 0` and its negation): never both for one input, so no race; the
/// result is `select(v > 0, v, -v)`.
#[test]
fn stores_under_complementary_conditions_do_not_race() {
    let k = kernel("ptx/cond_max/sign_split.ptx");
    let report = race(&k, &k.instance(&sizes()).unwrap()).unwrap();
    assert_eq!(report.safety, Safety::Safe, "{}", report.to_text());
    let mut x = decreasing();
    x.data[0] = 1.5;
    x.data[128] = -2.25;
    assert_eq!(run(&k, &x).unwrap(), vec![1.5, 2.25]);
}
