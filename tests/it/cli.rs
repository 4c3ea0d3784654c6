//! The `lift` binary end to end: `lift run` on every reference instance, `lift spec`
//! output, and the errors a user sees for bad input.

use crate::common;

use assert_cmd::Command;
use common::{first_mismatch, fixtures};

fn lift() -> Command {
    Command::cargo_bin("lift").unwrap()
}

#[test]
fn lift_run_reproduces_every_reference_output() {
    let out_root = tempfile::tempdir().unwrap();
    let mut runs = 0;
    for f in fixtures().iter().filter(|f| f.meta.expect == "verified") {
        for inst in &f.meta.instance {
            let out = out_root.path().join(format!("{}-{}", f.name(), inst.name));
            let mut cmd = lift();
            cmd.arg("run").arg(f.kernel()).arg("--out").arg(&out);
            for (name, path) in f.input_paths(inst) {
                cmd.arg("--input").arg(format!("{name}={}", path.display()));
            }
            for (name, v) in &inst.scalars {
                cmd.arg("--scalar").arg(format!("{name}={v}"));
            }
            // Sizes that no input determines (e.g. `zeros`) come from the instance.
            for (name, v) in &inst.sizes {
                cmd.arg("--size").arg(format!("{name}={v}"));
            }
            cmd.assert().success();
            for (name, want) in f.expected(inst) {
                let got = lift::npy::read(&out.join(format!("{name}.npy"))).unwrap();
                if let Some(m) = first_mismatch(&got, &want, 1e-5, 1e-8) {
                    panic!("{}/{}: {name}: {m}", f.name(), inst.name);
                }
            }
            runs += 1;
        }
    }
    assert!(runs >= 66, "only {runs} runs");
}

#[test]
fn lift_run_reads_sizes_off_the_inputs() {
    // No --size: the ragged instance's sizes must come from x.npy's shape.
    let f = fixtures()
        .into_iter()
        .find(|f| f.name() == "softmax")
        .unwrap();
    let inst = f.meta.instance.iter().find(|i| i.name == "ragged").unwrap();
    let out = tempfile::tempdir().unwrap();
    let (name, path) = &f.input_paths(inst)[0];
    lift()
        .arg("run")
        .arg(f.kernel())
        .arg("--input")
        .arg(format!("{name}={}", path.display()))
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    let got = lift::npy::read(&out.path().join("y.npy")).unwrap();
    let want = &f.expected(inst)["y"];
    assert_eq!(first_mismatch(&got, want, 1e-5, 1e-8), None);
}

#[test]
fn lift_spec_prints_one_term_per_element() {
    let f = fixtures().into_iter().find(|f| f.name() == "add").unwrap();
    let out = lift()
        .arg("spec")
        .arg(f.kernel())
        .arg("--size")
        .arg("N=5")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    insta::assert_snapshot!("spec_add_n5", String::from_utf8(out.stdout).unwrap());
}

#[test]
fn lift_spec_json_has_the_stable_schema() {
    let f = fixtures()
        .into_iter()
        .find(|f| f.name() == "softmax")
        .unwrap();
    let out = lift()
        .args(["spec", "--format", "json", "--size", "M=1", "--size", "N=3"])
        .arg(f.kernel())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "lift.spec/1");
    assert_eq!(v["sizes"]["N"], 3);
    let y = &v["outputs"][0];
    assert_eq!(y["tensor"], "y");
    assert_eq!(y["shape"], serde_json::json!([1, 3]));
    let elems = y["elements"].as_array().unwrap();
    assert_eq!(elems.len(), 3);
    assert_eq!(elems[2]["index"], serde_json::json!([0, 2]));
    let term = elems[2]["term"].as_str().unwrap();
    assert!(term.contains("exp") && term.contains("x[0,2]"), "{term}");
    assert!(elems[2]["source"]["python"]
        .as_str()
        .unwrap()
        .contains("softmax/kernel.py:"));
}

#[test]
fn missing_launch_is_inferred_and_said_so_and_a_missing_launch_file_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("k.ttir");
    std::fs::copy(common::suite_dir().join("add/kernel.ttir"), &k).unwrap();
    // No launch beside the kernel: inferred, printed, and the verdict rests on it.
    let out = lift().arg("spec").arg(&k).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("has no launch file") && err.contains("inferred"),
        "{err}"
    );
    // A launch file named but absent is an error naming it.
    let missing = dir.path().join("nope.launch.toml");
    let out = lift()
        .arg("spec")
        .arg(&k)
        .arg("--launch")
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nope.launch.toml"), "{err}");
}

