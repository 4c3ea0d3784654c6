//! Hand-written formulas for suite ops (what synthesis should find), checked three ways:
//! (a) instantiated at the launch's default sizes they equal the fixture's PyTorch spec at
//! random points (1e-9 relative); (b) insta snapshots of their renderings; (c) the NumPy
//! rendering, run by Python on the fixture's reference inputs, reproduces the reference
//! outputs (skipped with a note when no Python with NumPy is found).

use crate::common;

use lift::formula::{Formula, Output, ShapeEnv, Size};
use lift::launch::{ArgValue, Launch};
use lift::render;
use lift::term::{CmpOp, Terms};
use lift::torch::{self, Env, FloatType};
use std::collections::{BTreeMap, BTreeSet};

fn x() -> Formula {
    Formula::input("x")
}

/// A decimal constant of a spec: the f32 nearest to it (as specs round them).
fn f32c(v: f64) -> Formula {
    Formula::float(v as f32 as f64)
}

fn softmax_rows(s: Formula) -> Formula {
    let m = s.clone().max(1, true);
    let e = (s - m).exp();
    e.clone() / e.sum(1, true)
}

/// The suite ops as formulas, by fixture name.
fn suite() -> Vec<(&'static str, Vec<Output>)> {
    let mx = || x().max(1, true);
    let centered = || x() - x().mean(1, true);
    let var = |keepdim| centered().powi(2).mean(1, keepdim);
    let eps = || Formula::scalar("eps");
    let sigmoid = |a: Formula| Formula::int(1) / (Formula::int(1) + (-a).exp());
    let gelu_c = f32c((2.0 / std::f64::consts::PI).sqrt());
    vec![
        ("softmax", vec![Output::new("y", softmax_rows(x()))]),
        (
            "log_softmax",
            vec![Output::new(
                "y",
                (x() - mx()) - (x() - mx()).exp().sum(1, true).log(),
            )],
        ),
        (
            "layer_norm",
            vec![
                Output::new(
                    "y",
                    centered() * (var(true) + eps()).rsqrt() * Formula::input("w")
                        + Formula::input("b"),
                ),
                Output::new("mean", x().mean(1, false)),
                Output::new("rstd", (var(false) + eps()).rsqrt()),
            ],
        ),
        (
            "rms_norm",
            vec![Output::new(
                "y",
                x() * ((x() * x()).mean(1, true) + eps()).rsqrt() * Formula::input("w"),
            )],
        ),
        (
            "gelu",
            vec![Output::new(
                "y",
                Formula::float(0.5)
                    * x()
                    * (Formula::int(1) + (gelu_c * (x() + f32c(0.044715) * x().powi(3))).tanh()),
            )],
        ),
        ("silu", vec![Output::new("y", x() * sigmoid(x()))]),
        ("sigmoid", vec![Output::new("y", sigmoid(x()))]),
        ("relu", vec![Output::new("y", x().maximum(Formula::int(0)))]),
        (
            "leaky_relu",
            vec![Output::new(
                "y",
                Formula::select(
                    Formula::cmp(CmpOp::Gt, x(), Formula::int(0)),
                    x(),
                    f32c(0.01) * x(),
                ),
            )],
        ),
        (
            "matmul",
            vec![Output::new(
                "c",
                Formula::input("a").matmul(Formula::input("b")),
            )],
        ),
        (
            "attention",
            vec![Output::new(
                "o",
                softmax_rows(
                    Formula::input("q").matmul(Formula::input("k").t()) * Formula::scalar("scale"),
                )
                .matmul(Formula::input("v")),
            )],
        ),
        ("sum", vec![Output::new("y", x().sum(1, false))]),
        (
            "zeros",
            vec![Output::new(
                "y",
                Formula::int(0).broadcast_to(vec![Size::Size("N".into())]),
            )],
        ),
        (
            "cat",
            vec![Output::new(
                "out",
                Formula::cat(vec![Formula::input("a"), Formula::input("b")], 0),
            )],
        ),
        (
            "swiglu",
            vec![Output::new("y", {
                let h = || Size::Size("H".into());
                let gate = x().slice(1, Size::Int(0), Some(h()));
                gate.clone() * sigmoid(gate) * x().slice(1, h(), None)
            })],
        ),
        ("max", vec![Output::new("y", x().max(1, false))]),
    ]
}

fn fixture(name: &str) -> common::Fixture {
    common::fixtures()
        .into_iter()
        .find(|f| f.name() == name)
        .unwrap_or_else(|| panic!("no fixture {name}"))
}

