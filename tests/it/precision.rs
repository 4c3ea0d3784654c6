//! Arithmetic in the kernel's own float types (tests/precision/, Triton 3.9.0 IR; see
//! generate.py there). A running sum kept in f16 or bf16 is named in the verdict and,
//! by default, refuted at a size where its rounding leaves `torch.testing`'s tolerance;
//! the counterexample replays through `lift run --precision ieee`. The same mean with
//! an f32 accumulator is verified for every size. Under `--precision ieee`, an f32
//! `exp` that overflows where the reals do not is refuted, its correct twin verified.

use assert_cmd::Command;
use lift::check::{self, CheckOptions, Outcome};
use lift::npy::{self, Array};
use lift::Kernel;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const MEAN: &str = "y = torch.mean(x, dim=1)";
const SIGMOID_GRAD: &str = "y = torch.sigmoid(x) * (1 - torch.sigmoid(x))";

fn lift() -> Command {
    Command::cargo_bin("lift").unwrap()
}

fn kernel(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/precision")
        .join(format!("{name}.ttir"))
}

/// `lift check` through the binary: exit code and standard output.
fn check_cli(name: &str, spec: &str, extra: &[&str]) -> (i32, String) {
    let out = lift()
        .arg("check")
        .arg(kernel(name))
        .arg("--spec")
        .arg(spec)
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// `lift run` on `x`, the output `y`.
fn run(name: &str, x: &Path, ieee: bool) -> Array {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = lift();
    cmd.arg("run")
        .arg(kernel(name))
        .arg("--input")
        .arg(format!("x={}", x.display()))
        .arg("--out")
        .arg(dir.path());
    if ieee {
        cmd.args(["--precision", "ieee"]);
    }
    cmd.assert().success();
    npy::read(&dir.path().join("y.npy")).unwrap()
}

/// `torch.testing.assert_close`'s test with its default tolerances for `dtype`.
fn within_torch_tolerance(got: f64, want: f64, dtype: &str) -> bool {
    let (rtol, atol) = match dtype {
        "float16" => (1e-3, 1e-5),
        "bfloat16" => (1.6e-2, 1e-5),
        _ => (1.3e-6, 1e-5),
    };
    if !got.is_finite() || !want.is_finite() {
        return got == want;
    }
    (got - want).abs() <= atol + rtol * want.abs()
}

/// A row of ones of length `n` (`rows` rows), written as an f64 `.npy`.
fn ones(dir: &Path, rows: usize, n: usize) -> PathBuf {
    let path = dir.join("ones.npy");
    let a = Array {
        shape: vec![rows, n],
        data: vec![1.0; rows * n],
    };
    npy::write(&path, &a).unwrap();
    path
}

/// The kernels' arithmetic, independently of lift: each of the 4 lanes of a running
/// sum of ones stops at the type's last consecutive integer (2048 in f16, 256 in bf16),
/// so a row of 4·2·2048 (f16) or 4·2·256 (bf16) ones averages 0.5 on the GPU; in the
/// reals it is 1.
#[test]
fn a_running_sum_in_f16_or_bf16_stops_growing_under_ieee() {
    let dir = tempfile::tempdir().unwrap();
    for (name, last) in [("mean_f16", 2048), ("mean_bf16", 256)] {
        let x = ones(dir.path(), 2, 4 * 2 * last);
        assert_eq!(
            run(name, &x, true).data,
            vec![0.5, 0.5],
            "{name} under ieee"
        );
        assert_eq!(
            run(name, &x, false).data,
            vec![1.0, 1.0],
            "{name} in the reals"
        );
    }
    // The f32 accumulator counts on.
    let x = ones(dir.path(), 2, 4 * 2 * 2048);
    assert_eq!(run("mean_f16_f32acc", &x, true).data, vec![1.0, 1.0]);
}

/// By default: REFUTED (exit 1) at a size and input where the rounded mean leaves the
/// dtype's tolerance; the written inputs, replayed with `lift run --precision ieee`,
/// give a mean outside that tolerance of the rows' exact mean (computed here).
#[test]
fn running_sums_below_f32_are_refuted_by_default_and_replay() {
    for (name, dtype) in [("mean_f16", "float16"), ("mean_bf16", "bfloat16")] {
        let dir = tempfile::tempdir().unwrap();
        let cx = dir.path().join("cx");
        let (code, text) = check_cli(name, MEAN, &["--counterexample", cx.to_str().unwrap()]);
        assert_eq!(code, 1, "{name}: {text}");
        assert!(
            text.contains("REFUTED at M=") && text.contains("own precision"),
            "{name}: {text}"
        );
        let x_path = cx.join("x.npy");
        let x = npy::read(&x_path).unwrap();
        let n = x.shape[1];
        assert!(
            n > 8,
            "{name}: refuted at the launch's N={n}, not a grown size"
        );
        let y = run(name, &x_path, true);
        let outside = (0..x.shape[0]).any(|row| {
            let mean = x.data[row * n..(row + 1) * n].iter().sum::<f64>() / n as f64;
            !within_torch_tolerance(y.data[row], mean, dtype)
        });
        assert!(
            outside,
            "{name}: the replay {:?} is within tolerance",
            y.data
        );
        // In the reals the same inputs give the mean: the difference is the rounding.
        let real = run(name, &x_path, false);
        for row in 0..x.shape[0] {
            let mean = x.data[row * n..(row + 1) * n].iter().sum::<f64>() / n as f64;
            assert!(
                (real.data[row] - mean).abs() < 1e-12,
                "{name}: {:?}",
                real.data
            );
        }
    }
}

/// The verdict names every f16 step the proof reads as exact, with its kind and line.
#[test]
fn f16_arithmetic_is_named_in_the_verdict() {
    let k = Kernel::load(&kernel("mean_f16"), None).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let opts = CheckOptions::default();
    let r = check::check(&k, &inst, MEAN, &opts).unwrap();
    let find = |what: &str| {
        r.assumptions
            .iter()
            .find(|a| a.contains(what))
            .unwrap_or_else(|| panic!("no assumption with {what:?}: {:?}", r.assumptions))
            .clone()
    };
    assert!(find("running f16 value carried by a loop").contains("kernels.py:15"));
    assert!(find("reduction (`tt.reduce`) combining in f16").contains("kernels.py:16"));
    find("f16 rounding (`arith.truncf`)");
    // Under ieee they are rounded, so no longer assumed.
    let mut k = k;
    k.precision = lift::exec::domain::Precision::Ieee;
    let r = check::check(&k, &inst, MEAN, &opts).unwrap();
    assert!(
        !r.assumptions.iter().any(|a| a.contains("f16")),
        "{:?}",
        r.assumptions
    );
}

/// The controls: widened to f32, summed there, rounded once. Verified for every size;
/// the only rounding named is the final cast to the output's type.
#[test]
fn f32_accumulators_are_verified_for_all_sizes() {
    for (name, ty) in [("mean_f16_f32acc", "f16"), ("mean_bf16_f32acc", "bf16")] {
        let (code, text) = check_cli(name, MEAN, &[]);
        assert_eq!(code, 0, "{name}: {text}");
        assert!(text.contains("VERIFIED for all M, N"), "{name}: {text}");
        assert!(
            text.contains(&format!("assumes {ty} rounding (`arith.truncf`)")),
            "{name}: {text}"
        );
        assert!(!text.contains("additions"), "{name}: {text}");
    }
}

/// Under `--precision ieee`: `e^x / (1 + e^x)^2` is NaN above x = 88.7 in f32, where
/// the spec is 0; `s (1 - s)` is not. The replayed NaN is checked against the spec
/// computed here.
#[test]
fn f32_overflow_is_refuted_under_ieee_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let cx = dir.path().join("cx");
    let (code, text) = check_cli(
        "sigmoid_grad_naive",
        SIGMOID_GRAD,
        &[
            "--precision",
            "ieee",
            "--counterexample",
            cx.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 1, "{text}");
    let x_path = cx.join("x.npy");
    let x = npy::read(&x_path).unwrap();
    let y = run("sigmoid_grad_naive", &x_path, true);
    let bad = x.data.iter().zip(&y.data).any(|(&x, &y)| {
        let s = 1.0 / (1.0 + (-x).exp());
        let want = s * (1.0 - s);
        want.is_finite() && !within_torch_tolerance(y, want, "float32")
    });
    assert!(bad, "replay {:?} at {:?}", y.data, x.data);
    // The correct kernel stays verified under ieee.
    let (code, text) = check_cli("sigmoid_grad", SIGMOID_GRAD, &["--precision", "ieee"]);
    assert_eq!(code, 0, "{text}");
    // In the reals (the default) the two are equal: no overflow to see.
    let (code, text) = check_cli("sigmoid_grad_naive", SIGMOID_GRAD, &[]);
    assert_eq!(code, 0, "{text}");
}

/// The refutation's outcome through the library, with the point's sizes.
#[test]
fn the_report_carries_the_grown_sizes() {
    let k = Kernel::load(&kernel("mean_bf16"), None).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let r = check::check(&k, &inst, MEAN, &CheckOptions::default()).unwrap();
    assert_eq!(r.outcome, Outcome::Refuted);
    let found = r.rounding.as_ref().expect("a rounding finding");
    assert_eq!(found.dtype, "bfloat16");
    assert_eq!(found.sizes["M"], 2);
    assert!(
        found.sizes["N"] > 8 && found.sizes["N"] % 8 == 0,
        "{:?}",
        found.sizes
    );
    let (arrays, _) = r.counterexample_inputs(&inst, &BTreeMap::new());
    assert_eq!(arrays[0].1.shape, vec![2, found.sizes["N"] as usize]);
}

/// PTX (NVRTC, tests/precision/mean_f16_rows.cu): `add.f16` rounds under ieee like the
/// TTIR steps, so one thread's running sum of 4096 ones stops at 2048 and the mean is
/// 0.5 (1 in the reals); the verdict names the `add.f16` steps.
#[test]
fn ptx_f16_additions_round_under_ieee_and_are_named() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/precision/mean_f16_rows.ptx");
    let dir = tempfile::tempdir().unwrap();
    let x = ones(dir.path(), 1, 4096);
    for (ieee, want) in [(true, 0.5), (false, 1.0)] {
        let out = dir.path().join(format!("out-{ieee}"));
        let mut cmd = lift();
        cmd.arg("run")
            .arg(&path)
            .arg("--input")
            .arg(format!("x={}", x.display()))
            .arg("--out")
            .arg(&out);
        if ieee {
            cmd.args(["--precision", "ieee"]);
        }
        cmd.assert().success();
        let y = npy::read(&out.join("y.npy")).unwrap();
        assert_eq!(y.data, vec![want], "ieee = {ieee}");
    }
    let k = Kernel::load(&path, None).unwrap();
    assert!(
        k.assumptions()
            .iter()
            .any(|a| a.contains("f16 arithmetic (`add.f16`) read as exact")),
        "{:?}",
        k.assumptions()
    );
}
