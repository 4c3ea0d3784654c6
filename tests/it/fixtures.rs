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
//! The independent checks stay beside the blessed ones, the author's rules, which no
//! blessing can change (`author_rules`): the check verdict must be the author's `expect`;
//! a correct kernel is never refuted for all sizes, a loop-free one is proved, and a proof
//! for all sizes agrees with the bounded check against the fixture's spec at seeded random
//! larger and ragged sizes; a size twin is never proved for all sizes without a bound its
//! bug sizes break, and its witness replays. Formulas are witnessed by their NumPy
//! renderings on reference data (tests/it/synth_suite.rs).

use crate::common;
use lift::check::{self, CheckOptions, Outcome};
use lift::term::Terms;
use lift::verify::{self, Scope};
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
    /// Size twins: sizes at which the bug shows.
    #[serde(default)]
    bug_sizes: Option<BTreeMap<String, i64>>,
}

/// Loop-free correct kernels the all-sizes step does not prove yet, and why.
const KNOWN_GAPS: &[(&str, &str)] = &[];

/// Size twins correct exactly under a bound that their bug sizes break, so a proof under
/// that bound is right (each fixture's `size_bug` says which): `matmul_k1` counts its
/// peeled first K tile twice once the loop runs (right for K <= 16), `softmax_stride`
/// steps rows by the block (N == 8 or M == 1), `layer_norm_nomask` lets the padded lanes
/// into the variance (N == 8), `sum_split_store` stores each column tile's partial with
/// a plain store (N <= 8), `softmax_online_mixed` rescales in base 2 but sums `exp`
/// (N <= 4), `softmax_online_norescale` drops the rescale (N <= 4), `block_sum_cap`
/// reads nothing past element 16 (4 P <= 16).
const PROVED_UNDER_A_BOUND: &[&str] = &[
    "triton_ir/block_sum_cap",
    "triton_ir/softmax_online_norescale",
    "triton_ir/matmul_k1",
    "triton_ir/softmax_stride",
    "triton_ir/layer_norm_nomask",
    "triton_ir/sum_split_store",
    "triton_ir/softmax_online_mixed",
];

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
    let (answers, lifted) = answers(&dir.join("kernel.ttir"), &meta.spec);
    author_rules(rel, &meta, &answers, lifted.as_ref());

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

/// The kernel and its lifted formulas' all-sizes outcome, for the author's rules.
struct Lifted {
    kernel: Kernel,
    all_sizes: Option<verify::Outcome>,
    /// The check's outcome against the spec, and its all-sizes outcome.
    check: Option<(Outcome, Option<verify::Outcome>)>,
    /// The check report's verdict line (its last line of text).
    check_line: String,
}

fn answers(kernel: &Path, spec: &str) -> (Answers, Option<Lifted>) {
    let mut out = Answers::default();
    let k = match Kernel::load(kernel, None) {
        Ok(k) => k,
        Err(e) => {
            out.lift = vec![format!("error: {e}")];
            return (out, None);
        }
    };
    let inst = match k.instance(&BTreeMap::new()) {
        Ok(i) => i,
        Err(e) => {
            out.lift = vec![format!("error: {e}")];
            return (out, None);
        }
    };
    let mut lift_all_sizes = None;
    let mut check_outcome = None;
    let mut check_line = String::new();

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
                lift_all_sizes = lifted.all_sizes;
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
                check_line = r.to_text().lines().last().unwrap_or("").to_string();
                check_outcome = Some((r.outcome, r.all_sizes));
            }
            Err(e) => out.check = Some(format!("error: {e}")),
        }
    }
    let lifted = Lifted {
        kernel: k,
        all_sizes: lift_all_sizes,
        check: check_outcome,
        check_line,
    };
    (out, Some(lifted))
}