fn launch(f: &common::Fixture) -> Launch {
    Launch::from_file(&f.dir.join("kernel.launch.toml")).unwrap()
}

/// A deterministic pseudo-random value in [-2, 2] for each (name, index).
fn point(seed: u64) -> impl Fn(&str, &[i64]) -> f64 {
    move |name: &str, idx: &[i64]| {
        let mut h = seed ^ 0x9e37_79b9_7f4a_7c15;
        for b in name
            .bytes()
            .map(|b| b as u64)
            .chain(idx.iter().map(|&i| i as u64 + 1000))
        {
            h = (h ^ b).wrapping_mul(0x100_0000_01b3);
            h ^= h >> 29;
        }
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 31;
        (h >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
    }
}

/// The spec's outputs and the formulas' outputs, evaluated at `seeds` random points:
/// the largest relative difference, over every element.
fn compare_with_spec(op: &str, outputs: &[Output], seeds: &[u64]) -> f64 {
    let f = fixture(op);
    let launch = launch(&f);
    let env = ShapeEnv::from_launch(&launch, &BTreeMap::new()).unwrap();
    let inst = launch.instantiate(&BTreeMap::new()).unwrap();
    let values: BTreeMap<String, f64> = inst
        .args
        .iter()
        .filter_map(|(k, v)| match v {
            ArgValue::Value(x) => Some((k.clone(), *x)),
            _ => None,
        })
        .collect();
    let scalars: BTreeSet<String> = env.scalars.clone();
    let spec_env = Env {
        tensors: &env.tensors,
        scalars: &scalars,
        values: &values,
        sizes: &inst.sizes,
        float: FloatType::F32,
    };
    let mut terms = Terms::new();
    let spec = torch::parse(&f.meta.spec)
        .unwrap()
        .instantiate(&mut terms, &spec_env)
        .unwrap();
    let mut worst = 0.0f64;
    for o in outputs {
        let want = spec
            .iter()
            .find(|s| s.name == o.name)
            .unwrap_or_else(|| panic!("{op}: the spec has no output {}", o.name));
        let shape = o.formula.shape(&env).unwrap();
        assert_eq!(shape, want.shape, "{op}: shape of {}", o.name);
        let got = o.formula.instantiate(&mut terms, &env).unwrap();
        assert_eq!(got.len(), want.elems.len());
        for &seed in seeds {
            let input = point(seed);
            let param = |p: &str| 0.5 + (point(seed)(p, &[]) + 2.0) / 4.0;
            for (&g, &w) in got.iter().zip(&want.elems) {
                let (a, b) = (terms.eval(g, &input, &param), terms.eval(w, &input, &param));
                let rel = (a - b).abs() / b.abs().max(1.0);
                worst = worst.max(if rel.is_nan() { f64::INFINITY } else { rel });
            }
        }
    }
    worst
}

#[test]
fn formulas_equal_the_fixture_specs() {
    let suite = suite();
    assert!(suite.len() >= 12);
    for (op, outputs) in &suite {
        let worst = compare_with_spec(op, outputs, &[1, 2, 3]);
        assert!(worst <= 1e-9, "{op}: relative difference {worst:e}");
    }
}

/// The comparison can fail: wrong formulas (another axis, a missing max shift that is
/// still equal, a wrong constant) are told apart from the spec.
#[test]
fn wrong_formulas_differ_from_the_specs() {
    let wrong_axis = Output::new("y", {
        let m = x().max(0, true);
        let e = (x() - m).exp();
        e.clone() / e.sum(0, true)
    });
    assert!(compare_with_spec("softmax", &[wrong_axis], &[1]) > 1e-3);
    // Without the max shift softmax is the same function: equal.
    let unshifted = Output::new("y", x().exp() / x().exp().sum(1, true));
    assert!(compare_with_spec("softmax", &[unshifted], &[1]) <= 1e-9);
    // gelu's constant unrounded (the f64 0.044715 instead of the f32) is a different
    // function, by about 1e-9 relative to the cube term: visible at 1e-12.
    let gelu64 = Output::new(
        "y",
        Formula::float(0.5)
            * x()
            * (Formula::int(1)
                + (f32c((2.0 / std::f64::consts::PI).sqrt())
                    * (x() + Formula::float(0.044715) * x().powi(3)))
                .tanh()),
    );
    let d = compare_with_spec("gelu", &[gelu64], &[1, 2]);
    assert!(d > 1e-12 && d < 1e-6, "{d:e}");
    let leaky_wrong = Output::new(
        "y",
        Formula::select(
            Formula::cmp(CmpOp::Lt, x(), Formula::int(0)),
            x(),
            f32c(0.01) * x(),
        ),
    );
    assert!(compare_with_spec("leaky_relu", &[leaky_wrong], &[1]) > 0.1);
}

fn env_of(op: &str) -> ShapeEnv {
    ShapeEnv::from_launch(&launch(&fixture(op)), &BTreeMap::new()).unwrap()
}

fn renderings(op: &str) -> String {
    let outputs = suite().into_iter().find(|s| s.0 == op).unwrap().1;
    let env = env_of(op);
    format!(
        "== text\n{}== latex\n{}== torch\n{}== numpy\n{}",
        render::text::outputs(&outputs, &env).unwrap(),
        render::latex::outputs(&outputs, &env).unwrap(),
        render::torch::function(&outputs, &env, "kernel").unwrap(),
        render::numpy::function(&outputs, &env, "kernel").unwrap(),
    )
}

#[test]
fn snapshot_softmax() {
    insta::assert_snapshot!(renderings("softmax"));
}

#[test]
fn snapshot_layer_norm() {
    insta::assert_snapshot!(renderings("layer_norm"));
}

#[test]
fn snapshot_gelu() {
    insta::assert_snapshot!(renderings("gelu"));
}

#[test]
fn snapshot_attention() {
    insta::assert_snapshot!(renderings("attention"));
}

#[test]
fn snapshot_json_leaky_relu() {
    let outputs = suite().into_iter().find(|s| s.0 == "leaky_relu").unwrap().1;
    let doc = render::json::outputs(&outputs, &env_of("leaky_relu")).unwrap();
    insta::assert_snapshot!(serde_json::to_string_pretty(&doc).unwrap());
}

/// Every snapshot here is of a formula of `suite()`, which
/// [`numpy_renderings_reproduce_the_references`] runs on the fixture's reference inputs:
/// a witness that does not come from lift's own decider.
#[test]
fn every_formula_snapshot_has_a_numpy_witness() {
    let ops: Vec<&str> = suite().iter().map(|s| s.0).collect();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/snapshots");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(op) = name
            .strip_prefix("it__formula_suite__snapshot_")
            .and_then(|n| n.strip_suffix(".snap"))
        else {
            continue;
        };
        let op = op.strip_prefix("json_").unwrap_or(op);
        assert!(
            ops.contains(&op),
            "{name}: no NumPy witness ({op} is not in suite())"
        );
        seen += 1;
    }
    assert!(seen >= 5, "only {seen} snapshots");
}

