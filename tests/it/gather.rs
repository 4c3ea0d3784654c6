//! Gathers: loads at addresses computed from loaded integers whose launch declares
//! their values (`values = ["0..N", -100]`), on real compiler output — NVRTC
//! (`ptx/{gather_row,embedding,cross_entropy}`) and Triton 3.9 (`triton_ir/gather/`).
//! Correct kernels are VERIFIED against PyTorch specs (`torch.gather`, `x[arange, t]`,
//! `F.embedding`, `F.nll_loss`, `F.cross_entropy` with ignore_index) and reproduce the
//! NumPy references under `lift run`; wrong twins are REFUTED with counterexamples
//! whose labels are declared values and whose replay through `lift run` differs from
//! the spec's value computed here (independent loops, not lift's terms); twins whose
//! declared labels reach outside the tensor are OUT OF BOUNDS naming the label, and
//! that label replayed through `lift run` faults too. Undeclared ranges, specs that
//! PyTorch would reject on a declared value, and bad `values` are clear errors.

use crate::common::read_npys;
use assert_cmd::Command;
use lift::npy::{self, Array};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct PtxFixture {
    variant: String,
    spec: String,
    expect: String,
    #[serde(default)]
    check: Vec<Check>,
    #[serde(default)]
    instance: Vec<Inst>,
}

#[derive(Deserialize)]
struct TritonFixture {
    spec: String,
    expect: String,
    #[serde(default)]
    instance: Vec<Inst>,
}

#[derive(Deserialize)]
struct Check {
    spec: String,
    verdict: String,
}

#[derive(Deserialize)]
struct Inst {
    name: String,
    sizes: BTreeMap<String, i64>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn lift() -> Command {
    Command::cargo_bin("lift").unwrap()
}

const PTX_FAMILIES: &[&str] = &["gather_row", "embedding", "cross_entropy"];
const TRITON: &[&str] = &[
    "embedding",
    "cross_entropy",
    "cross_entropy_no_ignore",
    "cross_entropy_max_not_lse",
];

fn ptx_fixtures() -> Vec<(PathBuf, PtxFixture)> {
    let mut out = Vec::new();
    for fam in PTX_FAMILIES {
        let dir = root().join("ptx").join(fam);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(".fixture.toml"))
            .collect();
        files.sort();
        for f in files {
            let fx: PtxFixture = toml::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
            out.push((dir.join(format!("{}.ptx", fx.variant)), fx));
        }
    }
    // 8, and the -G builds cross_entropy/ce_g and ignore_not_zeroed_g (session 13).
    assert_eq!(out.len(), 10, "PTX gather fixtures");
    out
}

fn triton_fixtures() -> Vec<(PathBuf, TritonFixture)> {
    TRITON
        .iter()
        .map(|name| {
            let dir = root().join("triton_ir/gather").join(name);
            let fx: TritonFixture =
                toml::from_str(&std::fs::read_to_string(dir.join("fixture.toml")).unwrap())
                    .unwrap();
            (dir.join("kernel.ttir"), fx)
        })
        .collect()
}

/// The reference instance folder of a kernel and instance.
fn ref_dir(kernel: &Path, inst: &str) -> PathBuf {
    kernel.parent().unwrap().join("ref").join(inst)
}

