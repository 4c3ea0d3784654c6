//! NaN rules per op (docs/semantics.md, "Extended reals"): IEEE's maxNum/minNum
//! (`arith.maxnumf`, `tl.maximum`'s default; PTX `max.f32`; `torch.fmax`) return the
//! operand that is not NaN, maximum/minimum (`arith.maximumf`, `propagate_nan=ALL`; PTX
//! `max.NaN.f32`; `torch.maximum`, `torch.clamp`) propagate it. The kernels
//! (tests/nan_rules/, Triton 3.9.0, see generate.py there) take `max(log(x), 0)` and
//! `min(sqrt(x), 1)` both ways, so they differ exactly where x < 0.
//!
//! What VERIFIED means at such a point: a spec that is NaN there (PyTorch's own result
//! is NaN, `log` of a negative) has no value, and any kernel value refines it; a kernel
//! that is NaN where the spec has a value is wrong there. So `tl.maximum(tl.log(x), 0)`
//! (0 at x < 0) is VERIFIED against `torch.clamp(torch.log(x), min=0)` (NaN there), with
//! the precondition `x > 0` printed; its NaN-propagating twin is VERIFIED against clamp
//! too (NaN = NaN), but REFUTED against `torch.fmax(torch.log(x), 0)`, which is 0 there.

use assert_cmd::Command;
use lift::decide::{self, SpecSide, Verdict};
use lift::npy::Array;
use lift::term::{Node, Terms};
use lift::Kernel;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/nan_rules")
        .join(name)
}

/// `lift check` on the kernel `name` (`.ttir` or `.ptx`): exit code and stdout.
fn check(name: &str, spec: &str) -> (i32, String) {
    let out = Command::cargo_bin("lift")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["check", path(name).to_str().unwrap(), "--spec", spec])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    (out.status.code().unwrap_or(-1), text)
}

fn verified_for_all(name: &str, spec: &str) {
    let (code, text) = check(name, spec);
    assert_eq!(code, 0, "{name} against {spec}:\n{text}");
    assert!(
        text.contains("VERIFIED for all N"),
        "{name} against {spec}:\n{text}"
    );
}

fn refuted(name: &str, spec: &str, kernel_gives: &str, expected: &str) {
    let (code, text) = check(name, spec);
    assert_eq!(code, 1, "{name} against {spec}:\n{text}");
    let line = format!("kernel gives {kernel_gives}, expected {expected}");
    assert!(
        text.contains(&line),
        "{name} against {spec}: no `{line}` in\n{text}"
    );
}

const CLAMP_LOG: &str = "y = torch.clamp(torch.log(x), min=0)";
const MAXIMUM_LOG: &str = "y = torch.maximum(torch.log(x), torch.zeros(1))";
const FMAX_LOG: &str = "y = torch.fmax(torch.log(x), torch.zeros(1))";
const CLAMP_SQRT: &str = "y = torch.clamp(torch.sqrt(x), max=1)";
const FMIN_SQRT: &str = "y = torch.fmin(torch.sqrt(x), torch.ones(1))";

#[test]
fn maxnum_kernel_refines_the_nan_propagating_spec() {
    // 0 where x < 0, where PyTorch's clamp and maximum give NaN (no value).
    verified_for_all("log_relu.ttir", CLAMP_LOG);
    verified_for_all("log_relu.ttir", MAXIMUM_LOG);
    verified_for_all("sqrt_min.ttir", CLAMP_SQRT);
    // And it is fmax/fmin exactly.
    verified_for_all("log_relu.ttir", FMAX_LOG);
    verified_for_all("sqrt_min.ttir", FMIN_SQRT);
}

#[test]
fn the_proof_states_the_domain_it_needs() {
    let (_, text) = check("log_relu.ttir", CLAMP_LOG);
    assert!(text.contains("x[0] > 0"), "{text}");
}

