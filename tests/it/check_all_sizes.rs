//! `lift check` for every size: the suite's PyTorch specs, read over symbolic sizes
//! (`torch::SpecProgram::formulas`), proved against their kernels by `verify`.
//!
//! - Every correct kernel is proved for all sizes against its own spec, except the
//!   gaps `lift` has too (listed with their reasons); none is ever refuted.
//! - The constraints are `lift`'s: the formula `lift` synthesised and the spec the
//!   fixture's author wrote are two independent descriptions of one function, so a
//!   proof for every size must need the same size bounds from both.
//! - A size twin is never proved for every size (only under a bound its bug sizes
//!   break), and a refutation's sizes replay: the bounded check fails there.
//! - Agreement at random sizes: every proof is followed by bounded checks at seeded
//!   random larger and ragged sizes within its constraints, which must verify.
//! - What the all-sizes reading cannot honour is UNKNOWN with the reason, never ignored.

use crate::common;

use common::{fixtures, Fixture};
use lift::check::{self, CheckOptions, Outcome, Report};
use lift::term::Terms;
use lift::verify::Scope;
use lift::Kernel;
use std::collections::BTreeMap;

/// Correct kernels whose spec is not proved for every size yet, and why (the same gaps
/// as `lift`'s: see tests/verify_suite.rs and ARCHITECTURE.md).
const GAPS: &[(&str, &str)] = &[];

/// Proofs here are asserted, not timed: the all-sizes step is bounded by counts of work,
/// not by time (benchmarks/RESULTS.md has the times). The gaps are not run here.
fn correct(f: &Fixture) -> bool {
    f.meta.expect == "verified"
        && f.meta.size_bug.is_none()
        && !GAPS.iter().any(|(n, _)| *n == f.name())
}

fn check_all_sizes(k: &Kernel, sizes: &BTreeMap<String, i64>, spec: &str) -> Report {
    let inst = k.instance(sizes).unwrap();
    let opts = CheckOptions {
        all_sizes: true,
        ..CheckOptions::default()
    };
    check::check(k, &inst, spec, &opts).unwrap_or_else(|e| panic!("{}: {e}", k.path.display()))
}

fn load(f: &Fixture) -> Kernel {
    Kernel::load(&f.kernel(), None).unwrap()
}

fn scope(r: &Report) -> &Scope {
    &r.all_sizes
        .as_ref()
        .expect("a verified instance is followed by the all-sizes step")
        .scope
}

/// `lift`'s own proof for every size of the formula it synthesised.
fn lifted_scope(k: &Kernel) -> Option<Scope> {
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let mut terms = Terms::new();
    let mut lifted = lift::synth::lift(k, &inst, &mut terms).ok()?;
    lifted.verify_all_sizes(k, &inst);
    lifted.all_sizes.map(|o| o.scope)
}

#[test]
fn every_correct_spec_is_proved_for_all_sizes_with_lifts_constraints() {
    let mut proved = 0;
    let mut same_as_lift = 0;
    for f in fixtures().iter().filter(|f| correct(f)) {
        let k = load(f);
        let r = check_all_sizes(&k, &BTreeMap::new(), &f.meta.spec);
        assert_eq!(
            r.outcome,
            Outcome::Verified,
            "{}: {}",
            f.name(),
            r.to_text()
        );
        match scope(&r) {
            Scope::AllSizes { constraints, .. } => {
                proved += 1;
                assert!(
                    r.to_text()
                        .lines()
                        .last()
                        .unwrap()
                        .starts_with("VERIFIED for all"),
                    "{}",
                    r.to_text()
                );
                if let Some(Scope::AllSizes {
                    constraints: from_lift,
                    ..
                }) = lifted_scope(&k)
                {
                    assert_eq!(constraints, &from_lift, "{}", f.name());
                    same_as_lift += 1;
                }
            }
            Scope::Refuted { sizes, reason } => {
                panic!(
                    "{}: a correct kernel refuted at {sizes:?}: {reason}",
                    f.name()
                )
            }
            Scope::Unknown { reason } => {
                panic!("{}: not proved for all sizes: {reason}", f.name())
            }
        }
    }
    assert!(proved >= 48, "only {proved} specs proved for all sizes");
    assert!(same_as_lift >= 45, "only {same_as_lift} compared with lift");
}

