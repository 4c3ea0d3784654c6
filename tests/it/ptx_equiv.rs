//! `equiv` across front ends and across PTX variants:
//! - Triton's PTX for the suite's elementwise, reduction, softmax and norm kernels is
//!   proved equal to the same kernel's TTIR, including where the PTX inlines a libdevice
//!   expansion (log, sin, cos, tanh, erf), which lift recognises as the function, and
//!   for matmul and attention, whose PTX loads tiles with `cp.async` and `ldmatrix`;
//! - every NVRTC variant under ptx/ gets its expected verdict against its family's
//!   reference variant: equivalent, refuted, a race naming the conflicting accesses, or
//!   a read of shared memory no write reached (a `cp.async` never waited for).

use lift::check::{self, CheckOptions, Outcome};
use lift::exec::ErrorKind;
use lift::{Error, Kernel};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

#[derive(Deserialize)]
struct Instance {
    name: String,
    sizes: BTreeMap<String, i64>,
}

#[derive(Deserialize)]
struct TritonFixture {
    instance: Vec<Instance>,
}

#[derive(Deserialize)]
struct PtxFixture {
    expect: String,
    equiv: String,
    #[serde(default)]
    reference: bool,
    /// The expected verdict waits for a decide feature (named here); until then UNKNOWN.
    #[serde(default)]
    pending: Option<String>,
    /// `expect = "unknown"`: what lift's UNKNOWN message must say.
    #[serde(default)]
    reason: Option<String>,
    /// `expect = "error"`: what loading the kernel fails with (recursion).
    #[serde(default)]
    error: Option<String>,
    instance: Vec<Instance>,
}

fn triton_pair(op: &str) -> (Kernel, Kernel, Vec<Instance>) {
    let dir = root().join("triton_ir").join(op);
    let launch = dir.join("kernel.launch.toml");
    let ttir = Kernel::load(&dir.join("kernel.ttir"), None).unwrap();
    let ptx = Kernel::load(&dir.join("kernel.ptx"), Some(&launch)).unwrap();
    let f: TritonFixture =
        toml::from_str(&std::fs::read_to_string(dir.join("fixture.toml")).unwrap()).unwrap();
    (ttir, ptx, f.instance)
}

#[test]
fn triton_ptx_is_proved_equal_to_its_ttir() {
    let ops = [
        "add",
        "sub",
        "mul",
        "div",
        "neg",
        "abs",
        "reciprocal",
        "zeros",
        "cat",
        "exp",
        "exp_native",
        "rsqrt",
        "relu",
        "leaky_relu",
        "square_relu",
        "sigmoid",
        "silu",
        "silu_mul",
        "swiglu",
        "sum",
        "sum_tree",
        "max",
        "softmax",
        "softmax_nomax",
        "softmax_looped",
        "softmax_online",
        "layer_norm",
        "layer_norm_welford",
        "rms_norm",
        // cp.async tile loads, ldmatrix reads.
        "matmul",
        "matmul_tiles",
        "attention_naive",
        "attention",
        // Wrong twins: their PTX is as wrong as their TTIR, so the pair is equal.
        "softmax_bug",
        "sum_bug",
        "leaky_relu_bug",
        "silu_bug",
        "exp_bug",
        "layer_norm_bug",
        "matmul_bug",
        "attention_bug",
    ];
    for op in ops {
        let (ttir, ptx, instances) = triton_pair(op);
        for inst in &instances {
            let r = check::equiv(&ttir, &ptx, &inst.sizes, &CheckOptions::default())
                .unwrap_or_else(|e| panic!("{op}/{}: {e}", inst.name));
            assert_eq!(
                r.outcome,
                Outcome::Verified,
                "{op}/{}:\n{}",
                inst.name,
                r.to_text()
            );
        }
    }
}

#[test]
fn libdevice_expansions_are_recognised_and_verified() {
    // The PTX inlines libdevice's expansions (__nv_logf, __nv_sinf, __nv_cosf,
    // __nv_tanhf, __nv_erff); lift recognises each one as exactly its probe's code
    // (src/ptx/libm.rs) and reads it as the function, so every pair verifies.
    for op in [
        "log",
        "sin",
        "cos",
        "tanh",
        "gelu",
        "gelu_bug",
        "gelu_mul",
        "log_softmax",
        "log_softmax_bug",
        "gelu_sigmoid",
    ] {
        let (ttir, ptx, instances) = triton_pair(op);
        for inst in &instances {
            let r = check::equiv(&ttir, &ptx, &inst.sizes, &CheckOptions::default())
                .unwrap_or_else(|e| panic!("{op}/{}: {e}", inst.name));
            assert_eq!(
                r.outcome,
                Outcome::Verified,
                "{op}/{}:\n{}",
                inst.name,
                r.to_text()
            );
        }
    }
}