#[test]
fn nan_propagating_kernel_is_refuted_where_the_spec_drops_the_nan() {
    // NaN where x < 0 (propagate_nan=ALL), where fmax/fmin give 0 and 1.
    verified_for_all("log_relu_nan.ttir", CLAMP_LOG);
    verified_for_all("sqrt_min_nan.ttir", CLAMP_SQRT);
    refuted("log_relu_nan.ttir", FMAX_LOG, "NaN", "0");
    refuted("sqrt_min_nan.ttir", FMIN_SQRT, "NaN", "1");
}

#[test]
fn wrong_values_inside_the_domain_are_still_refuted() {
    let (code, text) = check("log_relu.ttir", "y = torch.clamp(torch.log(x), min=0.5)");
    assert_eq!(code, 1, "{text}");
}

#[test]
fn ptx_min_drops_nan_and_min_nan_propagates_it() {
    // Triton's PTX of the sqrt kernels: `min.f32` and `min.NaN.f32` after `sqrt.rn.f32`.
    // (The log kernels' PTX is not used: LLVM folded libdevice's logf NaN branch into
    // the maxnum, so its code is no longer the probe's and lift says UNKNOWN there.)
    let (code, text) = check("sqrt_min.ptx", FMIN_SQRT);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("VERIFIED"), "{text}");
    let (code, text) = check("sqrt_min.ptx", CLAMP_SQRT);
    assert_eq!(code, 0, "{text}");
    let (code, text) = check("sqrt_min_nan.ptx", CLAMP_SQRT);
    assert_eq!(code, 0, "{text}");
    refuted("sqrt_min_nan.ptx", FMIN_SQRT, "NaN", "1");
}