#[test]
fn size_twins_are_never_proved_and_their_refutations_replay() {
    let mut refuted = 0;
    for f in fixtures().iter().filter(|f| f.meta.size_bug.is_some()) {
        let k = load(f);
        let r = check_all_sizes(&k, &BTreeMap::new(), &f.meta.spec);
        let bug = f
            .meta
            .bug_sizes
            .as_ref()
            .expect("size twins have bug_sizes");
        match scope(&r) {
            Scope::AllSizes { bounds, fixed, .. } => assert!(
                bounds
                    .iter()
                    .any(|(s, c)| bug.get(s).is_some_and(|v| v > c))
                    || fixed
                        .iter()
                        .any(|(s, c)| bug.get(s).is_some_and(|v| v != c)),
                "{}: proved under {bounds:?} {fixed:?}, which admits its bug sizes {bug:?}",
                f.name()
            ),
            Scope::Unknown { .. } => {}
            Scope::Refuted { sizes, .. } => {
                refuted += 1;
                assert_eq!(r.outcome, Outcome::Refuted, "{}", f.name());
                let at: BTreeMap<String, i64> = sizes.iter().cloned().collect();
                let inst = k.instance(&at).unwrap();
                if let Ok(r) = check::check(&k, &inst, &f.meta.spec, &CheckOptions::default()) {
                    assert_ne!(r.outcome, Outcome::Verified, "{}: {at:?}", f.name());
                }
            }
        }
    }
    assert!(refuted >= 7, "only {refuted} size twins refuted");
}

/// A tiny seeded generator (xorshift), so a failure names a reproducible instance.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: i64) -> i64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as i64
    }
}

#[test]
fn proofs_agree_with_bounded_checks_at_random_sizes() {
    let mut rng = Rng(0x5eed_c4ec);
    let mut checked = 0;
    for f in fixtures().iter().filter(|f| correct(f)) {
        let k = load(f);
        let r = check_all_sizes(&k, &BTreeMap::new(), &f.meta.spec);
        let Scope::AllSizes { bounds, fixed, .. } = scope(&r) else {
            continue;
        };
        for _ in 0..3 {
            let mut sizes = BTreeMap::new();
            for (name, v) in &k.launch.sizes {
                let cap = bounds
                    .iter()
                    .find(|(s, _)| s == name)
                    .map(|(_, c)| *c)
                    .unwrap_or(3 * v + 5);
                let pinned = fixed.iter().find(|(s, _)| s == name).map(|(_, c)| *c);
                sizes.insert(name.clone(), pinned.unwrap_or_else(|| 1 + rng.below(cap)));
            }
            let inst = k.instance(&sizes).unwrap();
            let r = check::check(&k, &inst, &f.meta.spec, &CheckOptions::default())
                .unwrap_or_else(|e| panic!("{} at {sizes:?}: {e}", f.name()));
            assert_eq!(r.outcome, Outcome::Verified, "{} at {sizes:?}", f.name());
            checked += 1;
        }
    }
    assert!(checked >= 140, "only {checked} random instances checked");
}

fn fixture(name: &str) -> Fixture {
    fixtures()
        .into_iter()
        .find(|f| f.name() == name)
        .unwrap_or_else(|| panic!("no fixture {name}"))
}

#[test]
fn what_the_all_sizes_reading_cannot_honour_is_unknown_with_its_reason() {
    // Bessel's correction divides by N - 1: exact at the instance, but not a formula
    // over the sizes yet. The instance verdict stands; the reason names it.
    let k = load(&fixture("sum"));
    let cases = [
        (
            "y = torch.sum(x, dim=1) + torch.var(x, dim=1) * 0",
            "Bessel",
        ),
        // A size used as a real number.
        ("y = torch.sum(x, dim=1) * N / N", "used as a number"),
    ];
    for (spec, why) in cases {
        let r = check_all_sizes(&k, &BTreeMap::new(), spec);
        assert_eq!(r.outcome, Outcome::Verified, "{spec}: {}", r.to_text());
        match scope(&r) {
            Scope::Unknown { reason } => assert!(reason.contains(why), "{spec}: {reason}"),
            s => panic!("{spec}: {s:?}"),
        }
        assert!(
            r.to_text().contains("for all sizes: UNKNOWN"),
            "{}",
            r.to_text()
        );
    }
}

#[test]
fn json_reports_the_scope_and_its_constraints() {
    let f = fixture("softmax");
    let r = check_all_sizes(&load(&f), &BTreeMap::new(), &f.meta.spec);
    let j = r.to_json();
    assert_eq!(j["scope"], "all_sizes", "{j}");
    assert_eq!(j["all_sizes"]["verdict"], "verified", "{j}");
    let c = j["constraints"].as_array().unwrap();
    assert_eq!(c[0], "N <= 8", "{j}");
    // Without the all-sizes step the scope is the instance.
    let k = load(&f);
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let r = check::check(&k, &inst, &f.meta.spec, &CheckOptions::default()).unwrap();
    assert_eq!(r.to_json()["scope"], "instance");
}

fn equiv_all_sizes(a: &str, b: &str) -> Report {
    let (ka, kb) = (load(&fixture(a)), load(&fixture(b)));
    let opts = CheckOptions {
        all_sizes: true,
        ..CheckOptions::default()
    };
    check::equiv(&ka, &kb, &BTreeMap::new(), &opts).unwrap_or_else(|e| panic!("{a} {b}: {e}"))
}

