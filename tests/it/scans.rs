//! Scans and recurrences in Triton kernels (issue 42) on Triton 3.9 fixtures
//! (`triton_ir/scans/`, built by its `generate.py` from `kernels.py`): `tl.cumsum` of a
//! row in one block and over column blocks carrying the running total, the linear
//! recurrence h[t] = a[t]·h[t-1] + x[t] as a loop over t and as `tl.associative_scan`
//! of affine maps, and online log-softmax.
//!
//! - Every fixture gets its `expect`ed verdict at each instance against its PyTorch
//!   spec (`torch.cumsum(x, dim=-1)`, `torch.log_softmax(x, dim=-1)`); the exclusive
//!   and the reversed scan are REFUTED.
//! - Both cumsum kernels lift to `cumsum(x, axis=1)` (the prefix sum, by its
//!   definition) VERIFIED for every size; the blocked one through the induction of
//!   `verify::scans` (the running total is the prefix before its block). The twins
//!   whose bug needs a second block (the total never added, the sum never rescaled) are
//!   right on their one-block instances and REFUTED at sizes with two blocks; their
//!   all-sizes verdict is never VERIFIED beyond one block.
//! - The loop and the associative scan of the recurrence compute the same outputs
//!   (`lift equiv`), and the twin that starts the state at 1 does not, nor the scan
//!   whose combine composes the affine maps in the wrong order.
//! - Both lift to `linear_recurrence(a, x, axis=1)` VERIFIED for every size (the scan
//!   within its block of 8), stating that the recurrence is read over the reals; the
//!   twin that resets the state every 8 steps is right on its instances and REFUTED
//!   past 8 steps, never VERIFIED for them.
//! - Independently of lift's terms, `lift run` of each kernel on the NumPy references
//!   (`np.cumsum`, the recurrence as a Python loop) reproduces them where the kernel is
//!   correct and differs where it is not.

use crate::common::output_text as text;
use crate::common::read_npys;
use assert_cmd::Command;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const FIXTURES: &[&str] = &[
    "cumsum_rows",
    "cumsum_rows_exclusive",
    "cumsum_rows_reverse",
    "cumsum_looped",
    "cumsum_looped_nocarry",
    "cumsum_looped_pad",
    "cumsum_looped_overwrite",
    "recurrence_loop",
    "recurrence_loop_init",
    "recurrence_loop_reset",
    "recurrence_scan",
    "recurrence_scan_swapped",
    "log_softmax_online",
    "log_softmax_online_norescale",
];

#[derive(Deserialize)]
struct Fixture {
    spec: Option<String>,
    /// The correct kernel is VERIFIED for every size, not only on the instance.
    #[serde(default)]
    all_sizes: bool,
    /// A twin right on its instances: sizes where its bug shows.
    bug_sizes: Option<BTreeMap<String, i64>>,
    instance: Vec<Inst>,
}

#[derive(Deserialize)]
struct Inst {
    name: String,
    sizes: BTreeMap<String, i64>,
    expect: String,
}

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("triton_ir/scans")
        .join(name)
}

fn fixture(name: &str) -> Fixture {
    toml::from_str(&std::fs::read_to_string(dir(name).join("fixture.toml")).unwrap()).unwrap()
}

fn lift() -> Command {
    Command::cargo_bin("lift").unwrap()
}

fn sized(cmd: &mut Command, sizes: &BTreeMap<String, i64>) {
    for (s, v) in sizes {
        cmd.args(["--size", &format!("{s}={v}")]);
    }
}

#[test]
fn scan_kernels_use_tt_scan() {
    for name in ["cumsum_rows", "cumsum_looped", "recurrence_scan"] {
        let ttir = std::fs::read_to_string(dir(name).join("kernel.ttir")).unwrap();
        assert!(ttir.contains("\"tt.scan\""), "{name}: no tt.scan");
    }
    // the associative scan carries the pair (a, b) of an affine map
    let ttir = std::fs::read_to_string(dir("recurrence_scan").join("kernel.ttir")).unwrap();
    assert!(
        ttir.contains("tt.scan.return %") && ttir.contains(", %"),
        "{ttir}"
    );
}