#[test]
fn garbled_kernel_reports_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("kernel.ttir");
    let text = std::fs::read_to_string(common::suite_dir().join("add/kernel.ttir")).unwrap();
    // Cut the kernel in the middle of its body.
    let cut = text.find("tt.load").unwrap() + 4;
    std::fs::write(&k, &text[..cut]).unwrap();
    std::fs::copy(
        common::suite_dir().join("add/kernel.launch.toml"),
        dir.path().join("kernel.launch.toml"),
    )
    .unwrap();
    let out = lift().arg("spec").arg(&k).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("kernel.ttir:"), "{err}");
}

#[test]
fn unknown_size_and_bad_flags_are_explained() {
    let f = fixtures().into_iter().find(|f| f.name() == "add").unwrap();
    let out = lift()
        .arg("spec")
        .arg(f.kernel())
        .args(["--size", "N"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("NAME=VALUE"));
    let out = lift()
        .arg("run")
        .arg(f.kernel())
        .args(["--out", "/tmp/x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("missing --input"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn lift_check_verdicts_and_exit_codes() {
    let dir = common::suite_dir();
    let out = lift()
        .arg("check")
        .arg(dir.join("softmax/kernel.ttir"))
        .args(["--spec", "y = torch.softmax(x, dim=-1)"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("VERIFIED"));

    // A wrong twin: exit 1, a counterexample naming the element and the Python line,
    // and whole input tensors written for replay.
    let cx = tempfile::tempdir().unwrap();
    let out = lift()
        .arg("check")
        .arg(dir.join("softmax_bug/kernel.ttir"))
        .args(["--spec", "y = torch.softmax(x, dim=-1)", "--counterexample"])
        .arg(cx.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("REFUTED") && text.contains("counterexample at y["),
        "{text}"
    );
    assert!(text.contains("softmax_bug/kernel.py:"), "{text}");
    let x = lift::npy::read(&cx.path().join("x.npy")).unwrap();
    assert_eq!(x.shape, vec![4, 8]);

    // A spec naming a tensor the launch does not have: usage error.
    let out = lift()
        .arg("check")
        .arg(dir.join("softmax/kernel.ttir"))
        .args(["--spec", "y = torch.softmax(z, dim=-1)"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("z"));
}

#[test]
fn lift_equiv_json_reports_the_verdict() {
    let dir = common::suite_dir();
    let out = lift()
        .arg("equiv")
        .arg(dir.join("gelu/kernel.ttir"))
        .arg(dir.join("gelu_sigmoid/kernel.ttir"))
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "lift.check/1");
    assert_eq!(v["verdict"], "verified");
    assert_eq!(v["tensors"][0]["tensor"], "y");
    let out = lift()
        .arg("equiv")
        .arg(dir.join("gelu/kernel.ttir"))
        .arg(dir.join("gelu_bug/kernel.ttir"))
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "refuted");
    assert!(!v["counterexample"]["inputs"].as_array().unwrap().is_empty());
}

#[test]
fn lift_race_names_the_conflicting_accesses() {
    let root = common::suite_dir().parent().unwrap().join("ptx/reduce");
    let out = lift()
        .arg("race")
        .arg(root.join("missing_syncthreads.ptx"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.lines().last().unwrap().starts_with("RACE"), "{text}");
    // Both threads, both instructions' lines in the CUDA source.
    assert!(
        text.contains("thread (0, 0, 0)") && text.contains("thread (64, 0, 0)"),
        "{text}"
    );
    assert!(
        text.contains("missing_syncthreads.cu:13") && text.contains("missing_syncthreads.cu:17"),
        "{text}"
    );

    let out = lift()
        .arg("race")
        .arg(root.join("sequential.ptx"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("SAFE"));
}

#[test]
fn lift_prints_the_formula_its_sources_and_timings_in_every_format() {
    let k = common::suite_dir().join("softmax/kernel.ttir");
    let run = |format: &str| {
        let out = lift().arg(&k).args(["--format", format]).output().unwrap();
        assert!(
            out.status.success(),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run("text");
    // The named form (simplify); `--expand` prints the formula as synthesised.
    assert!(text.starts_with("y[M,N] = softmax(x, axis=1)\n"), "{text}");
    let expanded = lift().arg(&k).arg("--expand").output().unwrap();
    let expanded = String::from_utf8(expanded.stdout).unwrap();
    assert!(
        expanded.starts_with("y[M,N] = exp(x - max(x, axis=1)) / sum("),
        "{expanded}"
    );
    assert!(text.contains("from triton_ir/softmax/kernel.py:"), "{text}");
    assert!(
        text.contains("   13 |     z = x - tl.max(x, axis=0)"),
        "{text}"
    );
    let verdict = text.lines().last().unwrap();
    // One block of 8 per row: proved for every size with N <= 8 (the bound it needs).
    assert!(
        verdict.starts_with("VERIFIED for all M, N with N <= 8"),
        "{verdict}"
    );
    assert!(verdict.contains("proved on M=4, N=8"), "{verdict}");
    let instance = lift()
        .arg(&k)
        .args(["--scope", "instance"])
        .output()
        .unwrap();
    let instance = String::from_utf8(instance.stdout).unwrap();
    let last = instance.lines().last().unwrap();
    assert!(last.starts_with("VERIFIED on M=4, N=8"), "{last}");
    for phase in ["execute", "synthesize", "prove"] {
        assert!(verdict.contains(&format!("{phase} ")), "{verdict}");
    }

    let start = std::time::Instant::now();
    let json: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    assert_eq!(json["scope"], "all_sizes", "{json}");
    assert!(
        json["constraints"][0] == "N <= 8",
        "{}",
        json["constraints"]
    );
    let wall_ms = start.elapsed().as_secs_f64() * 1e3;
    assert_eq!(json["schema"], "lift.lift/1");
    assert_eq!(json["verified"], true);
    assert_eq!(json["kernel"], "softmax_kernel");
    let lines: Vec<u64> = json["outputs"][0]["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, vec![12, 13, 14, 15, 16, 17]);
    // Each phase took some time, and together no more than the whole process did.
    let phases: Vec<f64> = ["execute", "synthesize", "prove"]
        .iter()
        .map(|p| json["timings_ms"][p].as_f64().unwrap())
        .collect();
    assert!(phases.iter().all(|&t| t > 0.0), "{phases:?}");
    assert!(
        phases.iter().sum::<f64>() <= wall_ms,
        "{phases:?} > {wall_ms} ms"
    );

    // The named form; `--expand` prints the synthesised `\frac{\exp..` (named_forms).
    assert!(run("latex").contains(r"\operatorname{softmax}_{j}\left(x\right)"));
    let numpy = run("numpy");
    assert!(numpy.contains("def softmax_kernel_numpy(x):"), "{numpy}");
    assert!(
        numpy.contains("np.exp(x - np.max(x, axis=1, keepdims=True))"),
        "{numpy}"
    );
    let torch = run("torch");
    assert!(torch.contains("def softmax_kernel_torch(x):"), "{torch}");
    assert!(torch.contains("torch.softmax(x, dim=1)"), "{torch}");
}

/// Triton declares its shared memory as one unsized `.extern .shared` array: the launch
/// sizes it (`dynamic_shared`, 48 KiB by default), so Triton's attention PTX is not
/// reported out of bounds at its first shared store (it was: the array had size 0).
/// With `cp.async` and `ldmatrix` supported it lifts and verifies; with a launch that
/// gives too little dynamic shared memory, a shared access is out of bounds.
#[test]
fn dynamic_shared_memory_is_sized_by_the_launch() {
    let suite = common::suite_dir().join("attention");
    let out = lift().arg(suite.join("kernel.ptx")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("outside every tensor"), "{err}");
    assert!(out.status.success(), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("VERIFIED"));

    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("kernel.ptx");
    std::fs::copy(suite.join("kernel.ptx"), &k).unwrap();
    let launch = std::fs::read_to_string(suite.join("kernel.launch.toml")).unwrap();
    std::fs::write(
        dir.path().join("kernel.launch.toml"),
        format!("dynamic_shared = 4096\n{launch}"),
    )
    .unwrap();
    let out = lift().arg(&k).output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("OUT OF BOUNDS"), "{text}");
    assert!(text.contains("outside every tensor"), "{text}");
}

/// The NaN twins (masked lanes computing 0/0, 0·log 0): `lift` names the undefined
/// element and exits 1 instead of printing a formula; `check` refutes with the NaN the
/// kernel really computes, which `lift run` replays; `equiv` with the correct kernel is
/// refuted. The correct twins still verify.
#[test]
fn kernels_that_compute_nan_in_masked_lanes_are_never_verified() {
    let suite = common::suite_dir();
    for (twin, correct) in [
        ("ratio_sum_nan", "ratio_sum"),
        ("entropy_nan", "entropy"),
        ("kl_div_nan", "kl_div"),
    ] {
        let out = lift()
            .arg(suite.join(twin).join("kernel.ttir"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{twin}: {text}");
        assert!(
            text.contains("UNDEFINED") && text.contains("REFUTED"),
            "{twin}: {text}"
        );
        assert!(!text.contains("VERIFIED"), "{twin}: {text}");

        let spec = fixtures()
            .into_iter()
            .find(|f| f.name() == correct)
            .unwrap()
            .meta
            .spec;
        let cx = tempfile::tempdir().unwrap();
        let out = lift()
            .arg("check")
            .arg(suite.join(twin).join("kernel.ttir"))
            .arg("--spec")
            .arg(&spec)
            .arg("--counterexample")
            .arg(cx.path())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{twin}: {text}");
        assert!(text.contains("kernel gives NaN"), "{twin}: {text}");
        // Replay: lift run on the written inputs gives NaN at the element.
        let mut run = lift();
        run.arg("run").arg(suite.join(twin).join("kernel.ttir"));
        for e in std::fs::read_dir(cx.path()).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            run.arg("--input").arg(format!("{name}={}", p.display()));
        }
        let out_dir = tempfile::tempdir().unwrap();
        run.arg("--out").arg(out_dir.path()).assert().success();
        let y = lift::npy::read(&out_dir.path().join("y.npy")).unwrap();
        assert!(y.data[0].is_nan(), "{twin}: lift run gives {:?}", y.data);

        let out = lift()
            .arg("equiv")
            .arg(suite.join(correct).join("kernel.ttir"))
            .arg(suite.join(twin).join("kernel.ttir"))
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{twin}: {}",
            String::from_utf8_lossy(&out.stdout)
        );

        let out = lift()
            .arg(suite.join(correct).join("kernel.ttir"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("VERIFIED"),
            "{correct}: {text}"
        );
    }
}

/// A size that does not fit the kernel's `i32` parameter is a usage error naming it;
/// a PTX launch analysing a CTA outside its grid is one too.
#[test]
fn arguments_outside_their_types_and_ctas_outside_the_grid_are_usage_errors() {
    let suite = common::suite_dir();
    let out = lift()
        .arg("check")
        .arg(suite.join("add").join("kernel.ttir"))
        .arg("--spec")
        .arg("z = x + y")
        .arg("--size")
        .arg("N=3000000000")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("3000000000") && err.contains("i32") && err.contains("outside its range"),
        "{err}"
    );

    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("kernel.ptx");
    std::fs::copy(suite.join("softmax").join("kernel.ptx"), &k).unwrap();
    let launch = std::fs::read_to_string(suite.join("softmax").join("kernel.launch.toml")).unwrap();
    std::fs::write(
        dir.path().join("kernel.launch.toml"),
        format!("cta = [7]\n{launch}"),
    )
    .unwrap();
    let out = lift().arg("race").arg(&k).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cta") && err.contains("outside the grid"),
        "{err}"
    );
}

/// A kernel that rounds to f16 says that its proof read the rounding as exact, in text
/// and JSON, with the line of the cast; an f32 kernel says nothing of the kind.
#[test]
fn verdicts_state_the_precision_they_assumed() {
    let suite = common::suite_dir();
    let out = lift()
        .arg("check")
        .arg(suite.join("add_f16").join("kernel.ttir"))
        .arg("--spec")
        .arg("y = x + w")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("assumes f16 rounding (`arith.truncf`) read as exact"),
        "{text}"
    );
    assert!(
        text.contains("65504") && text.contains("kernel.py:15"),
        "{text}"
    );
    let out = lift()
        .arg("check")
        .arg(suite.join("add_f16").join("kernel.ttir"))
        .arg("--spec")
        .arg("y = x + w")
        .arg("--format")
        .arg("json")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["assumptions"].as_array().map(|a| a.len()), Some(1), "{v}");
    let out = lift()
        .arg(suite.join("add_f16").join("kernel.ttir"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("assumes f16 rounding"));
    // The f32 twin of the same kernel assumes nothing.
    let out = lift()
        .arg("check")
        .arg(suite.join("add").join("kernel.ttir"))
        .arg("--spec")
        .arg("z = x + y")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("assumes"));
}

/// `--precision ieee` on a narrowing fixture: REFUTED against the exact spec with a
/// counterexample whose kernel value is the rounded one and that `lift run --precision
/// ieee` reproduces; without the flag VERIFIED, naming the narrowing as an assumption.
fn precision_ieee_refutes_and_replays(
    dir: &str,
    spec: &str,
    out: &str,
    inputs: &[&str],
    assumed: &str,
) {
    let kernel = format!("triton_ir/{dir}/kernel.ttir");
    let plain = lift()
        .args(["check", &kernel, "--spec", spec])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&plain.stdout);
    assert_eq!(plain.status.code(), Some(0), "{text}");
    assert!(
        text.contains("VERIFIED") && text.contains(assumed),
        "{text}"
    );
    assert!(!text.contains("precision: ieee"), "{text}");

    let tmp = tempfile::tempdir().unwrap();
    let cx = tmp.path().join("cx");
    let ieee = lift()
        .args([
            "check",
            &kernel,
            "--spec",
            spec,
            "--precision",
            "ieee",
            "--format",
            "json",
        ])
        .arg("--counterexample")
        .arg(&cx)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&ieee.stdout).unwrap();
    assert_eq!(ieee.status.code(), Some(1), "{v}");
    assert_eq!(v["verdict"], "refuted");
    assert_eq!(
        v["precision"],
        "ieee (f16/bf16/tf32 roundings and f32 overflow modelled)"
    );
    assert_eq!(
        v["assumptions"],
        serde_json::json!([]),
        "modelled roundings are not assumed"
    );
    let c = &v["counterexample"];
    let (got, want) = (
        c["kernel"].as_f64().unwrap(),
        c["expected"].as_f64().unwrap(),
    );
    assert!(got != want, "{c}");
    let index: Vec<usize> = c["index"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_u64().unwrap() as usize)
        .collect();

    // The text verdict says so too.
    let text = lift()
        .args(["check", &kernel, "--spec", spec, "--precision", "ieee"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("precision: ieee (f16/bf16/tf32 roundings and f32 overflow modelled)")
            && text.contains("REFUTED"),
        "{text}"
    );
    assert!(!text.contains(assumed), "{text}");

    // Replay: the concrete run rounds identically; without the flag it does not.
    for (flag, expect) in [(true, got), (false, want)] {
        let run_out = tmp.path().join(format!("run-{flag}"));
        let mut cmd = lift();
        cmd.arg("run").arg(&kernel).arg("--out").arg(&run_out);
        for name in inputs {
            cmd.arg("--input").arg(format!(
                "{name}={}",
                cx.join(format!("{name}.npy")).display()
            ));
        }
        if flag {
            cmd.args(["--precision", "ieee"]);
        }
        cmd.assert().success();
        let y = lift::npy::read(&run_out.join(format!("{out}.npy"))).unwrap();
        let flat = index
            .iter()
            .zip(&y.shape)
            .fold(0, |acc, (i, n)| acc * n + i);
        let value = y.data[flat];
        let tol = if flag {
            0.0
        } else {
            1e-9 * want.abs().max(1.0)
        };
        assert!(
            (value - expect).abs() <= tol,
            "run --precision {flag}: {value} vs {expect}"
        );
    }
}

#[test]
fn precision_ieee_f16_cast_is_refuted_against_exact_add() {
    precision_ieee_refutes_and_replays("add_f16", "y = x + w", "y", &["x", "w"], "f16 rounding");
}

#[test]
fn precision_ieee_tf32_dot_is_refuted_against_exact_matmul() {
    precision_ieee_refutes_and_replays(
        "matmul_tf32",
        "c = a @ b",
        "c",
        &["a", "b"],
        "tf32 products",
    );
}

/// The .ttir line of the first op named `name` in a fixture's kernel.
fn ttir_line(op: &str, name: &str) -> usize {
    let text = std::fs::read_to_string(common::suite_dir().join(op).join("kernel.ttir")).unwrap();
    1 + text
        .lines()
        .position(|l| l.contains(&format!("= {name} ")) || l.trim_start().starts_with(name))
        .unwrap_or_else(|| panic!("{op}: no {name}"))
}

#[test]
fn undefined_lanes_that_reach_no_store_are_harmless() {
    // sum_noother: a 2-D tile loaded without other=; rows past M are undefined and
    // their sums are never stored, padded columns are zeroed by a tl.where.
    let kernel = common::suite_dir().join("sum_noother").join("kernel.ttir");
    for size in [["M=6", "N=8"], ["M=3", "N=5"]] {
        let out = lift()
            .arg("check")
            .arg(&kernel)
            .args(["--spec", "y = torch.sum(x, dim=1)"])
            .args(["--size", size[0], "--size", size[1]])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.contains("VERIFIED") && !text.contains("assumes"),
            "{text}"
        );
    }
    let out = lift().arg(&kernel).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("y[M] = sum(x, axis=1)") && text.contains("VERIFIED"),
        "{text}"
    );
}

#[test]
fn an_undefined_lane_that_is_stored_is_a_finding_naming_the_element_and_lines() {
    let dir = common::suite_dir().join("sum_noother_bug");
    let kernel = dir.join("kernel.ttir");
    let (store, load) = (
        ttir_line("sum_noother_bug", "tt.store"),
        ttir_line("sum_noother_bug", "tt.load"),
    );
    let check = lift()
        .arg("check")
        .arg(&kernel)
        .args(["--spec", "y = torch.sum(x, dim=1)"])
        .output()
        .unwrap();
    let spec = lift().arg("spec").arg(&kernel).output().unwrap();
    let lifted = lift().arg(&kernel).output().unwrap();
    for out in [&check, &spec, &lifted] {
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("MASKED-OFF VALUE USED"));
        // The element, the store (.ttir and Python line) and the load it came from.
        assert!(err.contains("stores an undefined value into y[0]"), "{err}");
        assert!(err.contains(&format!("kernel.ttir:{store}:")), "{err}");
        assert!(err.contains("sum_noother_bug/kernel.py:18"), "{err}");
        assert!(
            err.contains(&format!("the load at .ttir line {load}")),
            "{err}"
        );
        assert!(err.contains("sum_noother_bug/kernel.py:16"), "{err}");
        assert!(err.contains("--masked-load zero"), "{err}");
    }
    // The concrete run faults the same way.
    let inst = dir.join("ref").join("ragged");
    let out = lift()
        .arg("run")
        .arg(&kernel)
        .arg("--input")
        .arg(format!("x={}", inst.join("x.npy").display()))
        .arg("--out")
        .arg(tempfile::tempdir().unwrap().path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("stores an undefined value into y[0]"));
}

