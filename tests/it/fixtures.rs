//! The fixture runner: one test per fixture folder of `triton_ir/` and `corpus/` (written
//! by `build.rs`), each named after its folder (`cargo test --release softmax_bug`).
//!
//! A fixture folder carries every expectation of its kernel:
//! - `fixture.toml` (from the generator, written by the kernel's author): the spec and the
//!   instance verdict it must get (`expect = "verified" | "refuted" | "error"`);
//! - `expected.toml` (blessed): what lift answers, one line each: the lifted formula of
//!   every output, the all-sizes outcome of that formula, the check's verdict against
//!   the spec and its all-sizes outcome (the constraints the claim needs, or the reason it
//!   stops at the instance).
//!
//! `LIFT_BLESS=1 cargo test --release --test it fixtures::` rewrites every
//! `expected.toml` from lift's answers; review the diff in git. Without it, any
//! difference fails the fixture's test by name: a kernel whose all-sizes proof is lost
//! (`for all N` becoming `UNKNOWN`), whose formula changes, or whose verdict flips.
//! The independent checks stay beside the blessed ones: the check verdict must be the
//! author's `expect` (tests/it/check.rs also runs every instance), and formulas are
//! witnessed by their NumPy renderings on reference data (tests/it/synth_suite.rs).

use lift::check::{self, CheckOptions, Outcome};
use lift::term::Terms;
use lift::Kernel;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/fixture_tests.rs"));

/// What lift answers on a fixture, as `expected.toml` holds it.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Answers {
    /// `lift KERNEL`: one line per output (`y[M,N] = …`, or `y[4,8]: STALLED: …`), or
    /// the error the command ends with.
    lift: Vec<String>,
    /// The lifted formulas' all-sizes outcome (absent when lift gave no formula).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lift_all_sizes: Option<String>,
    /// `lift check --spec SPEC` on the launch instance: the verdict word, or the error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    check: Option<String>,
    /// The spec's all-sizes outcome (absent when the instance is not verified).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    check_all_sizes: Option<String>,
}

#[derive(Deserialize)]
struct FixtureToml {
    #[serde(default)]
    spec: String,
    expect: String,
    /// Size twins: right at the fixture's instances, wrong at other sizes.
    #[serde(default)]
    size_bug: Option<String>,
}

const HEADER: &str = "\
# What lift answers on this fixture (tests/it/fixtures.rs). Rewritten by
# `LIFT_BLESS=1 cargo test --release --test it fixtures::`; review the diff in git:
# a change here is a change in what lift proves.
";

