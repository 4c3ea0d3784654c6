//! Launch inference on compiler-made kernels: a suite kernel copied without its launch
//! gets the launch its generator wrote (up to size names), verdicts follow, inference
//! that cannot work says so, and `--write-launch` never overwrites.

use assert_cmd::Command;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn lift() -> Command {
    Command::cargo_bin("lift").unwrap()
}

/// Copy `dir/kernel.ttir` alone into a fresh temporary folder.
fn bare(dir: &str) -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let k = t.path().join("kernel.ttir");
    std::fs::copy(Path::new(dir).join("kernel.ttir"), &k).unwrap();
    (t, k)
}

/// The launch `--write-launch` writes, as TOML.
fn inferred(dir: &str) -> toml::Value {
    let (_t, k) = bare(dir);
    lift()
        .args(["spec", k.to_str().unwrap(), "--write-launch"])
        .assert()
        .success();
    let text = std::fs::read_to_string(k.with_extension("launch.toml")).unwrap();
    text.parse().unwrap()
}

fn committed(dir: &str) -> toml::Value {
    std::fs::read_to_string(Path::new(dir).join("kernel.launch.toml"))
        .unwrap()
        .parse()
        .unwrap()
}

/// Grid, tensor shapes and roles, integer bindings equal; real arguments bound.
fn assert_same_launch(dir: &str) {
    let (a, b) = (committed(dir), inferred(dir));
    // Up to the case of size names (a generator may call the length `n`, inference `N`).
    let s = |v: &toml::Value| v.to_string().replace(' ', "").to_lowercase();
    assert_eq!(s(&a["grid"]), s(&b["grid"]), "{dir}: grid");
    let (aa, ba) = (a["args"].as_table().unwrap(), b["args"].as_table().unwrap());
    assert_eq!(
        aa.keys().collect::<Vec<_>>(),
        ba.keys().collect::<Vec<_>>(),
        "{dir}: args"
    );
    for (k, v) in aa {
        let w = &ba[k];
        match v.get("tensor") {
            Some(_) => {
                assert_eq!(s(&v["shape"]), s(&w["shape"]), "{dir}: shape of {k}");
                let role = |x: &toml::Value| x.get("role").map(s).unwrap_or("\"in\"".into());
                assert_eq!(role(v), role(w), "{dir}: role of {k}");
            }
            None if v.is_table() => assert!(w.is_table(), "{dir}: {k} is a real argument"),
            None => assert_eq!(s(v), s(w), "{dir}: {k}"),
        }
    }
}

#[test]
fn inference_reproduces_the_generators_launches() {
    for dir in [
        "triton_ir/add",
        "triton_ir/exp",
        "triton_ir/gelu",
        "triton_ir/softmax",
        "triton_ir/log_softmax",
        "triton_ir/layer_norm",
        "triton_ir/rms_norm",
        "triton_ir/sum",
        "triton_ir/softmax_looped",
        "triton_ir/relu_flag",
        // Four rows per program, eight columns per row block: a grid of eight rows per
        // program also covers every row while one program does (it did, at M = 4).
        "triton_ir/sum_noother",
        "corpus/liger_rms_norm_llama",
        "corpus/liger_swiglu_tiled",
        "corpus/liger_dyt",
        "corpus/unsloth_swiglu",
        "corpus/unsloth_rms_layernorm",
    ] {
        assert_same_launch(dir);
    }
}

#[test]
fn check_with_the_inferred_launch_gives_the_fixtures_verdict() {
    for (dir, spec, verdict) in [
        (
            "triton_ir/softmax",
            "y = torch.softmax(x, dim=-1)",
            "VERIFIED",
        ),
        (
            "triton_ir/softmax_bug",
            "y = torch.softmax(x, dim=-1)",
            "REFUTED",
        ),
        ("triton_ir/add", "z = x + y", "VERIFIED"),
    ] {
        let (_t, k) = bare(dir);
        let out = lift()
            .args([
                "check",
                k.to_str().unwrap(),
                "--spec",
                spec,
                "--scope",
                "instance",
            ])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stdout.contains(verdict), "{dir}: {stdout}\n{stderr}");
        assert!(stderr.contains("inferred this launch"), "{dir}: {stderr}");
    }
}