#[test]
fn libdevice_twin_ptx_is_refuted() {
    // gelu_bug's PTX against gelu's TTIR: the recognised tanh does not hide the bug.
    let (gelu, _, instances) = triton_pair("gelu");
    let (_, bug, _) = triton_pair("gelu_bug");
    let r = check::equiv(&gelu, &bug, &instances[0].sizes, &CheckOptions::default()).unwrap();
    assert_eq!(r.outcome, Outcome::Refuted, "{}", r.to_text());
}

#[test]
fn twin_ptx_is_refuted_against_the_correct_ptx() {
    for (op, twin) in [
        ("softmax", "softmax_bug"),
        ("sum", "sum_bug"),
        ("leaky_relu", "leaky_relu_bug"),
        ("matmul", "matmul_bug"),
        ("attention", "attention_bug"),
    ] {
        let (_, good, instances) = triton_pair(op);
        let (_, bad, _) = triton_pair(twin);
        let r = check::equiv(&good, &bad, &instances[0].sizes, &CheckOptions::default()).unwrap();
        assert_eq!(r.outcome, Outcome::Refuted, "{twin}:\n{}", r.to_text());
    }
}

#[test]
fn async_copy_twin_ptx_is_refuted_against_the_correct_ttir() {
    for (op, twin) in [("matmul", "matmul_bug"), ("attention", "attention_bug")] {
        let (good, _, instances) = triton_pair(op);
        let (_, bad, _) = triton_pair(twin);
        for inst in &instances {
            let r = check::equiv(&good, &bad, &inst.sizes, &CheckOptions::default()).unwrap();
            assert_eq!(
                r.outcome,
                Outcome::Refuted,
                "{twin}/{}:\n{}",
                inst.name,
                r.to_text()
            );
        }
    }
}