#[test]
fn numpy_renderings_reproduce_the_references() {
    let Some(python) = common::require_numpy("numpy_renderings_reproduce_the_references") else {
        return;
    };
    let mut cases = Vec::new();
    for (op, outputs) in suite() {
        let f = fixture(op);
        let launch = launch(&f);
        for inst in &f.meta.instance {
            let env = ShapeEnv::from_launch(&launch, &inst.sizes).unwrap();
            let src = render::numpy::function(&outputs, &env, "kernel").unwrap();
            cases.push(common::NumpyCase::new(&f, inst, &outputs, &env, src));
        }
    }
    let compared = common::run_numpy_cases(&python, &cases).unwrap_or_else(|e| panic!("{e}"));
    assert!(compared > 1000, "only {compared} elements compared");
}

/// The PyTorch renderings are valid Python (PyTorch itself is not installed in CI, so
/// they are parsed, not run; `synth_suite` runs them where it is).
#[test]
fn torch_renderings_are_valid_python() {
    let Some(python) = common::require_python("torch_renderings_are_valid_python") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (op, outputs) in suite() {
        let src = render::torch::function(&outputs, &env_of(op), "kernel").unwrap();
        let p = dir.path().join(format!("t_{op}.py"));
        std::fs::write(&p, src).unwrap();
        paths.push(p.to_string_lossy().into_owned());
    }
    let script = "import ast, sys\nfor p in sys.argv[1:]:\n    ast.parse(open(p).read(), p)\nprint('parsed', len(sys.argv) - 1)\n";
    let out = std::process::Command::new(&python)
        .args(["-c", script])
        .args(&paths)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.trim(), format!("parsed {}", paths.len()));
}