#[test]
fn second_implementations_are_equivalent_for_all_sizes() {
    // Each pair: both kernels proved, for every size, equal to the formula the first
    // lifts to; the constraints are both sides' (the one-block kernels need N <= 8).
    let pairs = [
        ("sum_tree", "sum", Some("N <= 8")),
        ("softmax_looped", "softmax", Some("N <= 8")),
        ("max_looped", "max", Some("N <= 8")),
        ("exp_native", "exp", None),
        ("gelu_sigmoid", "gelu", None),
        ("matmul_tf32", "matmul", None),
    ];
    for (a, b, bound) in pairs {
        let r = equiv_all_sizes(a, b);
        assert_eq!(r.outcome, Outcome::Verified, "{a} {b}: {}", r.to_text());
        let Scope::AllSizes { constraints, .. } = scope(&r) else {
            panic!("{a} {b}: {}", r.to_text())
        };
        match bound {
            // (A looped side adds its loop counter's bound, implied by this one.)
            Some(b) => assert!(
                constraints.iter().any(|c| c == b),
                "{a} {b}: {constraints:?}"
            ),
            // Only what the integers need: a bound they need (`K <= 2147483632 (i32
            // index arithmetic at …)`) or the obligation assumed.
            None => assert!(
                constraints
                    .iter()
                    .all(|c| c.starts_with("i32 ") || c.contains(" (i32 ")),
                "{a} {b}: {constraints:?}"
            ),
        }
        assert!(r
            .to_text()
            .lines()
            .last()
            .unwrap()
            .starts_with("VERIFIED for all"));
    }
}

#[test]
fn a_second_implementation_wrong_only_at_other_sizes_is_refuted_there() {
    // Equal at the launch's sizes; the second loop stops a tile early (N % 4 != 0) or
    // never reaches the tail. The witness replays: the bounded equiv fails there.
    for (a, b) in [
        ("sum_tree", "sum_loop_floor"),
        ("max_looped", "max_loop_short"),
    ] {
        let r = equiv_all_sizes(a, b);
        assert_eq!(r.outcome, Outcome::Refuted, "{a} {b}: {}", r.to_text());
        let Scope::Refuted { sizes, .. } = scope(&r) else {
            panic!("{a} {b}: {}", r.to_text())
        };
        let at: BTreeMap<String, i64> = sizes.iter().cloned().collect();
        let (ka, kb) = (load(&fixture(a)), load(&fixture(b)));
        if let Ok(r) = check::equiv(&ka, &kb, &at, &CheckOptions::default()) {
            assert_ne!(r.outcome, Outcome::Verified, "{a} {b} at {at:?}");
        }
    }
}

#[test]
fn a_spec_that_leaves_an_output_out_is_proved_for_the_ones_it_gives() {
    // layer_norm's kernel writes y, mean and rstd; this spec gives only the mean, which
    // is right for every row length up to the block (the variance needs N == 8: the
    // padded lanes enter it, see the fixture's full spec).
    let k = load(&fixture("layer_norm"));
    let r = check_all_sizes(&k, &BTreeMap::new(), "mean = torch.mean(x, dim=-1)");
    assert!(r.unchecked.contains(&"y".to_string()), "{}", r.to_text());
    let Scope::AllSizes { bounds, .. } = scope(&r) else {
        panic!("{}", r.to_text())
    };
    assert_eq!(bounds, &[("N".to_string(), 8)], "{}", r.to_text());
}

#[test]
fn running_argmax_is_proved_with_the_first_index_rule_and_its_twins_are_not() {
    // argmax_loop (`v > m`, src/verify/argext.rs) is PyTorch's first-index argmax for
    // every size, and not its argmin; the flipped comparison (argmax_loop_bug) is the
    // first-index argmin for every size.
    let proved = |name: &str, spec: &str| {
        let r = check_all_sizes(&load(&fixture(name)), &BTreeMap::new(), spec);
        assert_eq!(r.outcome, Outcome::Verified, "{name}: {}", r.to_text());
        assert!(
            matches!(scope(&r), Scope::AllSizes { bounds, .. } if bounds.is_empty()),
            "{name}: {}",
            r.to_text()
        );
        assert!(r
            .to_text()
            .lines()
            .last()
            .unwrap()
            .starts_with("VERIFIED for all"));
    };
    proved("argmax_loop", "y = torch.argmax(x, dim=1)");
    proved("argmax_loop_bug", "y = torch.argmin(x, dim=1)");
    // At one column (N = 1) every one of these kernels computes the spec, so the
    // instance verifies; for all sizes each is refuted at sizes that replay.
    let one_column = BTreeMap::from([("N".to_string(), 1)]);
    for (name, spec) in [
        // Moves the index on a tie (`v >= m`): the last index, not PyTorch's first.
        ("argmax_loop_ge", "y = torch.argmax(x, dim=1)"),
        ("argmax_loop", "y = torch.argmin(x, dim=1)"),
        ("argmax_loop_bug", "y = torch.argmax(x, dim=1)"),
        ("argmax_loop_start2", "y = torch.argmax(x, dim=1)"),
        ("argmax_loop_short", "y = torch.argmax(x, dim=1)"),
    ] {
        let k = load(&fixture(name));
        let r = check_all_sizes(&k, &one_column, spec);
        assert_eq!(r.outcome, Outcome::Refuted, "{name}: {}", r.to_text());
        let Scope::Refuted { sizes, .. } = scope(&r) else {
            panic!("{name}: {}", r.to_text())
        };
        let at: BTreeMap<String, i64> = sizes.iter().cloned().collect();
        assert_ne!(at.get("N"), Some(&1), "{name}: {at:?}");
        let inst = k.instance(&at).unwrap();
        let bounded = check::check(&k, &inst, spec, &CheckOptions::default()).unwrap();
        assert_eq!(bounded.outcome, Outcome::Refuted, "{name} at {at:?}");
    }
}

