//! `lift check` for every size: the suite's PyTorch specs, read over symbolic sizes
//! (`torch::SpecProgram::formulas`), proved against their kernels by `verify`.
//!
//! The rules for every fixture run per fixture, by name, in tests/it/fixtures.rs: every
//! correct spec proved for all sizes with lift's constraints and agreeing with bounded
//! checks at random sizes, size twins never proved past their bug. Here: what the
//! all-sizes reading cannot honour is UNKNOWN with the reason, never ignored; JSON;
//! second implementations equivalent for all sizes, and their twins refuted.

use crate::common;

use common::{fixtures, Fixture};
use lift::check::{self, CheckOptions, Outcome, Report};
use lift::verify::Scope;
use lift::Kernel;
use std::collections::BTreeMap;

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