/// `lift run KERNEL` on the `.npy` files of `dir` (sizes from the arrays); the output
/// arrays, or the failure text.
fn run(kernel: &Path, dir: &Path) -> Result<BTreeMap<String, Array>, String> {
    let out = tempfile::tempdir().unwrap();
    let mut cmd = lift();
    cmd.arg("run").arg(kernel).arg("--out").arg(out.path());
    for name in read_npys(dir).keys() {
        cmd.arg("--input").arg(format!(
            "{name}={}",
            dir.join(format!("{name}.npy")).display()
        ));
    }
    let o = cmd.output().unwrap();
    if o.status.success() {
        Ok(read_npys(out.path()))
    } else {
        Err(format!(
            "exit {:?}: {}{}",
            o.status.code(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ))
    }
}

fn log_sum_exp(row: &[f64]) -> f64 {
    let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    m + row.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
}

/// What a spec of these fixtures computes, written out as loops.
fn reference(spec: &str, ins: &BTreeMap<String, Array>) -> Vec<f64> {
    match spec {
        "out = F.embedding(ids, w)" | "out = w[ids]" => {
            let (ids, w) = (&ins["ids"], &ins["w"]);
            let d = w.shape[1];
            ids.data
                .iter()
                .flat_map(|&i| w.data[i as usize * d..(i as usize + 1) * d].to_vec())
                .collect()
        }
        _ if spec.starts_with("y = ") => {
            let (x, t) = (&ins["x"], &ins["t"]);
            let n = x.shape[1];
            let flip = spec.contains("N - 1 - t");
            t.data
                .iter()
                .enumerate()
                .map(|(r, &c)| {
                    let c = if flip { n - 1 - c as usize } else { c as usize };
                    // `-F.nll_loss(x, t, reduction='none')` is the picked element too
                    x.data[r * n + c]
                })
                .collect()
        }
        _ if spec.starts_with("loss = F.cross_entropy") => {
            let (x, t) = (&ins["x"], &ins["t"]);
            let n = x.shape[1];
            let s = if spec.contains("label_smoothing=0.1") {
                0.1
            } else {
                0.0
            };
            t.data
                .iter()
                .enumerate()
                .map(|(r, &c)| {
                    if c == -100.0 {
                        return 0.0;
                    }
                    let row = &x.data[r * n..(r + 1) * n];
                    let lse = log_sum_exp(row);
                    let mean = row.iter().sum::<f64>() / n as f64;
                    (1.0 - s) * (lse - row[c as usize]) + s * (lse - mean)
                })
                .collect()
        }
        s => panic!("no reference for spec {s}"),
    }
}

/// The declared values of the fixtures' index tensors at `sizes`.
fn declared(name: &str, ins: &BTreeMap<String, Array>) -> Vec<f64> {
    match name {
        "t" => {
            let n = ins["x"].shape[1];
            let mut v: Vec<f64> = (0..n).map(|k| k as f64).collect();
            v.push(-100.0);
            v
        }
        "ids" => (0..ins["w"].shape[0]).map(|k| k as f64).collect(),
        _ => panic!("{name} is no index tensor"),
    }
}

/// `lift check KERNEL --spec SPEC`, with its counterexample written to a fresh folder.
fn check(kernel: &Path, spec: &str) -> (Option<i32>, String, tempfile::TempDir) {
    let cx = tempfile::tempdir().unwrap();
    let o = lift()
        .arg("check")
        .arg(kernel)
        .args(["--spec", spec, "--counterexample"])
        .arg(cx.path())
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), text, cx)
}

/// A refutation's counterexample: its labels are declared values, and the kernel run
/// on it differs from the spec computed here.
fn replay_refutation(kernel: &Path, spec: &str, cx: &Path, what: &str) {
    let inputs = read_npys(cx);
    assert!(!inputs.is_empty(), "{what}: no counterexample written");
    for (name, a) in &inputs {
        if matches!(name.as_str(), "t" | "ids") {
            let ok = declared(name, &inputs);
            assert!(
                a.data.iter().all(|v| ok.contains(v)),
                "{what}: {name} = {:?} is not made of declared values {ok:?}",
                a.data
            );
        }
    }
    let got = run(kernel, cx).unwrap_or_else(|e| panic!("{what}: replay failed: {e}"));
    let got = got.values().next().unwrap();
    let want = reference(spec, &inputs);
    assert_eq!(got.data.len(), want.len(), "{what}");
    assert!(
        got.data
            .iter()
            .zip(&want)
            .any(|(g, w)| (g - w).abs() > 1e-6 * w.abs().max(1.0)),
        "{what}: the replay matches the spec"
    );
}