/// A spec written with temporaries, `unsqueeze` and `[:, None]` (as people write a
/// softmax by hand) is read for every size: the temporary is no claim, the new axes
/// are read at symbolic indices. The kernel is proved for all sizes; its twin, with a
/// max taken over the wrong lanes, is refuted.
#[test]
fn specs_with_temporaries_and_new_axes_are_read_for_every_size() {
    let spec = "e = torch.exp(x - x.amax(-1).unsqueeze(1)); y = e / e.sum(-1)[:, None]";
    let k = Kernel::load(std::path::Path::new("triton_ir/softmax/kernel.ttir"), None).unwrap();
    let r = check_all_sizes(&k, &k.launch.sizes.clone(), spec);
    assert_eq!(r.outcome, Outcome::Verified, "{}", r.to_text());
    assert!(
        matches!(scope(&r), Scope::AllSizes { .. }),
        "{}",
        r.to_text()
    );
    assert_eq!(r.temporaries, ["e"]);
    let bug = Kernel::load(
        std::path::Path::new("triton_ir/softmax_bug/kernel.ttir"),
        None,
    )
    .unwrap();
    let r = check_all_sizes(&bug, &bug.launch.sizes.clone(), spec);
    assert_eq!(r.outcome, Outcome::Refuted, "{}", r.to_text());
}

/// `masked_fill`, `float(...)`, `math.*` and `x.shape[k]` are read for every size
/// (issue 12 item 2); each proof has a twin refuted.
#[test]
fn masks_builtins_math_and_shapes_are_read_for_every_size() {
    let load = |p: &str| Kernel::load(std::path::Path::new(p), None).unwrap();
    let relu = load("triton_ir/relu/kernel.ttir");
    let softmax = load("triton_ir/softmax/kernel.ttir");
    let proved = [
        (&relu, "y = x.masked_fill(x < 0, 0.0)"),
        (
            &relu,
            "y = x.masked_fill(mask=x < float(0), value=float('0.0')) * math.exp(0)",
        ),
        (
            &softmax,
            "n = x.shape[1]; e = torch.exp(x - x.amax(dim=x.ndim - 1, keepdim=True)); \
             y = e / e.sum(-1, keepdim=True) * math.log(math.e)",
        ),
    ];
    for (k, spec) in proved {
        let r = check_all_sizes(k, &k.launch.sizes.clone(), spec);
        assert_eq!(r.outcome, Outcome::Verified, "{spec}: {}", r.to_text());
        assert!(
            matches!(scope(&r), Scope::AllSizes { .. }),
            "{spec}: {}",
            r.to_text()
        );
    }
    let refuted = [
        (&relu, "y = x.masked_fill(x > 0, 0.0)"),
        (&relu, "y = x.masked_fill(x < 0, float('0.5'))"),
        (&softmax, "y = torch.softmax(x, dim=-1) * math.pi"),
    ];
    for (k, spec) in refuted {
        let r = check_all_sizes(k, &k.launch.sizes.clone(), spec);
        assert_eq!(r.outcome, Outcome::Refuted, "{spec}: {}", r.to_text());
    }
    // An infinity is not a real formula: the instance verdict stands, the reason says so.
    let r = check_all_sizes(
        &relu,
        &relu.launch.sizes.clone(),
        "y = torch.clamp(x, min=float('-inf')).masked_fill(x < 0, 0.0)",
    );
    assert_eq!(r.outcome, Outcome::Verified, "{}", r.to_text());
    match scope(&r) {
        Scope::Unknown { reason } => assert!(reason.contains("not a finite number"), "{reason}"),
        s => panic!("{s:?}"),
    }
}