#[test]
fn masked_load_zero_reads_masked_off_lanes_as_zero_and_says_so() {
    let dir = common::suite_dir().join("sum_noother_bug");
    let kernel = dir.join("kernel.ttir");
    let assumption =
        "assumes masked-off lanes without other= read as 0 (--masked-load zero, the NVIDIA backend's zero fill)";
    for size in [["M=3", "N=5"], ["M=6", "N=7"]] {
        let out = lift()
            .arg("check")
            .arg(&kernel)
            .args(["--spec", "y = torch.sum(x, dim=1)", "--masked-load", "zero"])
            .args(["--size", size[0], "--size", size[1]])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("VERIFIED"), "{text}");
        assert!(
            text.contains(assumption) && text.contains("sum_noother_bug/kernel.py:16"),
            "{text}"
        );
    }
    let out = lift()
        .arg("check")
        .arg(&kernel)
        .args([
            "--spec",
            "y = torch.sum(x, dim=1)",
            "--masked-load",
            "zero",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "verified");
    let a = v["assumptions"].as_array().unwrap();
    assert!(
        a.len() == 1 && a[0].as_str().unwrap().contains("--masked-load zero"),
        "{v}"
    );
    // lift: the formula, with the assumption.
    let out = lift()
        .arg(&kernel)
        .args(["--masked-load", "zero"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("y[M] = sum(x, axis=1)") && text.contains(assumption),
        "{text}"
    );
    let out = lift()
        .arg(&kernel)
        .args(["--masked-load", "zero", "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["assumptions"][0]
            .as_str()
            .unwrap()
            .contains("--masked-load zero"),
        "{v}"
    );
    // spec and run accept it too; run reproduces the zero-fill reference.
    lift()
        .arg("spec")
        .arg(&kernel)
        .args(["--masked-load", "zero"])
        .assert()
        .success();
    let inst = dir.join("ref").join("ragged");
    let out_dir = tempfile::tempdir().unwrap();
    lift()
        .arg("run")
        .arg(&kernel)
        .args(["--masked-load", "zero", "--input"])
        .arg(format!("x={}", inst.join("x.npy").display()))
        .arg("--out")
        .arg(out_dir.path())
        .assert()
        .success();
    let got = lift::npy::read(&out_dir.path().join("y.npy")).unwrap();
    let want = lift::npy::read(&inst.join("expected").join("y.npy")).unwrap();
    assert!(first_mismatch(&got, &want, 1e-5, 1e-8).is_none());
    // equiv: the twin equals the correct kernel only under the zero fill.
    let good = common::suite_dir().join("sum_noother").join("kernel.ttir");
    let equiv = |zero: bool| {
        let mut cmd = lift();
        cmd.arg("equiv")
            .arg(&good)
            .arg(&kernel)
            .args(["--size", "M=3", "--size", "N=5"]);
        if zero {
            cmd.args(["--masked-load", "zero"]);
        }
        cmd.output().unwrap()
    };
    let out = equiv(true);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains(assumption), "{text}");
    assert_eq!(equiv(false).status.code(), Some(1));
    // The flag's values are checked.
    let out = lift()
        .arg(&kernel)
        .args(["--masked-load", "nan"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A hand-written kernel whose masked load (no `other=`, every lane off) feeds `body`.
fn undefined_kernel(dir: &std::path::Path, body: &str) -> std::path::PathBuf {
    let ttir = format!(
        r#"module {{
  tt.func public @k(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>) {{
    %r = tt.make_range {{end = 4 : i32, start = 0 : i32}} : tensor<4xi32>
    %off = arith.constant dense<false> : tensor<4xi1>
    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %p = tt.addptr %xs, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %v = tt.load %p, %off : tensor<4x!tt.ptr<f32>>
    %ys = tt.splat %y : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %o = tt.addptr %ys, %r : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
{body}
    tt.return
  }}
}}
"#
    );
    let path = dir.join("k.ttir");
    std::fs::write(&path, ttir).unwrap();
    std::fs::write(
        dir.join("k.launch.toml"),
        "grid = [1]\n\n[args]\nx = { tensor = \"x\", shape = [4] }\ny = { tensor = \"y\", shape = [4], role = \"out\" }\n",
    )
    .unwrap();
    path
}

#[test]
fn undefined_values_as_addresses_or_conditions_are_errors_and_otherwise_propagate() {
    let dir = tempfile::tempdir().unwrap();
    let spec = |body: &str| {
        let k = undefined_kernel(dir.path(), body);
        lift().arg("spec").arg(k).output().unwrap()
    };
    // Used as an address.
    let out = spec(
        "    %i = arith.fptosi %v : tensor<4xf32> to tensor<4xi32>
    %q = tt.addptr %xs, %i : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %w = tt.load %q : tensor<4x!tt.ptr<f32>>
    tt.store %o, %w : tensor<4x!tt.ptr<f32>>",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("address lane [0] loads through is an undefined value"),
        "{err}"
    );
    assert!(err.contains("the load at .ttir line 7"), "{err}");
    // Used as a branch condition.
    let out = spec(
        "    %c0 = arith.constant 0.000000e+00 : f32
    %s = \"tt.reduce\"(%v) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %m = arith.addf %a, %b : f32
      tt.reduce.return %m : f32
    }) : (tensor<4xf32>) -> f32
    %c = arith.cmpf ogt, %s, %c0 : f32
    scf.if %c {
      tt.store %o, %v : tensor<4x!tt.ptr<f32>>
    }",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("an `if` condition is an undefined value"),
        "{err}"
    );
    // A select on a decided mask picking the defined side is defined; stores under a
    // mask that excludes the undefined lanes are fine.
    let out = spec(
        "    %two = arith.constant dense<2> : tensor<4xi32>
    %half = arith.cmpi slt, %r, %two : tensor<4xi32>
    %one = arith.constant dense<1.000000e+00> : tensor<4xf32>
    %w = arith.select %half, %one, %v : tensor<4xi1>, tensor<4xf32>
    %e = math.exp %w : tensor<4xf32>
    tt.store %o, %e, %half : tensor<4x!tt.ptr<f32>>",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A kernel with several outputs (liger's LayerNorm, compiled by Triton: parameters
/// `Y_ptr, X_ptr, W_ptr, B_ptr, Mean_ptr, RSTD_ptr, ..., eps`): the NumPy and PyTorch
/// renderings take the inputs and return the outputs in that parameter order, and their
/// docstring says so. Copied away from its Python source, the source lines print as
/// compact ranges.
#[test]
fn renderings_follow_the_kernel_parameter_order() {
    let corpus = common::suite_dir()
        .parent()
        .unwrap()
        .join("corpus/liger_layer_norm");
    let kernel = corpus.join("kernel.ttir");
    for (format, def) in [
        (
            "numpy",
            "def _layer_norm_forward_kernel_numpy(x, w, b, eps):",
        ),
        (
            "torch",
            "def _layer_norm_forward_kernel_torch(x, w, b, eps):",
        ),
    ] {
        let out = lift()
            .arg(&kernel)
            .args(["--format", format, "--scope", "instance"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .iter()
            .position(|l| *l == def)
            .unwrap_or_else(|| panic!("{text}"));
        assert_eq!(
            lines[at + 1],
            "    \"\"\"Returns (y, mean, rstd): the kernel's outputs, in the order of its parameters.\"\"\"",
            "{text}"
        );
        assert_eq!(lines.last(), Some(&"    return y, mean, rstd"), "{text}");
    }

    let dir = tempfile::tempdir().unwrap();
    for f in ["kernel.ttir", "kernel.launch.toml"] {
        std::fs::copy(corpus.join(f), dir.path().join(f)).unwrap();
    }
    let out = lift()
        .current_dir(dir.path())
        .arg(dir.path().join("kernel.ttir"))
        .args(["--scope", "instance"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // Each output's lines, from the kernel's `loc` records, as ranges.
    assert!(
        text.contains("  from liger_kernel/ops/layer_norm.py: lines 66, 70, 78\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "  from liger_kernel/ops/layer_norm.py: lines 50-51, 54-55, 66, 70-71, 73-75, 83, 86\n"
        ),
        "{text}"
    );
}

/// Errors before any command runs are usage errors (exit 2) said on stderr: a budget
/// that is no positive number of seconds, no kernel at all; a kernel that faults also
/// prints its greppable verdict word on stdout (exit 1).
#[test]
fn usage_errors_and_faults_end_with_their_exit_codes() {
    let kernel = common::suite_dir().join("softmax").join("kernel.ttir");
    for budget in ["0", "nan", "inf"] {
        let out = lift()
            .args(["--budget", budget])
            .arg(&kernel)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("error: --budget must be a positive number of seconds"),
            "{err}"
        );
    }
    let out = lift().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error: no kernel given"));
    let trap = common::suite_dir().join("../ptx/trap/wrong_check.ptx");
    let out = lift().arg("spec").arg(trap).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: "));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "TRAP\n");
}

/// `lift KERNEL | true`: the reader is gone before lift prints anything; lift stops
/// quietly (SIGPIPE, as any Unix tool) instead of panicking on its first print.
#[cfg(unix)]
#[test]
fn a_reader_that_closes_the_pipe_early_gets_no_panic() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command as Std, Stdio};
    let bin = assert_cmd::cargo::cargo_bin("lift");
    let mut child = Std::new(bin)
        .args(["triton_ir/layer_norm/kernel.ttir", "--format", "json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The read end closes here, long before the proof (tens of ms) is printed.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{stderr}");
}