#[test]
fn scan_kernels_get_their_verdict_at_each_instance() {
    for name in FIXTURES {
        let fx = fixture(name);
        let Some(spec) = fx.spec else { continue };
        let kernel = dir(name).join("kernel.ttir");
        for inst in &fx.instance {
            let what = format!("{name}/{}", inst.name);
            let mut cmd = lift();
            cmd.arg("check").arg(&kernel).args(["--spec", &spec]);
            sized(&mut cmd, &inst.sizes);
            let o = cmd.output().unwrap();
            let t = text(&o);
            match inst.expect.as_str() {
                // a size twin: right on the instance, refuted at a size past it (or
                // proved under a bound, `size_twins_fail_at_their_bug_sizes`)
                "verified" if fx.bug_sizes.is_some() && o.status.code() == Some(1) => {
                    assert!(
                        t.contains("VERIFIED on this launch instance only"),
                        "{what}:\n{t}"
                    );
                    assert!(t.contains("REFUTED at M="), "{what}:\n{t}");
                }
                "verified" => {
                    assert_eq!(o.status.code(), Some(0), "{what}:\n{t}");
                    assert!(t.contains("VERIFIED"), "{what}:\n{t}");
                    if fx.all_sizes {
                        assert!(t.contains("VERIFIED for all"), "{what}:\n{t}");
                    }
                }
                "refuted" => {
                    assert_eq!(o.status.code(), Some(1), "{what}:\n{t}");
                    assert!(t.contains("REFUTED"), "{what}:\n{t}");
                }
                v => panic!("{what}: {v}"),
            }
        }
    }
}

/// A twin right in one block (two, for the overwritten total) is REFUTED at its bug
/// sizes, and its all-sizes verdict never covers them (a bound `N <= k` below them, or
/// REFUTED at some size).
#[test]
fn size_twins_fail_at_their_bug_sizes() {
    for name in [
        "cumsum_looped_nocarry",
        "cumsum_looped_overwrite",
        "log_softmax_online_norescale",
    ] {
        let fx = fixture(name);
        let spec = fx.spec.unwrap();
        let bug = fx.bug_sizes.expect("a one-block twin names its bug sizes");
        let kernel = dir(name).join("kernel.ttir");
        let mut cmd = lift();
        cmd.arg("check").arg(&kernel).args(["--spec", &spec]);
        sized(&mut cmd, &bug);
        let o = cmd.output().unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(1), "{name}:\n{t}");
        assert!(t.contains("REFUTED"), "{name}:\n{t}");
        let o = lift().arg(&kernel).output().unwrap();
        let t = text(&o);
        let line = t.lines().last().unwrap_or_default();
        if line.contains("VERIFIED for all") {
            let bound: i64 = line
                .split("N <= ")
                .nth(1)
                .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|d| d.parse().ok())
                .unwrap_or_else(|| panic!("{name}: no bound on N:\n{t}"));
            assert!(bound < bug["N"], "{name}:\n{t}");
        } else {
            assert!(line.starts_with("REFUTED at"), "{name}:\n{t}");
        }
    }
}

/// The cumsum kernels lift to the prefix sum, proved for every size (the padded one
/// adds its masked-off 1s only to the total after the last block, which nothing reads).
#[test]
fn cumsum_kernels_lift_to_cumsum_for_all_sizes() {
    for name in ["cumsum_rows", "cumsum_looped", "cumsum_looped_pad"] {
        let o = lift().arg(dir(name).join("kernel.ttir")).output().unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(0), "{name}:\n{t}");
        assert!(t.contains("y[M,N] = cumsum(x, axis=1)\n"), "{name}:\n{t}");
        assert!(t.contains("VERIFIED for all"), "{name}:\n{t}");
    }
    // one block per row: the proof needs the row to fit its block of 16
    let o = lift()
        .arg(dir("cumsum_rows").join("kernel.ttir"))
        .output()
        .unwrap();
    assert!(text(&o).contains("N <= 16"), "{}", text(&o));
}

/// The recurrence as a loop over t and as an associative scan of (a, b) pairs compute
/// the same h on the instance; the twin whose state starts at 1 does not.
#[test]
fn recurrence_loop_and_associative_scan_agree() {
    let scan = dir("recurrence_scan").join("kernel.ttir");
    for (name, code, word) in [
        ("recurrence_loop", 0, "VERIFIED"),
        ("recurrence_loop_init", 1, "REFUTED"),
    ] {
        let o = lift()
            .arg("equiv")
            .arg(dir(name).join("kernel.ttir"))
            .arg(&scan)
            .args(["--size", "M=3", "--size", "T=5"])
            .output()
            .unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(code), "{name}:\n{t}");
        assert!(t.contains(word), "{name}:\n{t}");
    }
}