#[test]
fn the_printed_launch_is_the_launch_file_format() {
    let (_t, k) = bare("triton_ir/softmax");
    let out = lift().args(["spec", k.to_str().unwrap()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let printed: String = stderr
        .lines()
        .skip_while(|l| !l.contains("inferred this launch"))
        .skip(1)
        .take_while(|l| l.starts_with("  ") || l.is_empty())
        .map(|l| format!("{}\n", l.trim_start()))
        .collect();
    insta::assert_snapshot!(printed);
}

#[test]
fn a_kernel_inference_cannot_fit_is_a_clear_error() {
    let (_t, k) = bare("triton_ir/matmul");
    let out = lift().args(["spec", k.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("none could be inferred"), "{stderr}");
    assert!(
        stderr.contains("`stride_am`"),
        "names the parameters: {stderr}"
    );
    assert!(stderr.contains("--launch FILE"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn write_launch_never_overwrites() {
    let (_t, k) = bare("triton_ir/add");
    lift()
        .args(["spec", k.to_str().unwrap(), "--write-launch"])
        .assert()
        .success();
    let out = lift()
        .args(["spec", k.to_str().unwrap(), "--write-launch"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not overwriting"));
}

#[test]
fn equiv_uses_the_first_launch_for_a_second_kernel_without_one() {
    let (_t, k) = bare("triton_ir/softmax");
    let out = lift()
        .args([
            "equiv",
            "triton_ir/softmax/kernel.ttir",
            k.to_str().unwrap(),
            "--launch",
            "triton_ir/softmax/kernel.launch.toml",
            "--scope",
            "instance",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("VERIFIED"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("for it too"));
}

// ---------------------------------------------------------------------------------------
// PTX kernels (NVRTC-made, from ptx/): no parameter names, so inference reads types,
// uses and probe runs.

/// Copy `ptx/<kernel>.ptx` alone into a fresh temporary folder.
fn bare_ptx(kernel: &str) -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let src = Path::new("ptx").join(format!("{kernel}.ptx"));
    let k = t.path().join(src.file_name().unwrap());
    std::fs::copy(&src, &k).unwrap();
    (t, k)
}

/// The committed, hand-written launch and fixture beside `ptx/<kernel>.ptx`.
fn ptx_toml(kernel: &str, what: &str) -> toml::Value {
    std::fs::read_to_string(format!("ptx/{kernel}.{what}.toml"))
        .unwrap()
        .parse()
        .unwrap()
}

/// `lift run` of `kernel` on the `.npy` inputs in `inst`: every output, by tensor name.
fn run_outputs(kernel: &Path, inst: &Path) -> BTreeMap<String, lift::npy::Array> {
    let out = tempfile::tempdir().unwrap();
    let mut cmd = lift();
    cmd.arg("run").arg(kernel).arg("--out").arg(out.path());
    for e in std::fs::read_dir(inst).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "npy") {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            cmd.arg("--input").arg(format!("{name}={}", p.display()));
        }
    }
    let res = cmd.output().unwrap();
    assert!(
        res.status.success(),
        "lift run {}: {}",
        kernel.display(),
        String::from_utf8_lossy(&res.stderr)
    );
    std::fs::read_dir(out.path())
        .unwrap()
        .flatten()
        .map(|e| {
            let p = e.path();
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, lift::npy::read(&p).unwrap())
        })
        .collect()
}

fn close(a: &lift::npy::Array, b: &lift::npy::Array, tol: f64) -> bool {
    a.shape == b.shape
        && a.data
            .iter()
            .zip(&b.data)
            .all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
}

/// Elementwise, one CTA per row (rows of exactly one block, and rows longer than the
/// block), one thread per row: the inferred launch has the committed launch's block and
/// grid, and `lift run` under it gives the committed launch's outputs and the NumPy
/// reference outputs on every reference instance. (`f64_poly/vec2` takes two elements
/// per thread: its committed grid launches twice the threads it needs.)
#[test]
fn ptx_inferred_launches_run_like_the_committed_ones() {
    for (kernel, family) in [
        ("relu/ifelse", "elementwise"),
        ("sigmoid/neg_exp", "elementwise"),
        ("gelu/tanh", "elementwise"),
        ("softplus/threshold", "elementwise"),
        ("f64_poly/vec2", "elementwise, 2 elements per thread"),
        ("softmax/naive_smem", "one CTA per row, constant row length"),
        ("softmax/online", "one CTA per row"),
        ("softmax/warp_shuffle", "one CTA per row"),
        ("argmax/first", "one thread per row"),
        ("l2norm/eps", "one thread per row"),
    ] {
        let (_t, k) = bare_ptx(kernel);
        let out = lift()
            .args(["spec", k.to_str().unwrap(), "--write-launch"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let note = format!("inferred this launch ({family};");
        assert!(stderr.contains(&note), "{kernel}: {stderr}");
        let inferred: toml::Value = std::fs::read_to_string(k.with_extension("launch.toml"))
            .unwrap()
            .parse()
            .unwrap();
        let committed = ptx_toml(kernel, "launch");
        for key in ["block", "grid"] {
            if kernel == "f64_poly/vec2" && key == "grid" {
                assert_eq!(inferred[key].to_string(), "[\"cdiv(N, 64)\"]");
                continue;
            }
            assert_eq!(inferred[key], committed[key], "{kernel}: {key}");
        }
        let refs = Path::new("ptx").join(kernel).parent().unwrap().join("ref");
        let mut instances = 0;
        for inst in std::fs::read_dir(&refs).unwrap().flatten() {
            let inst = inst.path();
            let ours = run_outputs(&k, &inst);
            let theirs = run_outputs(&Path::new("ptx").join(format!("{kernel}.ptx")), &inst);
            assert_eq!(
                ours.keys().collect::<Vec<_>>(),
                theirs.keys().collect::<Vec<_>>(),
                "{kernel}: output tensors"
            );
            // The reference data is the family's reference, which only some variants
            // compute.
            let reference = ptx_toml(kernel, "fixture")["expect"].as_str() == Some("equivalent");
            for (name, a) in &ours {
                assert!(close(a, &theirs[name], 1e-6), "{kernel} {inst:?}: `{name}`");
                if !reference {
                    continue;
                }
                let want =
                    lift::npy::read(&inst.join("expected").join(format!("{name}.npy"))).unwrap();
                assert!(
                    close(a, &want, 1e-4),
                    "{kernel} {inst:?}: `{name}` vs NumPy"
                );
            }
            instances += 1;
        }
        assert!(instances >= 2, "{kernel}: {instances} reference instances");
    }
}

/// `lift check` under the inferred launch gives each fixture's verdict: its `[[check]]`
/// tables, else its `spec` and `expect` (the wrong twins: refuted, or a race).
#[test]
fn ptx_check_with_the_inferred_launch_gives_the_fixtures_verdicts() {
    let mut checks = 0;
    for kernel in [
        "relu/ifelse",
        "relu/leaky_twin",
        "sigmoid/neg_exp",
        "sigmoid/wrong_sign",
        "argmax/first",
        "argmax/argmin",
        "l2norm/eps",
        "softmax/naive_smem",
        "softmax/wrong_shuffle_offset",
        "softmax/missing_barrier",
    ] {
        let fx = ptx_toml(kernel, "fixture");
        let mut cases: Vec<(String, String)> = Vec::new();
        for c in fx
            .get("check")
            .and_then(|c| c.as_array())
            .into_iter()
            .flatten()
        {
            if c.get("pending").is_none() {
                let spec = c["spec"].as_str().unwrap().to_string();
                cases.push((spec, c["verdict"].as_str().unwrap().to_uppercase()));
            }
        }
        if cases.is_empty() {
            let verdict = match fx["expect"].as_str().unwrap() {
                "equivalent" => "VERIFIED".to_string(),
                other => other.to_uppercase(),
            };
            cases.push((fx["spec"].as_str().unwrap().to_string(), verdict));
        }
        let (_t, k) = bare_ptx(kernel);
        for (spec, verdict) in cases {
            let out = lift()
                .args(["check", k.to_str().unwrap(), "--spec", &spec])
                .args(["--scope", "instance"])
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stdout.lines().any(|l| l.starts_with(&verdict)),
                "{kernel} vs `{spec}`: want {verdict}\n{stdout}\n{stderr}"
            );
            assert!(
                stderr.contains("inferred this launch"),
                "{kernel}: {stderr}"
            );
            checks += 1;
        }
    }
    assert!(checks >= 14, "only {checks} checks");
}

/// Kernels no family fits: a struct passed by value, a 2-D kernel, flash attention's
/// several sizes. A clear error (exit 2) that says why and how to write a launch.
#[test]
fn a_ptx_kernel_inference_cannot_fit_is_a_clear_error() {
    for (kernel, why) in [
        ("struct_args/scale", "struct passed by value"),
        ("matmul/naive", "2-D launch"),
        ("flash_attn/naive", "tried one CTA per row"),
    ] {
        let (_t, k) = bare_ptx(kernel);
        let out = lift().args(["spec", k.to_str().unwrap()]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{kernel}: {stderr}");
        assert!(
            stderr.contains("none could be inferred"),
            "{kernel}: {stderr}"
        );
        assert!(stderr.contains(why), "{kernel}: {stderr}");
        assert!(stderr.contains("--launch FILE"), "{kernel}: {stderr}");
        assert!(!stderr.contains("panicked"), "{kernel}: {stderr}");
    }
}

/// A read of an output element never written names its tensor in the error itself
/// (`ExecError::unwritten`), so settling roles (the Python package makes that tensor
/// `inout`) reads no message text. `err_unwritten` reads `y` before writing it.
#[test]
fn a_read_of_an_unwritten_output_names_its_tensor() {
    let k = lift::Kernel::load(Path::new("triton_ir/err_unwritten/kernel.ttir"), None).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let y = inst.tensors.iter().position(|t| t.name == "y").unwrap();
    let mut d = lift::exec::addresses::AddressOnly::default();
    match k.execute(&inst, &mut d) {
        Err(lift::Error::Exec { err, .. }) => {
            assert_eq!(err.kind, lift::exec::ErrorKind::NeverWritten, "{err}");
            assert_eq!(err.unwritten, Some(y), "{err}");
        }
        other => panic!("expected a read of never-written y, got {other:?}"),
    }
    // Any other error names no tensor: an out-of-bounds load.
    let k = lift::Kernel::load(Path::new("triton_ir/err_oob/kernel.ttir"), None).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    match k.execute(&inst, &mut lift::exec::addresses::AddressOnly::default()) {
        Err(lift::Error::Exec { err, .. }) => assert_eq!(err.unwritten, None, "{err}"),
        other => panic!("expected an out-of-bounds load, got {other:?}"),
    }
}