/// Runs lift on the fixture in `rel` (relative to the repository root, which is the
/// working directory of integration tests, so messages carry no machine paths) and
/// compares its answers with `expected.toml`, or rewrites that file under `LIFT_BLESS`.
pub fn run(rel: &str) {
    let dir = Path::new(rel);
    let meta: FixtureToml = toml::from_str(&read(&dir.join("fixture.toml")))
        .unwrap_or_else(|e| panic!("{rel}/fixture.toml: {e}"));
    let answers = answers(&dir.join("kernel.ttir"), &meta.spec);

    // The author's verdict, independent of any blessing. A size twin is right on its
    // instances and wrong elsewhere: never proved for all sizes without a constraint.
    if let Some(bug) = &meta.size_bug {
        // A size bound (`N <= 8`, `N == 8`, `N % 4 == 0`), not only an overflow caveat.
        let unconstrained = |s: &Option<String>| {
            s.as_deref().is_some_and(|s| {
                let with = s.split_once(" with ").map_or("", |(_, w)| w);
                s.starts_with("for all") && !["<", ">", "==", "%"].iter().any(|r| with.contains(r))
            })
        };
        assert!(
            !unconstrained(&answers.check_all_sizes) && !unconstrained(&answers.lift_all_sizes),
            "{rel}: a size twin ({bug}) proved for all sizes without a constraint: {answers:?}"
        );
    } else if !meta.spec.is_empty() && rel.starts_with("triton_ir/") {
        // (Corpus entries: `tests/it/corpus.rs` holds them to `corpus/status.toml`, which
        // records each known gap with its reason, at both instances.)
        let want = match meta.expect.as_str() {
            "verified" => "VERIFIED",
            "refuted" => "REFUTED",
            _ => "error",
        };
        let got = answers.check.as_deref().unwrap_or("");
        assert!(
            got.starts_with(want),
            "{rel}: fixture.toml expects {want}, lift check says {got}"
        );
    }

    let path = dir.join("expected.toml");
    let text = HEADER.to_string() + &toml::to_string(&answers).expect("answers serialise");
    if std::env::var_os("LIFT_BLESS").is_some_and(|v| v != "0") {
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let Ok(blessed) = std::fs::read_to_string(&path) else {
        panic!(
            "{}: missing; run `LIFT_BLESS=1 cargo test --release --test it fixtures::{}` and review it",
            path.display(),
            rel.replace('/', "::")
        );
    };
    let expected: Answers =
        toml::from_str(&blessed).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if expected != answers {
        panic!(
            "{rel}: lift's answers changed (LIFT_BLESS=1 rewrites {} if the change is intended)\n{}",
            path.display(),
            diff(&toml::to_string(&expected).unwrap(), &toml::to_string(&answers).unwrap())
        );
    }
}

fn answers(kernel: &Path, spec: &str) -> Answers {
    let mut out = Answers::default();
    let k = match Kernel::load(kernel, None) {
        Ok(k) => k,
        Err(e) => {
            out.lift = vec![format!("error: {e}")];
            return out;
        }
    };
    let inst = match k.instance(&BTreeMap::new()) {
        Ok(i) => i,
        Err(e) => {
            out.lift = vec![format!("error: {e}")];
            return out;
        }
    };

    let mut terms = Terms::new();
    match lift::synth::lift(&k, &inst, &mut terms) {
        Ok(mut lifted) => {
            out.lift = lifted
                .outputs
                .iter()
                .map(|o| match (&o.formula, &o.undefined) {
                    (Some(f), _) => {
                        let heading = match f.dims(&lifted.env) {
                            Ok(d) => lift::render::heading(&o.name, &d),
                            Err(_) => o.name.clone(),
                        };
                        format!(
                            "{heading} = {}",
                            lift::render::text::expr_in(f, &lifted.env)
                        )
                    }
                    (None, Some(why)) => format!("{}: UNDEFINED: {why}", o.name),
                    (None, None) => format!(
                        "{}: STALLED: {}",
                        o.name,
                        o.stalled.as_deref().unwrap_or("")
                    ),
                })
                .collect();
            if lifted.outputs.iter().all(|o| o.formula.is_some()) {
                lifted.verify_all_sizes(&k, &inst);
                out.lift_all_sizes = lifted.all_sizes.as_ref().map(|o| o.describe());
            }
        }
        Err(e) => out.lift = vec![format!("error: {e}")],
    }

    if !spec.is_empty() {
        let opts = CheckOptions {
            all_sizes: true,
            ..CheckOptions::default()
        };
        match check::check(&k, &inst, spec, &opts) {
            Ok(r) => {
                out.check = Some(
                    match r.outcome {
                        Outcome::Verified => "VERIFIED",
                        Outcome::Refuted => "REFUTED",
                        Outcome::Unknown => "UNKNOWN",
                    }
                    .to_string(),
                );
                out.check_all_sizes = r.all_sizes.as_ref().map(|o| o.describe());
            }
            Err(e) => out.check = Some(format!("error: {e}")),
        }
    }
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of `a` and `b` that differ, as `-`/`+` pairs.
fn diff(a: &str, b: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let mut s = String::new();
    for l in a.iter().filter(|l| !b.contains(l)) {
        s += &format!("- {l}\n");
    }
    for l in b.iter().filter(|l| !a.contains(l)) {
        s += &format!("+ {l}\n");
    }
    s
}

/// Every fixture folder on disk has its test. `build.rs` reruns when a `fixture.toml` it
/// knows changes, not when a folder is added, so a new folder fails here until the next
/// build script run (`touch build.rs`).
#[test]
fn every_folder_is_a_test() {
    let mut on_disk = Vec::new();
    for suite in ["triton_ir", "corpus"] {
        for e in std::fs::read_dir(suite).unwrap_or_else(|e| panic!("{suite}: {e}")) {
            let p = e.unwrap().path();
            if p.join("fixture.toml").is_file() {
                on_disk.push(format!(
                    "{suite}/{}",
                    p.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    on_disk.sort();
    let mut known: Vec<String> = FIXTURES.iter().map(|s| s.to_string()).collect();
    known.sort();
    assert_eq!(
        on_disk, known,
        "fixture folders and generated tests differ: `touch build.rs` and rebuild"
    );
}