#[test]
fn scan_kernels_run_on_the_references_as_their_verdicts_say() {
    for name in FIXTURES {
        let fx = fixture(name);
        let kernel = dir(name).join("kernel.ttir");
        for inst in &fx.instance {
            let what = format!("{name}/{}", inst.name);
            let refs = dir(name).join("ref").join(&inst.name);
            let out = tempfile::tempdir().unwrap();
            let mut cmd = lift();
            cmd.arg("run").arg(&kernel).arg("--out").arg(out.path());
            sized(&mut cmd, &inst.sizes);
            let ins = read_npys(&refs);
            for k in ins.keys() {
                cmd.arg("--input")
                    .arg(format!("{k}={}", refs.join(format!("{k}.npy")).display()));
            }
            let o = cmd.output().unwrap();
            assert_eq!(o.status.code(), Some(0), "{what}:\n{}", text(&o));
            let got = read_npys(out.path());
            let mut differs = false;
            for (k, want) in read_npys(&refs.join("expected")) {
                let g = &got[&k];
                assert_eq!(g.shape, want.shape, "{what}: {k}");
                differs |= g
                    .data
                    .iter()
                    .zip(&want.data)
                    .any(|(a, b)| a.is_nan() || (a - b).abs() > 1e-5 * b.abs().max(1.0));
            }
            let wrong = inst.expect == "refuted";
            assert_eq!(differs, wrong, "{what}: {got:?}");
        }
    }
}

/// `linear_recurrence(a, x, axis=1)` means h[t] = a[t]·h[t-1] + x[t] from h[-1] = 0,
/// written out here by hand: h[i,0] = x[i,0], h[i,2] = a[i,2]·(a[i,1]·x[i,0] + x[i,1])
/// + x[i,2]; `a[i,0]` is never read. Its shape is x's, and a and x must agree.
#[test]
fn linear_recurrence_means_the_loop_over_its_axis() {
    use lift::formula::{Formula, ShapeEnv};
    use lift::term::Terms;
    let env = ShapeEnv::new()
        .named_tensor("a", &[("M", 2), ("T", 3)])
        .named_tensor("x", &[("M", 2), ("T", 3)])
        .named_tensor("w", &[("T", 3)]);
    let f = Formula::recurrence(Formula::input("a"), Formula::input("x"), 1);
    assert_eq!(f.shape(&env).unwrap(), vec![2, 3]);
    let mut t = Terms::new();
    let got = f.instantiate(&mut t, &env).unwrap();
    let (a, x) = (
        |t: &mut Terms, i, j| t.input("a", &[i, j]),
        |t: &mut Terms, i, j| t.input("x", &[i, j]),
    );
    let x10 = x(&mut t, 1, 0);
    assert_eq!(got[3], x10);
    let (a11, a12, x11, x12) = (
        a(&mut t, 1, 1),
        a(&mut t, 1, 2),
        x(&mut t, 1, 1),
        x(&mut t, 1, 2),
    );
    let h11 = t.mul(a11, x10);
    let h11 = t.add(h11, x11);
    let h12 = t.mul(a12, h11);
    let h12 = t.add(h12, x12);
    assert_eq!((got[4], got[5]), (h11, h12));
    let a10 = a(&mut t, 1, 0);
    assert!(!t.children(got[5]).contains(&a10));
    let bad = Formula::recurrence(Formula::input("w"), Formula::input("x"), 1);
    assert!(bad.shape(&env).is_err());
    assert_eq!(
        lift::render::text::expr(&f),
        "linear_recurrence(a, x, axis=1)"
    );
}

/// Both recurrence kernels lift to `linear_recurrence(a, x, axis=1)`, VERIFIED for
/// every size: the loop by induction over its trips (the state entering trip t is
/// R(t-1)), the associative scan within its one block of 8 (`T <= 8`); both verdicts
/// say the recurrence is read over the reals (the scan's tree order reassociates it).
/// The twins whose state starts at 1 or whose combine is swapped do not lift to it.
#[test]
fn recurrence_kernels_lift_to_linear_recurrence() {
    for name in ["recurrence_loop", "recurrence_scan"] {
        assert!(fixture(name).all_sizes, "{name}");
        let o = lift().arg(dir(name).join("kernel.ttir")).output().unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(0), "{name}:\n{t}");
        assert!(
            t.contains("h[M,T] = linear_recurrence(a, x, axis=1)\n"),
            "{name}:\n{t}"
        );
        let line = t.lines().last().unwrap_or_default();
        assert!(line.starts_with("VERIFIED for all M, T"), "{name}:\n{t}");
        assert!(
            line.contains("linear_recurrence read over the reals"),
            "{name}:\n{t}"
        );
    }
    let o = lift()
        .arg(dir("recurrence_scan").join("kernel.ttir"))
        .output()
        .unwrap();
    assert!(text(&o).contains("T <= 8"), "{}", text(&o));
    for name in ["recurrence_loop_init", "recurrence_scan_swapped"] {
        let o = lift().arg(dir(name).join("kernel.ttir")).output().unwrap();
        let t = text(&o);
        assert!(
            !t.contains("= linear_recurrence(a, x, axis=1)\n"),
            "{name}:\n{t}"
        );
        assert!(!t.contains("VERIFIED for all"), "{name}:\n{t}");
    }
}