fn ptx_fixtures() -> Vec<(PathBuf, PtxFixture)> {
    let mut out = Vec::new();
    for family in std::fs::read_dir(root().join("ptx")).unwrap() {
        let family = family.unwrap().path();
        if !family.is_dir() {
            continue;
        }
        // Issue 16's scale kernels (128 x 128 SGEMM, flash attention, cooperative-groups
        // sums) are checked by tests/ptx_scale_kernels.rs at the instances their cost
        // allows (some twins are wrong only from two key tiles on).
        if family.ends_with("sgemm")
            || family.ends_with("flash_attn")
            || family.ends_with("reduce_cg")
        {
            continue;
        }
        for entry in std::fs::read_dir(&family).unwrap() {
            let p = entry.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if let Some(variant) = name.strip_suffix(".fixture.toml") {
                let f: PtxFixture = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
                out.push((family.join(format!("{variant}.ptx")), f));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(out.len() >= 15, "only {} PTX fixtures", out.len());
    out
}

#[test]
fn nvrtc_variants_get_their_expected_verdicts() {
    // CUDA's accurate `expf` (2^j built from float bits) is recognised as exp by
    // src/ptx/libm.rs, so every variant gets its verdict.
    let known_unknown: [&str; 0] = [];
    let mut verdicts = 0;
    for (path, f) in ptx_fixtures() {
        if f.reference {
            continue;
        }
        let variant = path.file_stem().unwrap().to_string_lossy().into_owned();
        // A kernel lift refuses to read (ptx/calls/recursive): the error it names.
        if f.expect == "error" {
            let e = Kernel::load(&path, None)
                .err()
                .expect("an error fixture fails to load");
            let want = f
                .error
                .as_deref()
                .expect("an error fixture names its error");
            assert!(e.to_string().contains(want), "{variant}: {e}");
            continue;
        }
        let reference =
            Kernel::load(&path.with_file_name(format!("{}.ptx", f.equiv)), None).unwrap();
        let kernel = Kernel::load(&path, None).unwrap();
        for inst in &f.instance {
            let result = check::equiv(&reference, &kernel, &inst.sizes, &CheckOptions::default());
            let what = format!("{variant}/{}", inst.name);
            match (f.expect.as_str(), result) {
                ("race", Err(Error::Exec { err, .. })) => {
                    assert_eq!(err.kind, ErrorKind::Race, "{what}: {err}");
                    assert!(
                        err.message.contains("data race") && err.message.contains("thread ("),
                        "{what}: {err}"
                    );
                }
                ("race", Ok(r)) => panic!("{what}: no race reported:\n{}", r.to_text()),
                ("deadlock", Err(Error::Exec { err, .. })) => {
                    assert_eq!(err.kind, ErrorKind::Deadlock, "{what}: {err}")
                }
                ("deadlock", Ok(r)) => panic!("{what}: no deadlock reported:\n{}", r.to_text()),
                ("unwritten", Err(Error::Exec { err, .. })) => {
                    assert_eq!(err.kind, ErrorKind::NeverWritten, "{what}: {err}")
                }
                ("unwritten", Ok(r)) => panic!("{what}: no unwritten read:\n{}", r.to_text()),
                ("trap", Err(Error::Exec { err, .. })) => {
                    assert_eq!(err.kind, ErrorKind::Trap, "{what}: {err}");
                    assert!(err.message.contains("`trap` at line"), "{what}: {err}");
                }
                ("trap", Ok(r)) => panic!("{what}: no trap reported:\n{}", r.to_text()),
                // A gather whose declared index values reach outside the tensor (the
                // message names the input: " when "), or an access past the end for
                // every input (it names the element and the tensor's extent).
                ("oob", Err(Error::Exec { err, .. })) => {
                    assert_eq!(err.kind, ErrorKind::OutOfBounds, "{what}: {err}");
                    assert!(
                        err.message.contains(" when ") || err.message.contains("outside its"),
                        "{what}: {err}"
                    );
                }
                ("oob", Ok(r)) => panic!("{what}: no out-of-bounds access:\n{}", r.to_text()),
                // Honest UNKNOWN (exit 3) with the reason the fixture names, never a verdict.
                ("unknown", Err(e)) => {
                    assert_eq!(e.exit_code(), 3, "{what}: {e}");
                    let reason = f.reason.as_deref().expect("unknown fixture names a reason");
                    assert!(e.to_string().contains(reason), "{what}: {e}");
                }
                ("unknown", Ok(r)) => panic!("{what}: decided, want UNKNOWN:\n{}", r.to_text()),
                (_, Err(e)) if known_unknown.contains(&variant.as_str()) => {
                    assert_eq!(e.exit_code(), 3, "{what}: {e}")
                }
                (_, Err(e)) => panic!("{what}: {e}"),
                (_, Ok(r)) if f.pending.is_some() => assert_eq!(
                    r.outcome,
                    Outcome::Unknown,
                    "{what}: pending ({}) but decided; drop `pending`:\n{}",
                    f.pending.as_deref().unwrap(),
                    r.to_text()
                ),
                ("equivalent", Ok(r)) => {
                    assert_eq!(r.outcome, Outcome::Verified, "{what}:\n{}", r.to_text())
                }
                ("refuted", Ok(r)) => {
                    assert_eq!(r.outcome, Outcome::Refuted, "{what}:\n{}", r.to_text())
                }
                (other, _) => panic!("{what}: unknown expectation {other}"),
            }
            verdicts += 1;
        }
    }
    assert!(verdicts >= 28, "only {verdicts} verdicts");
}

#[test]
fn ptx_counterexamples_replay_through_a_concrete_run() {
    for (family, reference, wrong) in [
        ("matmul", "naive", "wrong_bound"),
        ("softmax", "warp_shuffle", "wrong_shuffle_offset"),
        // stores under a data-dependent branch: if/else relu vs the leaky twin
        ("relu", "ifelse", "leaky_twin"),
    ] {
        let dir = root().join("ptx").join(family);
        let good = Kernel::load(&dir.join(format!("{reference}.ptx")), None).unwrap();
        let bad = Kernel::load(&dir.join(format!("{wrong}.ptx")), None).unwrap();
        let sizes = BTreeMap::new();
        let r = check::equiv(&good, &bad, &sizes, &CheckOptions::default()).unwrap();
        assert_eq!(r.outcome, Outcome::Refuted, "{wrong}:\n{}", r.to_text());
        let cx = r.counterexample.as_ref().unwrap();
        let (Some(left), Some(right)) = (cx.left, cx.right) else {
            panic!("{wrong}: no values")
        };
        // Both kernels, run concretely on the counterexample's whole inputs, give the
        // two reported values at the reported element.
        let inst = good.instance(&r.sizes).unwrap();
        let (arrays, scalars) = r.counterexample_inputs(&inst, &BTreeMap::new());
        let arrays: BTreeMap<_, _> = arrays.into_iter().collect();
        for (kernel, want) in [(&good, left), (&bad, right)] {
            let i = kernel.instance(&r.sizes).unwrap();
            let run = kernel.run(&i, &arrays, &scalars).unwrap();
            let out = &run.outputs.iter().find(|(n, _)| n == &cx.tensor).unwrap().1;
            let flat = cx
                .index
                .iter()
                .zip(&out.shape)
                .fold(0, |acc, (&x, &d)| acc * d + x);
            let got = out.data[flat];
            assert!(
                (got - want).abs() <= 1e-6 * (1.0 + want.abs()),
                "{wrong}: replay gives {got}, report says {want}"
            );
        }
        assert!(
            (left - right).abs() > 1e-6 * (1.0 + left.abs()),
            "{wrong}: values agree"
        );
    }
}
