//! Synth over the Triton IR suite: which ops lift to a proved formula, that each
//! formula also holds at the fixture's second instance, snapshots of printed formulas,
//! and that wrong twins do not lift to their correct op's formula.

use crate::common;

use lift::formula::{Output, ShapeEnv};
use lift::synth;
use lift::term::Terms;
use lift::Kernel;
use std::collections::BTreeMap;
use std::path::Path;

/// Ops that must lift at their default instance (and hold at their second instance).
const LIFTED: &[&str] = &[
    "abs",
    "add",
    "attention",
    "attention_naive",
    "cat",
    "cos",
    "div",
    "exp",
    "exp_native",
    "gelu",
    "gelu_mul",
    "gelu_sigmoid",
    "layer_norm",
    "leaky_relu",
    "log",
    "log_softmax",
    "matmul",
    "matmul_tiles",
    "max",
    "mul",
    "neg",
    "reciprocal",
    "relu",
    "rms_norm",
    "rsqrt",
    "sigmoid",
    "silu",
    "silu_mul",
    "sin",
    "softmax",
    "softmax_nomax",
    "softmax_looped",
    "softmax_online",
    "square_relu",
    "sub",
    "sum",
    "sum_tree",
    "swiglu",
    "tanh",
    "zeros",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(op: &str) -> toml::Value {
    let text = std::fs::read_to_string(root().join("triton_ir").join(op).join("fixture.toml"))
        .expect("fixture.toml");
    text.parse().expect("fixture parses")
}

fn instance_sizes(op: &str, k: usize) -> Option<BTreeMap<String, i64>> {
    let f = fixture(op);
    let inst = f.get("instance")?.as_array()?.get(k)?;
    let sizes = inst.get("sizes")?.as_table()?;
    Some(
        sizes
            .iter()
            .map(|(n, v)| (n.clone(), v.as_integer().expect("integer size")))
            .collect(),
    )
}

/// The lifted text of every output (`None` when some output stalls).
fn lift_op(op: &str) -> Option<(Kernel, Vec<(String, lift::formula::Formula)>, String)> {
    let k = Kernel::load(&root().join("triton_ir").join(op).join("kernel.ttir"), None).ok()?;
    let inst = k.instance(&BTreeMap::new()).ok()?;
    let mut terms = Terms::new();
    let l = synth::lift(&k, &inst, &mut terms).ok()?;
    if l.exit_code() != 0 {
        return None;
    }
    // The verdict line's timings vary from run to run: cut them for snapshots.
    let text: String = l
        .to_text(&terms)
        .lines()
        .map(|line| match line.split_once(" in ") {
            Some((head, _)) if line.starts_with("VERIFIED") => format!("{head}\n"),
            _ => format!("{line}\n"),
        })
        .collect();
    let fs = l
        .outputs
        .into_iter()
        .map(|o| (o.name, o.formula.expect("lifted")))
        .collect();
    Some((k, fs, text))
}

#[test]
fn listed_ops_lift_and_hold_at_the_second_instance() {
    for op in LIFTED {
        let (k, fs, _) = lift_op(op).unwrap_or_else(|| panic!("{op} does not lift"));
        let sizes = instance_sizes(op, 1).unwrap_or_else(|| panic!("{op}: no second instance"));
        let inst = k.instance(&sizes).unwrap();
        let mut terms = Terms::new();
        let spec = k.spec(&inst, &mut terms).unwrap();
        let env = ShapeEnv::from_launch(&k.launch, &inst.sizes).unwrap();
        for (name, f) in &fs {
            let t = spec.outputs.iter().find(|t| &t.name == name).unwrap();
            let elems: Vec<_> = t.elems.iter().map(|e| e.expect("written")).collect();
            synth::prove(&mut terms, &env, f, &t.shape, &elems)
                .unwrap_or_else(|e| panic!("{op}: {name} at {sizes:?}: {e}"));
        }
    }
}

#[test]
fn suite_lift_count() {
    let mut lifted = Vec::new();
    let mut total = 0;
    for entry in std::fs::read_dir(root().join("triton_ir")).unwrap() {
        let dir = entry.unwrap().path();
        if !dir.join("fixture.toml").exists() || !dir.join("kernel.ttir").exists() {
            continue;
        }
        let op = dir.file_name().unwrap().to_str().unwrap().to_string();
        if fixture(&op).get("expect").and_then(|e| e.as_str()) != Some("verified") {
            continue;
        }
        total += 1;
        if lift_op(&op).is_some() {
            lifted.push(op);
        }
    }
    lifted.sort();
    eprintln!("lifted {}/{} verified ops: {lifted:?}", lifted.len(), total);
    for op in LIFTED {
        assert!(lifted.iter().any(|l| l == op), "{op} should lift");
    }
    assert!(lifted.len() >= LIFTED.len());
}

#[test]
fn snapshots_of_lifted_formulas() {
    for op in LIFTED {
        let (_, _, text) = lift_op(op).unwrap();
        insta::assert_snapshot!(format!("synth_{op}"), text);
    }
}

/// Every snapshot of a lifted formula has a witness that does not come from lift's own
/// decider: its op is in `LIFTED`, so [`numpy_renderings_of_lifted_formulas_reproduce_the_references`]
/// runs its NumPy rendering on the fixture's reference inputs (a snapshot left behind by
/// an op taken out of `LIFTED` fails here).
#[test]
fn every_formula_snapshot_has_a_numpy_witness() {
    let mut seen = 0;
    for entry in std::fs::read_dir(root().join("tests/it/snapshots")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(op) = name
            .strip_prefix("it__synth_suite__synth_")
            .and_then(|n| n.strip_suffix(".snap"))
        else {
            continue;
        };
        // The PyTorch renderings of the same formulas, witnessed by the same NumPy run
        // (and by PyTorch in the opt-in test).
        if op == "torch_renderings" {
            continue;
        }
        assert!(
            LIFTED.contains(&op),
            "{name}: no NumPy witness ({op} is not in LIFTED)"
        );
        seen += 1;
    }
    assert_eq!(seen, LIFTED.len());
}

#[test]
fn wrong_twins_lift_to_other_formulas() {
    for (good, bad) in [
        ("softmax", "softmax_bug"),
        ("silu", "silu_bug"),
        ("gelu", "gelu_bug"),
        ("leaky_relu", "leaky_relu_bug"),
        ("log_softmax", "log_softmax_bug"),
        ("swiglu", "swiglu_bug"),
        ("layer_norm", "layer_norm_bug"),
        ("rms_norm", "rms_norm_bug"),
        ("attention_naive", "attention_bug"),
        ("attention", "attention_bug"),
        ("softmax_online", "softmax_online_bug"),
        ("sum", "sum_bug"),
        ("matmul", "matmul_bug"),
    ] {
        let Some((_, _, g)) = lift_op(good) else {
            // The good op does not lift (yet): nothing to confuse the twin with.
            continue;
        };
        if let Some((_, _, b)) = lift_op(bad) {
            assert_ne!(g, b, "{bad} lifts to the formula of {good}");
        }
    }
}

type Render = fn(&[Output], &ShapeEnv, &str) -> Result<String, lift::formula::FormulaError>;

/// Every lifted op's formulas rendered once (at the default sizes) as a Python module
/// defining `kernel`, and one case per fixture instance to run it on.
fn python_cases(render: Render) -> (Vec<(&'static str, String)>, Vec<common::NumpyCase>) {
    let (mut sources, mut cases) = (Vec::new(), Vec::new());
    for op in LIFTED {
        let (k, fs, _) = lift_op(op).unwrap_or_else(|| panic!("{op} does not lift"));
        let inst = k.instance(&BTreeMap::new()).unwrap();
        let env = ShapeEnv::from_launch(&k.launch, &inst.sizes).unwrap();
        let outputs: Vec<Output> = fs.iter().map(|(n, f)| Output::new(n, f.clone())).collect();
        let src = render(&outputs, &env, "kernel").unwrap();
        let fixture = common::fixtures()
            .into_iter()
            .find(|f| f.name() == *op)
            .unwrap();
        for i in &fixture.meta.instance {
            cases.push(common::NumpyCase::new(
                &fixture,
                i,
                &outputs,
                &env,
                src.clone(),
            ));
        }
        sources.push((*op, src));
    }
    (sources, cases)
}

/// The NumPy rendering of every lifted formula (rendered once, at the default sizes),
/// run by Python on both instances' reference inputs, reproduces the reference outputs:
/// the formula is right, size-generic, and its rendering means what it prints.
#[test]
fn numpy_renderings_of_lifted_formulas_reproduce_the_references() {
    let Some(python) =
        common::require_numpy("numpy_renderings_of_lifted_formulas_reproduce_the_references")
    else {
        return;
    };
    let (_, cases) = python_cases(lift::render::numpy::function);
    let compared = common::run_numpy_cases(&python, &cases).unwrap_or_else(|e| panic!("{e}"));
    assert!(compared > 1000, "only {compared} elements compared");
}

/// The PyTorch rendering of every lifted formula, pinned by one snapshot and parsed by
/// Python (run by PyTorch in [`torch_renderings_of_lifted_formulas_reproduce_the_references`]).
#[test]
fn torch_renderings_of_lifted_formulas() {
    let (sources, _) = python_cases(lift::render::torch::function);
    let all: String = sources
        .iter()
        .map(|(op, src)| format!("# ---- {op}\n{src}\n"))
        .collect();
    insta::assert_snapshot!("synth_torch_renderings", all);
    let Some(python) = common::require_python("torch_renderings_of_lifted_formulas") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("all.py");
    std::fs::write(&path, &all).unwrap();
    let out = std::process::Command::new(&python)
        .args(["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The PyTorch rendering of every lifted formula, run by PyTorch on both instances'
/// reference inputs. Opt-in, as CI does not install PyTorch (its wheel is gigabytes):
/// `LIFT_PYTHON=/path/to/python cargo test --release --test synth_suite -- --ignored`;
/// run that way it fails when no Python with PyTorch is found.
#[test]
#[ignore = "needs PyTorch, which CI does not install: run with --ignored (LIFT_PYTHON picks the Python)"]
fn torch_renderings_of_lifted_formulas_reproduce_the_references() {
    let (_, cases) = python_cases(lift::render::torch::function);
    let python = common::python_with_torch()
        .expect("no Python with PyTorch and NumPy found: set LIFT_PYTHON to one");
    let n = common::run_torch_cases(&python, &cases).unwrap_or_else(|e| panic!("{e}"));
    assert!(n > 1000, "only {n} elements compared");
}

#[test]
fn synthesis_stops_at_its_work_limit() {
    let k = Kernel::load(&root().join("triton_ir/softmax/kernel.ttir"), None).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let mut terms = Terms::new();
    let opts = synth::Options {
        steps: 0,
        ..Default::default()
    };
    let l = synth::lift_with(&k, &inst, &mut terms, &opts).unwrap();
    assert_eq!(l.exit_code(), 3);
    let why = l.outputs[0].stalled.as_deref().unwrap();
    assert!(why.contains("work limit"), "{why}");
    assert!(why.contains("x[0,0]"), "{why}");
}

#[test]
fn sums_scaled_by_one_over_their_extent_read_as_means() {
    use lift::formula::Formula;
    let env = ShapeEnv::new().tensor("x", &[4, 8]);
    let x = || Formula::input("x");
    let mean = x().mean(1, false);
    assert_eq!(
        synth::meanify(Formula::ratio(1, 8) * x().sum(1, false), &env),
        mean
    );
    assert_eq!(
        synth::meanify(x().sum(1, false) * Formula::ratio(1, 8), &env),
        mean
    );
    assert_eq!(
        synth::meanify(x().sum(1, false) / Formula::int(8), &env),
        mean
    );
    assert_eq!(
        synth::meanify(Formula::ratio(-1, 8) * x().sum(1, true), &env),
        -x().mean(1, true)
    );
    // Over axis 0 the extent is 4: 1/8 stays a constant factor.
    let other = Formula::ratio(1, 8) * x().sum(0, false);
    assert_eq!(synth::meanify(other.clone(), &env), other);
    // Nested: the variance of layer_norm.
    let centered = x() - Formula::ratio(1, 8) * x().sum(1, true);
    let var = Formula::ratio(1, 8) * centered.powi(2).sum(1, false);
    assert_eq!(
        lift::render::text::expr(&synth::tidy(synth::meanify(var, &env))),
        "mean((x - mean(x, axis=1))^2, axis=1)"
    );
    // A power of a sum scaled by the extent's power (`E[x]²` as `sum(x)² / 64`, group
    // norm's variance with `1/H` folded); any other scale stays.
    assert_eq!(
        synth::meanify(Formula::ratio(-1, 64) * x().sum(1, false).powi(2), &env),
        -x().mean(1, false).powi(2)
    );
    assert_eq!(
        synth::meanify(x().sum(1, false).powi(3) * Formula::ratio(1, 512), &env),
        x().mean(1, false).powi(3)
    );
    let other = Formula::ratio(1, 8) * x().sum(1, false).powi(2);
    assert_eq!(synth::meanify(other.clone(), &env), other);
}

/// Wrong twins that lift show their bug in the formula.
#[test]
fn wrong_twins_show_their_bug() {
    for (bad, shows) in [
        // sum instead of mean: a reduction beside `eps` in one flattened `+`.
        ("rms_norm_bug", "x * rsqrt(sum(x^2, axis=1) + eps) * w"),
        // the scores not scaled.
        (
            "attention_bug",
            "(exp(q @ k.T - max(q @ k.T, axis=1)) @ v) / sum(exp(q @ k.T - max(q @ k.T, axis=1)), axis=1)",
        ),
        // the variance divided by N - 1 at N = 8.
        (
            "layer_norm_bug",
            "rsqrt(1/7 * sum((x - mean(x, axis=1))^2, axis=1) + eps)",
        ),
        // the gate taken from the wrong half.
        ("swiglu_bug", "exp(-x[:, H:])"),
    ] {
        let (_, _, text) = lift_op(bad).unwrap_or_else(|| panic!("{bad} does not lift"));
        assert!(text.contains(shows), "{bad}:\n{text}");
    }
}

/// Triton's PTX for a kernel lifts to the same formula as its Triton IR: the PTX
/// executor, libm recognition (log, sin, cos, tanh, erf) and the `exp2(log2(e)·a)`
/// reading all land on the textbook form. Matmul and attention included: their PTX
/// loads tiles with `cp.async` and reads them with `ldmatrix`.
#[test]
fn triton_ptx_lifts_to_the_ttir_formula() {
    let must = ["matmul", "matmul_tiles", "attention", "attention_naive"];
    assert!(must.iter().all(|op| LIFTED.contains(op)));
    let formulas = |path: &Path| -> Vec<String> {
        let k = Kernel::load(path, None).unwrap();
        let inst = k.instance(&BTreeMap::new()).unwrap();
        let mut terms = Terms::new();
        let l = synth::lift(&k, &inst, &mut terms).unwrap();
        l.outputs
            .iter()
            .map(|o| match &o.formula {
                Some(f) => format!("{} = {}", o.name, lift::render::text::expr(f)),
                None => format!("{}: stalled", o.name),
            })
            .collect()
    };
    let mut compared = 0;
    for op in LIFTED {
        let dir = root().join("triton_ir").join(op);
        let ptx = formulas(&dir.join("kernel.ptx"));
        let ttir = formulas(&dir.join("kernel.ttir"));
        assert_eq!(ptx, ttir, "{op}: PTX and TTIR lift differently");
        compared += 1;
    }
    assert!(compared >= 30, "{compared}");
}

/// With one row every element shares the row's max and sum, and axis 0 has extent 1:
/// the formula still reduces within the row (a reduction of the transposed input over
/// axis 0, right on that instance alone, was found before), both for the short online
/// softmax (top-down) and for a long one (normalised first, 16 rescaling steps).
#[test]
fn one_row_reduces_along_the_row() {
    for n in [8, 64] {
        let k = Kernel::load(&root().join("triton_ir/softmax_online/kernel.ttir"), None).unwrap();
        let sizes: BTreeMap<String, i64> = [("M".to_string(), 1), ("N".to_string(), n)].into();
        let inst = k.instance(&sizes).unwrap();
        let mut terms = Terms::new();
        let l = synth::lift(&k, &inst, &mut terms).unwrap();
        let f = l.outputs[0].formula.as_ref().expect("lifted");
        assert_eq!(
            lift::render::text::expr(f),
            "exp(x - max(x, axis=1)) / sum(exp(x - max(x, axis=1)), axis=1)",
            "N = {n}"
        );
    }
}