/// The scan whose combine composes the affine maps the wrong way round,
/// `(a1·a2, a1·b2 + b1)`, computes h[t] = (a[0]·…·a[t-1])·x[t] + h[t-1], not the
/// recurrence: REFUTED against the loop at both instances.
#[test]
fn swapped_combine_is_not_the_recurrence() {
    let fx = fixture("recurrence_scan_swapped");
    for inst in &fx.instance {
        let mut cmd = lift();
        cmd.arg("equiv")
            .arg(dir("recurrence_scan_swapped").join("kernel.ttir"))
            .arg(dir("recurrence_loop").join("kernel.ttir"));
        sized(&mut cmd, &inst.sizes);
        let o = cmd.output().unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(1), "{}:\n{t}", inst.name);
        assert!(t.contains("REFUTED"), "{}:\n{t}", inst.name);
    }
}

/// The loop that drops its state every 8 steps is the recurrence while T <= 8 (its
/// instances), and h[8] onwards is wrong: `equiv` with the correct loop is VERIFIED on
/// the instance and REFUTED at its bug sizes, and its own all-sizes verdict is REFUTED
/// at a size past 8 steps, never VERIFIED for all.
#[test]
fn recurrence_reset_twin_is_refuted_past_its_chunk() {
    let name = "recurrence_loop_reset";
    let fx = fixture(name);
    let bug = fx.bug_sizes.expect("the reset twin names its bug sizes");
    assert!(bug["T"] > 8);
    let kernel = dir(name).join("kernel.ttir");
    for (sizes, code) in [(&fx.instance[0].sizes, 0), (&bug, 1)] {
        let mut cmd = lift();
        cmd.arg("equiv")
            .arg(&kernel)
            .arg(dir("recurrence_loop").join("kernel.ttir"));
        sized(&mut cmd, sizes);
        let o = cmd.output().unwrap();
        assert_eq!(o.status.code(), Some(code), "{sizes:?}:\n{}", text(&o));
    }
    let o = lift().arg(&kernel).output().unwrap();
    let t = text(&o);
    assert!(!t.contains("VERIFIED for all"), "{t}");
    let at = t
        .split("REFUTED at ")
        .nth(1)
        .unwrap_or_else(|| panic!("not refuted:\n{t}"));
    let steps: i64 = at
        .split("T=")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("no T in the refutation:\n{t}"));
    assert!(steps > 8, "{t}");
}

/// The NumPy rendering of the lifted recurrence (its `linear_recurrence` helper a loop
/// over the axis) computes the generator's reference on its inputs.
#[test]
fn recurrence_numpy_rendering_runs_on_the_reference() {
    let Some(python) =
        crate::common::require_numpy("recurrence_numpy_rendering_runs_on_the_reference")
    else {
        return;
    };
    let name = "recurrence_loop";
    let o = lift()
        .arg(dir(name).join("kernel.ttir"))
        .args(["--format", "numpy"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let tmp = tempfile::tempdir().unwrap();
    let module = tmp.path().join("ref_kernel.py");
    std::fs::write(&module, &o.stdout).unwrap();
    let script = format!(
        r#"
import importlib.util, inspect, sys
import numpy as np
spec = importlib.util.spec_from_file_location("ref_kernel", {module:?})
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
fn = [f for n, f in vars(m).items() if inspect.isfunction(f) and n != "linear_recurrence"][0]
for inst in ["m3t5", "m2t4"]:
    d = {refs:?} + "/" + inst
    args = [np.load(d + "/" + p + ".npy").astype(np.float64) for p in inspect.signature(fn).parameters]
    got = fn(*args)
    want = np.load(d + "/expected/h.npy")
    assert np.allclose(got, want, rtol=1e-6, atol=1e-6), (inst, got, want)
print("ok")
"#,
        module = module.display().to_string(),
        refs = dir(name).join("ref").display().to_string(),
    );
    let o = std::process::Command::new(python)
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(
        o.status.success() && String::from_utf8_lossy(&o.stdout).contains("ok"),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}
