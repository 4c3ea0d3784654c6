//! The development corpus under `corpus/`: other people's Triton kernels (liger-kernel,
//! unsloth, from PyPI; see corpus/generate.py), each with a launch, a PyTorch spec as the
//! library's tests state it, and NumPy reference data. For every correct entry this
//! measures three things, on both of its instances:
//!
//! * run: `lift run` reproduces the NumPy reference outputs;
//! * check: `lift check --spec` is VERIFIED on the instance;
//! * lift: `lift` proves a formula for every output, and its NumPy rendering (run by
//!   Python on the reference inputs) reproduces the reference outputs.
//!
//! `corpus/status.toml` commits what each entry achieves (with the reason where it falls
//! short); an entry doing worse than that fails the test, so do pass rates below it.
//! Every bug twin must be refuted with a counterexample that replays through `lift run`.

use crate::common;

use common::{first_mismatch, Fixture, FixtureToml, InstanceToml};
use lift::check::{self, CheckOptions, Outcome};
use lift::formula::{Output, ShapeEnv};
use lift::term::Terms;
use lift::{synth, Kernel};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const RTOL: f64 = 1e-5;
const ATOL: f64 = 1e-6;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// Every `corpus/<entry>/fixture.toml`, sorted by name; panics when there are none.
fn entries() -> Vec<Fixture> {
    let mut out = Vec::new();
    let rd = std::fs::read_dir(corpus_dir()).expect("corpus/ exists");
    for e in rd {
        let dir = e.unwrap().path();
        let path = dir.join("fixture.toml");
        if !path.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let meta: FixtureToml =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        out.push(Fixture { dir, meta });
    }
    out.sort_by_key(|f| f.name());
    assert!(
        !out.is_empty(),
        "no entries under {}",
        corpus_dir().display()
    );
    out
}

/// What an entry is committed to achieve (corpus/status.toml).
#[derive(Debug, Deserialize, Default, Clone)]
struct Status {
    #[serde(default)]
    run: bool,
    #[serde(default)]
    check: bool,
    #[serde(default)]
    lift: bool,
    #[serde(default)]
    refuted: bool,
    /// Why the entry falls short (required when one of the above is false).
    #[serde(default)]
    reason: Option<String>,
}

fn statuses() -> BTreeMap<String, Status> {
    let text = std::fs::read_to_string(corpus_dir().join("status.toml"))
        .expect("corpus/status.toml exists");
    toml::from_str(&text).expect("corpus/status.toml parses")
}

fn load(f: &Fixture) -> Kernel {
    Kernel::load(&f.kernel(), None).unwrap_or_else(|e| panic!("{}: {e}", f.name()))
}

/// `lift run` on the instance's reference inputs against the reference outputs.
fn run_matches(f: &Fixture, inst: &InstanceToml) -> Result<(), String> {
    let k = load(f);
    let inputs = f.inputs(inst);
    let i = k.instance(&inst.sizes).map_err(|e| e.to_string())?;
    let run = k
        .run(&i, &inputs, &inst.scalars)
        .map_err(|e| e.to_string())?;
    let outputs: BTreeMap<_, _> = run.outputs.into_iter().collect();
    for (name, want) in f.expected(inst) {
        let got = outputs.get(&name).ok_or(format!("no output {name}"))?;
        if let Some(m) = first_mismatch(got, &want, RTOL, ATOL) {
            return Err(format!("{name}: {m}"));
        }
    }
    Ok(())
}

fn check_instance(
    f: &Fixture,
    inst: &InstanceToml,
    reference_inputs: bool,
) -> Result<check::Report, String> {
    let k = load(f);
    let i = k.instance(&inst.sizes).map_err(|e| e.to_string())?;
    let mut opts = CheckOptions::default();
    if reference_inputs {
        opts.inputs = f.inputs(inst);
        opts.scalars = inst.scalars.clone();
    }
    check::check(&k, &i, &f.meta.spec, &opts).map_err(|e| e.to_string())
}

