//! Launch inference on compiler-made kernels: a suite kernel copied without its launch
//! gets the launch its generator wrote (up to size names), verdicts follow, inference
//! that cannot work says so, and `--write-launch` never overwrites.

use assert_cmd::Command;
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