/// An out-of-bounds gather names `tensor[i] = v`; that input, replayed, faults.
fn replay_oob(kernel: &Path, text: &str, what: &str) {
    assert!(text.contains("OUT OF BOUNDS"), "{what}:\n{text}");
    let at = text
        .split(" when ")
        .nth(1)
        .unwrap_or_else(|| panic!("{what}: no input named:\n{text}"));
    let (lhs, rest) = at.split_once(" = ").unwrap();
    let (name, idx) = lhs.trim_end_matches(']').split_once('[').unwrap();
    let idx: usize = idx.parse().unwrap();
    let v: f64 = rest
        .split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let inst = ref_dir(kernel, first_instance(kernel));
    let dir = tempfile::tempdir().unwrap();
    for (n, mut a) in read_npys(&inst) {
        if n == name {
            a.data[idx] = v;
        }
        let dtype = if n == name { "int64" } else { "float32" };
        npy::write_as(&dir.path().join(format!("{n}.npy")), &a, dtype).unwrap();
    }
    let e = run(kernel, dir.path()).expect_err(what);
    assert!(
        e.contains("exit Some(1)") && (e.contains("outside") || e.contains("out of bounds")),
        "{what}: {name}[{idx}] = {v} does not fault when run: {e}"
    );
}

fn first_instance(kernel: &Path) -> &'static str {
    let s = kernel.to_string_lossy();
    if s.contains("embedding") {
        "l3v5d4"
    } else if s.contains("gather_row") || s.contains("cross_entropy") {
        "m4n8"
    } else {
        panic!("{s}")
    }
}

#[test]
fn ptx_gathers_get_their_verdicts_and_refutations_replay() {
    let (mut verified, mut refuted, mut oob) = (0, 0, 0);
    for (ptx, fx) in ptx_fixtures() {
        if fx.expect == "unknown" {
            // A scatter: an honest UNKNOWN naming the construct, never a verdict.
            let (code, text, _) = check(&ptx, &fx.spec);
            assert_eq!(code, Some(3), "{}:\n{text}", ptx.display());
            assert!(text.contains("a scatter"), "{}:\n{text}", ptx.display());
        }
        if fx.expect == "oob" {
            let what = format!("{}", ptx.display());
            let (code, text, _) = check(&ptx, &fx.spec);
            assert_eq!(code, Some(1), "{what}:\n{text}");
            replay_oob(&ptx, &text, &what);
            oob += 1;
        }
        for c in &fx.check {
            let what = format!("{} against `{}`", ptx.display(), c.spec);
            let (code, text, cx) = check(&ptx, &c.spec);
            match c.verdict.as_str() {
                "verified" => {
                    assert_eq!(code, Some(0), "{what}:\n{text}");
                    assert!(
                        text.contains("VERIFIED on this launch instance"),
                        "{what}:\n{text}"
                    );
                    verified += 1;
                }
                "refuted" => {
                    assert_eq!(code, Some(1), "{what}:\n{text}");
                    assert!(text.contains("REFUTED"), "{what}:\n{text}");
                    replay_refutation(&ptx, &c.spec, cx.path(), &what);
                    refuted += 1;
                }
                v => panic!("{what}: verdict {v}"),
            }
        }
    }
    assert!(
        verified >= 7 && refuted >= 4 && oob == 2,
        "{verified} verified, {refuted} refuted, {oob} out of bounds"
    );
}

#[test]
fn triton_ptx_of_the_gathers_gets_the_ttir_verdicts() {
    // Triton's own PTX of the same kernels (ld.param.s32 of ignore_index sign-extended,
    // the label compared with setp.eq.b64, the gather scaled by shl.b64).
    for (ttir, fx) in triton_fixtures() {
        let ptx = ttir.with_file_name("kernel.ptx");
        let launch = ttir.with_file_name("kernel.launch.toml");
        let o = lift()
            .arg("check")
            .arg(&ptx)
            .arg("--launch")
            .arg(&launch)
            .args(["--spec", &fx.spec])
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        let (code, word) = match fx.expect.as_str() {
            "verified" => (0, "VERIFIED"),
            "refuted" => (1, "REFUTED"),
            _ => (1, "OUT OF BOUNDS"),
        };
        assert_eq!(o.status.code(), Some(code), "{}:\n{text}", ptx.display());
        assert!(text.contains(word), "{}:\n{text}", ptx.display());
    }
}