/// `v != v` is the NaN test kernels write (`arith.cmpf une`): true where `v = log(x)`
/// is NaN, so the kernel is 0 at x < 0 (and -inf at 0). Folding it to false (as for a
/// real `v`) would make the kernel NaN there.
#[test]
fn a_nan_test_is_not_folded_away() {
    let out = Command::cargo_bin("lift")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg(path("log_or_zero.ttir"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.starts_with("y[N] = where(log(x) != log(x), 0, log(x))"),
        "{text}"
    );
    // 0 where x < 0: the wrong constant is refuted there, with the kernel's 0 (not NaN).
    refuted(
        "log_or_zero.ttir",
        "y = torch.where(x >= 0, torch.log(x), torch.ones(1))",
        "0",
        "1",
    );
    // It refines torch.log, NaN there.
    let (code, text) = check("log_or_zero.ttir", "y = torch.log(x)");
    assert_eq!(code, 0, "{text}");
    // The right constant is not refuted. (UNKNOWN today: the prover reads `v != v` as
    // false under its precondition x > 0, but does not use that precondition to drop
    // the spec's case x < 0.)
    let (code, text) = check(
        "log_or_zero.ttir",
        "y = torch.where(x >= 0, torch.log(x), torch.zeros(1))",
    );
    assert!(code == 0 || code == 3, "{text}");
}

/// `lift run` computes what the GPU does: 0 (maxnumf) or NaN (maximumf) at x = -1.
#[test]
fn concrete_runs_follow_each_ops_nan_rule() {
    let x = [-1.0, 0.5, 4.0, -0.25, 1.0, 2.0, -3.0, 0.125];
    let run = |name: &str| -> Vec<f64> {
        let k = Kernel::load(&path(name), None).unwrap();
        let inst = k.instance(&BTreeMap::new()).unwrap();
        let inputs = BTreeMap::from([(
            "x".to_string(),
            Array {
                shape: vec![8],
                data: x.to_vec(),
            },
        )]);
        let r = k.run_values(&inst, &inputs, &BTreeMap::new()).unwrap();
        r.outputs.into_iter().find(|o| o.0 == "y").unwrap().1.data
    };
    for (name, nan) in [("log_relu.ttir", false), ("log_relu_nan.ttir", true)] {
        let y = run(name);
        for (i, &xi) in x.iter().enumerate() {
            if xi < 0.0 {
                assert_eq!(y[i].is_nan(), nan, "{name}: y[{i}] = {}", y[i]);
                if !nan {
                    assert_eq!(y[i], 0.0, "{name}");
                }
            } else {
                assert!((y[i] - xi.ln().max(0.0)).abs() < 1e-12, "{name}: y[{i}]");
            }
        }
    }
}

/// `lift` prints the NaN rule it proved: `fmax` for maxnumf, `max` for maximumf (whose
/// named form against 0 is `relu`, NaN-propagating as `torch.relu`).
#[test]
fn lifted_formulas_name_the_nan_rule() {
    for (name, formula) in [
        ("log_relu.ttir", "y[N] = fmax(log(x), 0)"),
        ("log_relu_nan.ttir", "y[N] = relu(log(x))"),
        ("sqrt_min.ttir", "y[N] = fmin(sqrt(x), 1)"),
    ] {
        let out = Command::cargo_bin("lift")
            .unwrap()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .arg(path(name))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{name}:\n{text}");
        assert!(text.starts_with(formula), "{name}:\n{text}");
        assert!(text.contains("VERIFIED for all N"), "{name}:\n{text}");
    }
}

/// The term layer: maxNum is max where no operand can be NaN, and keeps NaN-able
/// operands apart; the decider tells the two apart by IEEE's rules, and in a `check`
/// takes a spec's NaN outside its domain as no claim.
#[test]
fn terms_and_decide_keep_the_two_rules_apart() {
    let mut t = Terms::new();
    let x = t.input("x", &[0]);
    let zero = t.zero();
    let max_x = t.max(x, zero);
    assert_eq!(t.maxnum(x, zero), max_x, "no NaN possible: maxNum is max");
    let lx = t.call(lift::term::Func::Log, x);
    let num = t.maxnum(lx, zero);
    let max = t.max(lx, zero);
    assert_ne!(num, max);
    assert!(matches!(t.node(num), Node::MaxNum(_)));
    // NaN operands drop out; the absorbing infinity wins over a NaN.
    let nan = t.nan();
    assert_eq!(t.maxnum(nan, lx), lx);
    let inf = t.inf(false);
    assert_eq!(t.maxnum(inf, lx), inf);
    assert_eq!(t.max(nan, lx), nan);
    // `log x != log x` (a NaN test) and `!(log x < 0)` stay: both are true at x = -1.
    let is_nan = t.cmp(lift::term::CmpOp::Ne, lx, lx);
    let lt = t.cmp(lift::term::CmpOp::Lt, lx, zero);
    let not_lt = t.not(lt);
    assert!(matches!(t.node(not_lt), Node::Not(_)));
    assert_eq!(
        t.cmp(lift::term::CmpOp::Ne, x, x),
        zero,
        "x != x is false for a real x"
    );
    // Evaluation at x = -1: maxNum gives 0, max NaN.
    let at = |id| t.eval(id, &|_, _| -1.0, &|_| f64::NAN);
    assert_eq!(at(num), 0.0);
    assert!(at(max).is_nan());
    assert_eq!(at(is_nan), 1.0);
    assert_eq!(at(not_lt), 1.0);

    let opts = |spec| decide::Options {
        spec,
        ..decide::Options::default()
    };
    // Kernel and formula (or two kernels): NaN against 0 is a difference.
    assert!(decide::decide(&t, num, max, &opts(SpecSide::Neither)).is_not_equal());
    // Kernel (left) against a spec (right) that is NaN there: refined.
    let v = decide::decide(&t, num, max, &opts(SpecSide::Right));
    assert!(
        matches!(&v, Verdict::Equal { preconditions } if !preconditions.is_empty()),
        "{v:?}"
    );
    assert!(decide::decide(&t, max, num, &opts(SpecSide::Left)).is_equal());
    // A NaN kernel against a spec that has a value there: refuted.
    match decide::decide(&t, max, num, &opts(SpecSide::Right)) {
        Verdict::NotEqual(c) => assert!(c.lhs.is_nan() && c.rhs == 0.0, "{c:?}"),
        v => panic!("{v:?}"),
    }
}