/// `lift` at the launch's instance, then the NumPy rendering on both instances' data.
fn lift_reproduces(f: &Fixture, python: Option<&Path>) -> Result<(), String> {
    let k = load(f);
    let inst = k.instance(&BTreeMap::new()).map_err(|e| e.to_string())?;
    let mut terms = Terms::new();
    let l = synth::lift(&k, &inst, &mut terms).map_err(|e| e.to_string())?;
    let mut outputs = Vec::new();
    for o in &l.outputs {
        match &o.formula {
            Some(fm) => outputs.push(Output::new(&o.name, fm.clone())),
            None => {
                return Err(format!(
                    "{}: {}",
                    o.name,
                    o.stalled
                        .clone()
                        .or(o.undefined.clone())
                        .unwrap_or_default()
                ))
            }
        }
    }
    let Some(python) = python else {
        return Ok(()); // reported by require_numpy (a failure in CI)
    };
    let env = ShapeEnv::from_launch(&k.launch, &inst.sizes).map_err(|e| e.to_string())?;
    let src = lift::render::numpy::function(&outputs, &env, "kernel").map_err(|e| e.to_string())?;
    let cases: Vec<_> = f
        .meta
        .instance
        .iter()
        .map(|i| common::NumpyCase::new(f, i, &outputs, &env, src.clone()))
        .collect();
    common::run_numpy_cases(python, &cases).map(|_| ())
}

/// The verdict line of a report (its last).
fn verdict(s: &str) -> String {
    s.lines().last().unwrap_or("").chars().take(300).collect()
}

#[test]
fn corpus_entries_meet_their_committed_status() {
    let status = statuses();
    let python = common::require_numpy("corpus_entries_meet_their_committed_status");
    let fixtures = entries();
    let correct: Vec<_> = fixtures
        .iter()
        .filter(|f| f.meta.expect == "verified")
        .collect();
    assert!(
        correct.len() >= 30,
        "only {} correct entries",
        correct.len()
    );
    let (mut runs, mut checks, mut lifts) = (0, 0, 0);
    let mut regressions = Vec::new();
    let mut table = Vec::new();
    for f in &correct {
        let want = status.get(&f.name()).cloned().unwrap_or_else(|| {
            panic!("{}: no entry in corpus/status.toml", f.name());
        });
        assert!(
            (want.run && want.check && want.lift) || want.reason.is_some(),
            "{}: status.toml lists a failure without a reason",
            f.name()
        );
        let run: Result<(), String> = f
            .meta
            .instance
            .iter()
            .try_for_each(|i| run_matches(f, i).map_err(|e| format!("{}: {e}", i.name)));
        let check: Result<(), String> = f.meta.instance.iter().try_for_each(|i| {
            let r = check_instance(f, i, false).map_err(|e| format!("{}: {e}", i.name))?;
            if r.outcome == Outcome::Verified {
                Ok(())
            } else {
                Err(format!("{}: {}", i.name, verdict(&r.to_text())))
            }
        });
        let lifted = lift_reproduces(f, python.as_deref());
        runs += usize::from(run.is_ok());
        checks += usize::from(check.is_ok());
        lifts += usize::from(lifted.is_ok());
        for (what, got, committed) in [
            ("run", &run, want.run),
            ("check", &check, want.check),
            ("lift", &lifted, want.lift),
        ] {
            match got {
                Err(e) if committed => regressions.push(format!("{}: {what}: {e}", f.name())),
                Ok(()) if !committed => eprintln!(
                    "{}: {what} now passes; corpus/status.toml can say so",
                    f.name()
                ),
                _ => {}
            }
        }
        let mark = |r: &Result<(), String>| if r.is_ok() { "ok" } else { "FAIL" };
        table.push(format!(
            "| {} | {} | {} | {} |",
            f.name(),
            mark(&run),
            mark(&check),
            mark(&lifted)
        ));
    }
    let n = correct.len();
    let pct = |k: usize| 100.0 * k as f64 / n as f64;
    eprintln!(
        "corpus: {n} correct entries; run {runs}/{n} ({:.1}%), check {checks}/{n} ({:.1}%), lift {lifts}/{n} ({:.1}%)\n{}",
        pct(runs),
        pct(checks),
        pct(lifts),
        table.join("\n")
    );
    assert!(
        regressions.is_empty(),
        "{} entries below their committed status:\n{}",
        regressions.len(),
        regressions.join("\n")
    );
    // The committed floor: the rates status.toml promises.
    let promised =
        |k: fn(&Status) -> bool| correct.iter().filter(|f| k(&status[&f.name()])).count();
    assert!(runs >= promised(|s| s.run));
    assert!(checks >= promised(|s| s.check));
    assert!(lifts >= promised(|s| s.lift));
}