#[test]
fn triton_gathers_get_their_verdicts_and_refutations_replay() {
    for (ttir, fx) in triton_fixtures() {
        let what = format!("{}", ttir.display());
        let (code, text, cx) = check(&ttir, &fx.spec);
        match fx.expect.as_str() {
            "verified" => {
                assert_eq!(code, Some(0), "{what}:\n{text}");
                // Proved on the instance; for every size only under the declared
                // labels, which the verdict states (else it says why not).
                assert!(text.contains("VERIFIED"), "{what}:\n{text}");
                assert!(
                    !text.contains("VERIFIED for all")
                        || text.contains("(the launch's declared values)"),
                    "{what}:\n{text}"
                );
            }
            "refuted" => {
                assert_eq!(code, Some(1), "{what}:\n{text}");
                replay_refutation(&ttir, &fx.spec, cx.path(), &what);
            }
            "oob" => {
                assert_eq!(code, Some(1), "{what}:\n{text}");
                replay_oob(&ttir, &text, &what);
            }
            v => panic!("{what}: {v}"),
        }
    }
}

#[test]
fn correct_gathers_reproduce_the_numpy_references() {
    let ptx = ptx_fixtures()
        .into_iter()
        .filter(|(_, f)| f.expect == "equivalent")
        .map(|(p, f)| (p, f.instance));
    let triton = triton_fixtures()
        .into_iter()
        .filter(|(_, f)| f.expect == "verified")
        .map(|(p, f)| (p, f.instance));
    let mut runs = 0;
    for (kernel, instances) in ptx.chain(triton) {
        for inst in instances {
            let dir = ref_dir(&kernel, &inst.name);
            let got = run(&kernel, &dir).unwrap();
            for (name, want) in read_npys(&dir.join("expected")) {
                let g = &got[&name];
                assert_eq!(g.shape, want.shape, "{}", kernel.display());
                for (a, b) in g.data.iter().zip(&want.data) {
                    assert!(
                        // __expf/__logf run as exp2/log2 with f32-rounded log2(e), ln 2
                        (a - b).abs() <= 1e-6 * b.abs().max(1.0),
                        "{}/{}: {name}: {a} vs {b}",
                        kernel.display(),
                        inst.name
                    );
                }
            }
            let _ = &inst.sizes;
            runs += 1;
        }
    }
    assert!(runs >= 8, "{runs} runs");
}

/// A launch like the kernel's own with the `values` of its index tensor replaced.
fn launch_with_values(kernel: &Path, values: Option<&str>) -> tempfile::NamedTempFile {
    let launch = if kernel.extension().is_some_and(|e| e == "ttir") {
        kernel.with_file_name("kernel.launch.toml")
    } else {
        kernel.with_extension("launch.toml")
    };
    let text = std::fs::read_to_string(launch).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        if let Some(i) = line.find(", values = ") {
            let end = line[i..].find(" }").unwrap() + i;
            match values {
                Some(v) => out.push_str(&format!("{}, values = {v}{}", &line[..i], &line[end..])),
                None => out.push_str(&format!("{}{}", &line[..i], &line[end..])),
            }
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), out).unwrap();
    f
}

