//! The libm probes (ptx/libm/, src/ptx/libm.rs): each probe's PTX, run by the
//! *concrete* executor, computes its function within a few f32 ulps at ~1000 points
//! (tiny, huge, negative; |x| > 105615 for sin/cos's Payne-Hanek path) — what
//! justifies reading the code as the function. And only the exact code is read so:
//! one changed coefficient leaves the pair unknown (never verified, never refuted).

use lift::check::{self, CheckOptions, Outcome};
use lift::exec::domain::Concrete;
use lift::ptx::libm::{probes, Meaning};
use lift::term::Func;
use lift::Kernel;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Points: a log-spaced sweep of magnitudes (both signs where the function is defined
/// there) plus the edges of each function's code paths; all f32 values, kept where the
/// exact value is a normal f32 (no overflow to inf, no underflow).
fn points(m: Meaning) -> Vec<f32> {
    let mut v = Vec::new();
    let positive = matches!(
        m,
        Meaning::Func(Func::Log | Func::Log2 | Func::Sqrt) | Meaning::Log1p | Meaning::PowRat(..)
    );
    let (lo, hi) = match m {
        Meaning::Func(Func::Log | Func::Log2 | Func::Sqrt) => (-40.0f64, 38.0),
        Meaning::Log1p => (-30.0, 38.0),
        Meaning::Func(Func::Exp) | Meaning::Expm1 => (-30.0, 1.9),
        Meaning::Func(Func::Sin | Func::Cos) => (-30.0, 20.0),
        Meaning::Erfc => (-30.0, 0.95),
        Meaning::Powi(3) => (-12.0, 12.0),
        Meaning::PowRat(..) => (-14.0, 14.0),
        Meaning::Powi(_) => (-18.0, 18.0),
        _ => (-30.0, 9.0),
    };
    for i in 0..480 {
        let e = lo + (hi - lo) * i as f64 / 479.0;
        let x = 10f64.powf(e) as f32;
        v.push(x);
        if !positive {
            v.push(-x);
        }
    }
    for x in [
        105614.0f32,
        105616.0,
        1e6,
        123456.78,
        3e7,
        1.5e38,
        0.6,
        9.0,
        1.0,
        0.5,
        2.0,
    ] {
        v.push(x);
        if !positive {
            v.push(-x);
        }
    }
    if m == Meaning::Log1p {
        // log1p is defined above -1: its small negative arguments.
        v.extend([-0.5f32, -0.9, -0.999, -1e-3, -1e-8, -0.3]);
    }
    v.retain(|&x| {
        let y = m.eval(x as f64).abs();
        y.is_finite() && y < f32::MAX as f64 && (y == 0.0 || y >= f32::MIN_POSITIVE as f64)
    });
    v
}

#[test]
fn probes_compute_their_functions() {
    for p in probes() {
        let xs = points(p.meaning);
        let mut inst = p.instance().clone();
        let mut worst: f64 = 0.0;
        for &x in &xs {
            let mut d = Concrete {
                data: inst
                    .tensors
                    .iter()
                    .map(|t| (t.name == "x").then(|| vec![x as f64]))
                    .collect(),
                scalars: BTreeMap::new(),
                precision: Default::default(),
                values_only: false,
            };
            inst.block = [1, 1, 1];
            let run = lift::ptx::execute(p.module(), &inst, p.arg_order(), &mut d)
                .unwrap_or_else(|e| panic!("{} at {x}: {e}", p.name));
            let y = run.outputs.iter().find(|o| o.name == "y").unwrap().elems[0].unwrap();
            let want = p.meaning.eval(x as f64);
            // Error in f32 ulps of the exact value (absolute near zero crossings:
            // sin/cos of huge arguments are as exact as their reduction).
            let ulp = (want.abs().max(f32::MIN_POSITIVE as f64) * f32::EPSILON as f64).max(
                if matches!(p.meaning, Meaning::Func(Func::Sin | Func::Cos)) {
                    1e-7
                } else {
                    0.0
                },
            );
            let err = (y - want).abs() / ulp;
            assert!(
                err <= 4.0,
                "{}({x}) = {y}, exact {want}: {err:.1} ulps",
                p.name
            );
            worst = worst.max(err);
        }
        eprintln!("{}: {} points, worst {worst:.2} ulps", p.name, xs.len());
        assert!(xs.len() >= 400, "{}: only {} points", p.name, xs.len());
    }
}

fn equiv_with_mutated_ptx(op: &str, from: &str, to: &str) -> Outcome {
    let dir = root().join("triton_ir").join(op);
    let text = std::fs::read_to_string(dir.join("kernel.ptx")).unwrap();
    assert_eq!(
        text.matches(from).count(),
        1,
        "{op}: {from} must occur once"
    );
    let tmp = std::env::temp_dir().join(format!("lift-libm-{op}-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::write(tmp.join("kernel.ptx"), text.replace(from, to)).unwrap();
    std::fs::copy(
        dir.join("kernel.launch.toml"),
        tmp.join("kernel.launch.toml"),
    )
    .unwrap();
    let ttir = Kernel::load(&dir.join("kernel.ttir"), None).unwrap();
    let ptx = Kernel::load(&tmp.join("kernel.ptx"), None).unwrap();
    let sizes = BTreeMap::from([("N".to_string(), 8)]);
    let out = check::equiv(&ttir, &ptx, &sizes, &CheckOptions::default())
        .map(|r| r.outcome)
        .unwrap_or(Outcome::Unknown);
    std::fs::remove_dir_all(&tmp).ok();
    out
}

#[test]
fn a_tampered_log_expansion_is_unknown() {
    // One coefficient of __nv_logf's polynomial, changed in its last bit.
    assert_eq!(
        equiv_with_mutated_ptx("log", "0f3E1039F6", "0f3E1039F7"),
        Outcome::Unknown
    );
}

#[test]
fn a_tampered_tanh_expansion_is_unknown() {
    // A coefficient of __nv_tanhf's small-|x| polynomial, changed in its last bit.
    assert_eq!(
        equiv_with_mutated_ptx("tanh", "0fBD563CAE", "0fBD563CAF"),
        Outcome::Unknown
    );
}

/// `src/ptx/libm/fingerprints.txt` (the probes' prefilter data, precomputed so that a
/// PTX command does not run every probe five times at start-up) is what the probes
/// measure now: a change to the executor or the term constructors must regenerate it
/// (`LIFT_BLESS=1` rewrites it), or recognition would try other arguments than a
/// fresh measurement does.
#[test]
fn stored_fingerprints_are_current() {
    let now = lift::ptx::libm::measured_fingerprints();
    if std::env::var_os("LIFT_BLESS").is_some() {
        std::fs::write(root().join("src/ptx/libm/fingerprints.txt"), &now).unwrap();
    } else {
        assert!(
            now == lift::ptx::libm::STORED_FINGERPRINTS,
            "src/ptx/libm/fingerprints.txt is stale: rerun this test with LIFT_BLESS=1"
        );
    }
}