/// Every bug twin is refuted on some instance, and its counterexample replays: `lift run`
/// on the counterexample's inputs gives the kernel value it names; at the reference
/// inputs the spec value is NumPy's.
#[test]
fn corpus_bug_twins_are_refuted_with_counterexamples_that_replay() {
    let status = statuses();
    let twins: Vec<_> = entries()
        .into_iter()
        .filter(|f| f.meta.expect == "refuted")
        .collect();
    assert!(twins.len() >= 8, "only {} bug twins", twins.len());
    for f in &twins {
        assert!(
            status.get(&f.name()).is_some_and(|s| s.refuted),
            "{}: corpus/status.toml must list it with refuted = true",
            f.name()
        );
        let mut replayed = false;
        for inst in &f.meta.instance {
            let r = check_instance(f, inst, true)
                .unwrap_or_else(|e| panic!("{}/{}: {e}", f.name(), inst.name));
            // A twin may be right at an instance its bug does not reach (a fill of masked
            // lanes at a full block); where `lift run` differs from NumPy it must not verify.
            if r.outcome == Outcome::Verified {
                assert!(
                    run_matches(f, inst).is_ok(),
                    "{}/{}: bug twin verified where it differs from the NumPy reference!\n{}",
                    f.name(),
                    inst.name,
                    r.to_text()
                );
                continue;
            }
            let Some(cx) = &r.counterexample else {
                continue;
            };
            assert_eq!(r.outcome, Outcome::Refuted, "{}", f.name());
            let (Some(kernel_value), Some(spec_value)) = (cx.left, cx.right) else {
                continue;
            };
            let k = load(f);
            let i = k.instance(&inst.sizes).unwrap();
            let given = f.inputs(inst);
            let (arrays, scalars) = r.counterexample_inputs(&i, &given);
            let arrays: BTreeMap<_, _> = arrays.into_iter().collect();
            let run = k.run(&i, &arrays, &scalars).unwrap();
            let out = &run.outputs.iter().find(|(n, _)| n == &cx.tensor).unwrap().1;
            let flat = cx
                .index
                .iter()
                .zip(&out.shape)
                .fold(0, |acc, (&x, &d)| acc * d + x);
            let got = out.data[flat];
            // `a == b` first: the same infinity is close, and its difference is NaN
            let close = |a: f64, b: f64| a == b || (a - b).abs() <= 1e-6 * (1.0 + b.abs());
            assert!(
                (got.is_nan() && kernel_value.is_nan()) || close(got, kernel_value),
                "{}/{}: lift run gives {got}, the counterexample says {kernel_value}",
                f.name(),
                inst.name
            );
            let same_inputs = scalars.iter().all(|(n, v)| inst.scalars.get(n) == Some(v))
                && arrays
                    .iter()
                    .all(|(n, a)| given.get(n).is_some_and(|g| g.data == a.data));
            if same_inputs {
                let want = f.expected(inst)[&cx.tensor].data[flat];
                assert!(
                    close(spec_value, want),
                    "{}/{}: spec value {spec_value}, NumPy reference {want}",
                    f.name(),
                    inst.name
                );
            }
            replayed = true;
        }
        assert!(
            replayed,
            "{}: no instance refuted with a replayable counterexample",
            f.name()
        );
    }
}

/// liger's TVD with reduction='sum' stores an ignored row's loss on one side of the
/// branch on its label only. Declared `inout` (the wrapper zero-fills it) the row keeps
/// its initial value and the spec is proved; declared `out`, the element would be
/// written under a condition, which lift reports as unsupported rather than guess.
#[test]
fn a_one_sided_write_under_a_branch_on_the_data_is_unsupported_for_out_tensors() {
    let dir = corpus_dir().join("liger_tvd_sum_labels");
    let launch = std::fs::read_to_string(dir.join("kernel.launch.toml")).unwrap();
    let as_out = launch.replace(
        r#"loss_ptr = { tensor = "loss", shape = ["M"], role = "inout" }"#,
        r#"loss_ptr = { tensor = "loss", shape = ["M"], role = "out" }"#,
    );
    assert_ne!(launch, as_out, "the launch declares loss inout");
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("out.launch.toml");
    std::fs::write(&path, as_out).unwrap();
    let k = Kernel::load(&dir.join("kernel.ttir"), Some(&path)).unwrap();
    let i = k.instance(&BTreeMap::new()).unwrap();
    let spec = "_keep = label != -100; loss = torch.where(_keep, scale * torch.sum(0.5 * torch.abs(p - q), dim=-1), 0.0); \
                grads = torch.where(_keep.unsqueeze(1), 0.5 * scale * torch.sign(p - q), 0.0)";
    let msg = match check::check(&k, &i, spec, &CheckOptions::default()) {
        Err(e) => e.to_string(),
        Ok(r) => {
            assert_ne!(r.outcome, Outcome::Verified, "{}", r.to_text());
            r.to_text()
        }
    };
    assert!(
        msg.contains("written on one side of a branch on the data"),
        "{msg}"
    );
}