/// The rules a fixture's author states in `fixture.toml` (its `expect`, its `size_bug`),
/// which hold whatever `expected.toml` says. Corpus entries are held to
/// `corpus/status.toml` by tests/it/corpus.rs, which records each known gap with its reason.
fn author_rules(rel: &str, meta: &FixtureToml, answers: &Answers, lifted: Option<&Lifted>) {
    if !rel.starts_with("triton_ir/") {
        return;
    }
    let scope = lifted.and_then(|l| l.all_sizes.as_ref()).map(|o| &o.scope);
    if let Some(bug) = &meta.size_bug {
        size_twin_rules(rel, meta, bug, answers, lifted);
        return;
    }
    if !meta.spec.is_empty() {
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
    if meta.expect != "verified" {
        return;
    }
    // A correct kernel: never refuted for all sizes; its spec proved for all sizes (the
    // formula lift synthesised and the spec its author wrote are two independent
    // descriptions of one function, so both proofs need the same constraints); its
    // lifted formula proved when it has no loop.
    let gap = KNOWN_GAPS.iter().find(|(n, _)| rel.ends_with(n));
    let checked = lifted
        .and_then(|l| l.check.as_ref())
        .and_then(|(_, o)| o.as_ref());
    if !meta.spec.is_empty() && gap.is_none() {
        let o = checked.unwrap_or_else(|| panic!("{rel}: no all-sizes check: {answers:?}"));
        let Scope::AllSizes {
            constraints,
            bounds,
            fixed,
            ..
        } = &o.scope
        else {
            panic!(
                "{rel}: the spec is not proved for all sizes: {}",
                o.describe()
            )
        };
        let lifted = lifted.expect("an outcome comes with its kernel");
        assert!(
            lifted.check_line.starts_with("VERIFIED for all"),
            "{rel}: the report's verdict line says {}",
            lifted.check_line
        );
        if let Some(Scope::AllSizes {
            constraints: from_lift,
            ..
        }) = scope
        {
            assert_eq!(
                constraints, from_lift,
                "{rel}: lift and check need other constraints"
            );
        }
        agrees_at_random_sizes(rel, meta, &lifted.kernel, bounds, fixed);
    }
    match scope {
        Some(Scope::Refuted { sizes, reason }) => {
            panic!("{rel}: a correct kernel refuted at {sizes:?}: {reason}")
        }
        Some(Scope::AllSizes { bounds, fixed, .. }) => {
            if checked.is_none() {
                let lifted = lifted.expect("an outcome comes with its kernel");
                agrees_at_random_sizes(rel, meta, &lifted.kernel, bounds, fixed);
            }
        }
        Some(Scope::Unknown { reason }) => assert!(
            common::has_loop(&Path::new(rel).join("kernel.ttir")) || gap.is_some(),
            "{rel}: loop-free but not proved for all sizes: {reason}"
        ),
        None => assert!(
            common::has_loop(&Path::new(rel).join("kernel.ttir")) || gap.is_some(),
            "{rel}: loop-free but lifted to no formula for all sizes: {:?}",
            answers.lift
        ),
    }
}

/// A size twin is right at its instances and wrong elsewhere: never proved for all sizes
/// unless under a bound (or fixed size) that its bug sizes break; a loop-free one is
/// refuted, and the witness replays: the bounded check against the fixture's own spec
/// fails at the witness's sizes.
fn size_twin_rules(rel: &str, meta: &FixtureToml, bug: &str, a: &Answers, l: Option<&Lifted>) {
    // A size bound (`N <= 8`, `N == 8`, `N % 4 == 0`), not only an overflow caveat.
    let unconstrained = |s: &Option<String>| {
        s.as_deref().is_some_and(|s| {
            let with = s.split_once(" with ").map_or("", |(_, w)| w);
            s.starts_with("for all") && !["<", ">", "==", "%"].iter().any(|r| with.contains(r))
        })
    };
    assert!(
        !unconstrained(&a.check_all_sizes) && !unconstrained(&a.lift_all_sizes),
        "{rel}: a size twin ({bug}) proved for all sizes without a constraint: {a:?}"
    );
    let l = l.unwrap_or_else(|| panic!("{rel}: a size twin loads at its own instance"));
    let lifted = l
        .all_sizes
        .as_ref()
        .unwrap_or_else(|| panic!("{rel}: a size twin lifts at its own instance: {a:?}"));
    let at = meta
        .bug_sizes
        .as_ref()
        .unwrap_or_else(|| panic!("{rel}: size_bug without bug_sizes"));
    let (outcome, checked) = l
        .check
        .as_ref()
        .unwrap_or_else(|| panic!("{rel}: a size twin has a spec: {a:?}"));
    let checked = checked
        .as_ref()
        .unwrap_or_else(|| panic!("{rel}: a size twin is verified at its instance: {a:?}"));
    for (o, by) in [(lifted, "lift"), (checked, "check")] {
        if matches!(o.scope, Scope::Refuted { .. }) && by == "check" {
            assert_eq!(
                *outcome,
                Outcome::Refuted,
                "{rel}: refuted for all sizes, but {outcome:?}"
            );
        }
        size_twin_outcome(rel, meta, bug, at, l, o, by);
    }
}

fn size_twin_outcome(
    rel: &str,
    meta: &FixtureToml,
    bug: &str,
    at: &BTreeMap<String, i64>,
    l: &Lifted,
    o: &verify::Outcome,
    by: &str,
) {
    match &o.scope {
        Scope::AllSizes { bounds, fixed, .. } => {
            assert!(
                by == "check" || PROVED_UNDER_A_BOUND.contains(&rel),
                "{rel}: a size twin ({bug}) proved by {by}: {}",
                o.describe()
            );
            assert!(
                bounds.iter().any(|(s, c)| at.get(s).is_some_and(|v| v > c))
                    || fixed.iter().any(|(s, c)| at.get(s).is_some_and(|v| v != c)),
                "{rel}: proved under {bounds:?} {fixed:?}, which admits its bug sizes {at:?}"
            );
        }
        Scope::Unknown { reason } => assert!(
            common::has_loop(&Path::new(rel).join("kernel.ttir")) || by == "check",
            "{rel}: loop-free size twin not refuted by {by}: {reason}"
        ),
        Scope::Refuted { sizes, .. } => {
            let sizes: BTreeMap<String, i64> = sizes.iter().cloned().collect();
            let inst = l.kernel.instance(&sizes).unwrap();
            // An error there is a kernel fault (out of bounds, ...): the bug, too.
            if let Ok(r) = check::check(&l.kernel, &inst, &meta.spec, &CheckOptions::default()) {
                assert!(
                    !matches!(r.outcome, Outcome::Verified),
                    "{rel}: the witness {sizes:?} does not replay"
                );
            }
        }
    }
}

/// A proof for all sizes agrees with the bounded check against the fixture's spec (which
/// does not come from lift) at three seeded random sizes up to 3x the launch's (ragged:
/// any value) within the printed bounds, a fixed size at its value.
fn agrees_at_random_sizes(
    rel: &str,
    meta: &FixtureToml,
    k: &Kernel,
    bounds: &[(String, i64)],
    fixed: &[(String, i64)],
) {
    if meta.spec.is_empty() {
        return;
    }
    // xorshift seeded by the fixture's name: a failure names a reproducible instance.
    let mut state = rel.bytes().fold(0x5eed_2026u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    let mut below = |n: i64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as i64
    };
    for _ in 0..3 {
        let mut sizes = BTreeMap::new();
        for (name, v) in &k.launch.sizes {
            let cap = bounds
                .iter()
                .find(|(s, _)| s == name)
                .map_or(3 * v + 5, |(_, c)| *c);
            let pinned = fixed.iter().find(|(s, _)| s == name).map(|(_, c)| *c);
            sizes.insert(name.clone(), pinned.unwrap_or_else(|| 1 + below(cap)));
        }
        let inst = k.instance(&sizes).unwrap();
        let r = check::check(k, &inst, &meta.spec, &CheckOptions::default())
            .unwrap_or_else(|e| panic!("{rel} at {sizes:?}: {e}"));
        assert!(
            matches!(r.outcome, Outcome::Verified),
            "{rel}: proved for all sizes but the bounded check fails at {sizes:?}"
        );
    }
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