fn check_with(kernel: &Path, launch: &Path, spec: &str) -> (Option<i32>, String) {
    let o = lift()
        .arg("check")
        .arg(kernel)
        .arg("--launch")
        .arg(launch)
        .args(["--spec", spec])
        .output()
        .unwrap();
    (
        o.status.code(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
    )
}

#[test]
fn a_declared_index_value_outside_the_tensor_is_out_of_bounds_with_its_input() {
    // The correct row gather, told that labels may also be N: in the last row,
    // x[M - 1, N] is one past the end of x (earlier rows would read the next row).
    let row = root().join("ptx/gather_row/row.ptx");
    let launch = launch_with_values(&row, Some("\"0..=N\""));
    let (code, text) = check_with(&row, launch.path(), "y = x[torch.arange(M), t]");
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("OUT OF BOUNDS") && text.contains("t[3] = 8"),
        "{text}"
    );
    // The same on the Triton embedding: ids may be V.
    let emb = root().join("triton_ir/gather/embedding/kernel.ttir");
    let launch = launch_with_values(&emb, Some("\"0..=V\""));
    let (code, text) = check_with(&emb, launch.path(), "out = F.embedding(ids, w)");
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("OUT OF BOUNDS") && text.contains("= 5"),
        "{text}"
    );
}

#[test]
fn gathers_need_declared_values_and_say_so() {
    for kernel in [
        root().join("ptx/cross_entropy/ce.ptx"),
        root().join("triton_ir/gather/cross_entropy/kernel.ttir"),
    ] {
        let launch = launch_with_values(&kernel, None);
        let (code, text) = check_with(
            &kernel,
            launch.path(),
            "loss = F.cross_entropy(x, t, reduction='none')",
        );
        assert_eq!(code, Some(3), "{}: {text}", kernel.display());
        assert!(
            text.contains("declares no `values`"),
            "{}: {text}",
            kernel.display()
        );
    }
}

#[test]
fn specs_that_pytorch_rejects_on_a_declared_value_are_errors() {
    // ignore_index=0 leaves the declared -100 as a class: PyTorch raises there.
    let (code, text, _) = check(
        &root().join("ptx/cross_entropy/ce.ptx"),
        "loss = F.cross_entropy(x, t, ignore_index=0, reduction='none')",
    );
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("index -100 is out of bounds"), "{text}");
    // torch.gather does not wrap negative indices.
    let (code, text, _) = check(
        &root().join("ptx/cross_entropy/ce.ptx"),
        "loss = torch.gather(x, 1, t.unsqueeze(1)).squeeze(1)",
    );
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("gather: index -100"), "{text}");
}

#[test]
fn bad_values_are_launch_errors_naming_the_tensor() {
    let row = root().join("ptx/gather_row/row.ptx");
    for (values, want) in [
        ("\"3..3\", dtype = \"int64\"", "declares no value"),
        ("\"0..N\", dtype = \"float32\"", "integer dtype"),
        ("\"-1..N\", dtype = \"uint8\"", "-1 is not a value of uint8"),
    ] {
        let launch = launch_with_values(&row, Some(values));
        let text = std::fs::read_to_string(launch.path()).unwrap();
        // the dtype given twice: keep the test's one
        let text = text.replace(", dtype = \"int64\", values", ", values");
        std::fs::write(launch.path(), text).unwrap();
        let (code, out) = check_with(&row, launch.path(), "y = x[torch.arange(M), t]");
        assert_eq!(code, Some(2), "{values}: {out}");
        assert!(
            out.contains("values of t") && out.contains(want),
            "{values}: {out}"
        );
    }
}

#[test]
fn nvrtc_and_triton_cross_entropy_are_equivalent_and_the_triton_twin_is_not() {
    let ce = root().join("ptx/cross_entropy/ce.ptx");
    for (other, code, word) in [
        ("triton_ir/gather/cross_entropy/kernel.ttir", 0, "VERIFIED"),
        (
            "triton_ir/gather/cross_entropy_max_not_lse/kernel.ttir",
            1,
            "REFUTED",
        ),
    ] {
        let o = lift()
            .arg("equiv")
            .arg(&ce)
            .arg(root().join(other))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        assert_eq!(o.status.code(), Some(code), "{other}:\n{text}");
        assert!(text.contains(word), "{other}:\n{text}");
    }
}
