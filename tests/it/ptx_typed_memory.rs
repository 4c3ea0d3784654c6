//! Typed memory in the PTX executor (issue 19, item 2) on real NVRTC fixtures: launch
//! tensors with a `dtype` (`ptx/argmax`: an int64 output stored with `st.global.u64`;
//! `ptx/masked_fill`: a bool mask loaded with `ld.global.u8`; `ptx/f64_poly`: float64
//! tensors, scalar and `v2.f64`; `ptx/byte_flags`: a bool output written one byte per
//! thread; `ptx/int_add`: int16 inputs widened and added into an int32 output;
//! `ptx/byte_copy`: a float tensor copied one byte per thread, or in 16-bit halves,
//! proved to be the copy, a byte-swapping copy UNKNOWN; `ptx/f16_affine`: float16
//! tensors of 2-byte elements; `ptx/atomic_typed`: 64-bit atomics, a float64 sum and a
//! uint64 count). Every `[[check]]` of the
//! fixtures gets its verdict; refutations replay through `lift run` and differ there
//! from references computed here (first-index argmax, `np.where`, the polynomial, the
//! sum); correct variants reproduce the NumPy files; the symbolic terms evaluate to the
//! concrete runs; `lift race` is SAFE for four threads writing the four bytes of one
//! word and RACE for two writing one byte; `.npy` outputs keep their dtype; bad dtypes
//! and inputs are clear errors.

use crate::common::read_npys;
use assert_cmd::Command;
use lift::npy::{self, Array};
use lift::term::Terms;
use lift::Kernel;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const FAMILIES: &[&str] = &[
    "argmax",
    "masked_fill",
    "f64_poly",
    "byte_flags",
    "int_add",
    "byte_copy",
    "f16_affine",
    "atomic_typed",
];

#[derive(Deserialize)]
struct Fixture {
    variant: String,
    expect: String,
    #[serde(default)]
    check: Vec<Check>,
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

fn fixtures() -> Vec<(String, PathBuf, Fixture)> {
    let mut out = Vec::new();
    for fam in FAMILIES {
        let dir = root().join("ptx").join(fam);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(".fixture.toml"))
            .collect();
        files.sort();
        for f in files {
            let fx: Fixture = toml::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
            let ptx = dir.join(format!("{}.ptx", fx.variant));
            out.push((fam.to_string(), ptx, fx));
        }
    }
    assert!(out.len() >= 21, "only {} typed-memory fixtures", out.len());
    out
}

fn lift() -> Command {
    Command::cargo_bin("lift").unwrap()
}

/// The index of the first maximum (minimum) of each row, as NumPy's argmax/argmin.
fn arg_extreme(x: &Array, max: bool) -> Vec<f64> {
    let n = x.shape[1];
    x.data
        .chunks(n)
        .map(|r| {
            let mut best = 0;
            for (j, &v) in r.iter().enumerate() {
                if (max && v > r[best]) || (!max && v < r[best]) {
                    best = j;
                }
            }
            best as f64
        })
        .collect()
}

/// What a spec of the fixtures computes on the inputs, written out here.
fn reference(spec: &str, inputs: &BTreeMap<String, Array>) -> Vec<f64> {
    if let (Some(a), Some(b)) = (inputs.get("a"), inputs.get("b")) {
        let sign = match spec {
            "y = a + b" => 1.0,
            "y = a - b" => -1.0,
            s => panic!("no reference for spec {s}"),
        };
        return a
            .data
            .iter()
            .zip(&b.data)
            .map(|(x, y)| x + sign * y)
            .collect();
    }
    let x = &inputs["x"];
    match spec {
        "y = torch.argmax(x, dim=1)" | "y = torch.argmax(x, dim=-1)" => arg_extreme(x, true),
        "y = torch.argmin(x, dim=1)" => arg_extreme(x, false),
        "y = torch.where(m, 0.0, x)" | "y = torch.where(m, x, 0.0)" => {
            let keep_true = spec.ends_with("x, 0.0)");
            let m = &inputs["m"];
            x.data
                .iter()
                .zip(&m.data)
                .map(|(&v, &b)| if (b != 0.0) == keep_true { v } else { 0.0 })
                .collect()
        }
        "y = 0.5 * x * x + x" => x.data.iter().map(|v| 0.5 * v * v + v).collect(),
        "y = x" => x.data.clone(),
        "y = x.sum(0, keepdim=True)\nc = torch.ones_like(x).sum(0, keepdim=True)" => {
            vec![x.data.iter().sum()]
        }
        "y = 2 * x + 1" => x.data.iter().map(|v| 2.0 * v + 1.0).collect(),
        "y = 2 * x - 1" => x.data.iter().map(|v| 2.0 * v - 1.0).collect(),
        "y = 2 * x" => x.data.iter().map(|v| 2.0 * v).collect(),
        "y = 0.5 * x * x - x" => x.data.iter().map(|v| 0.5 * v * v - v).collect(),
        "y = 0.1 * x * x + x" => x.data.iter().map(|v| 0.1 * v * v + v).collect(),
        "y = torch.where(x > 0, 1, 0)" => x
            .data
            .iter()
            .map(|&v| if v > 0.0 { 1.0 } else { 0.0 })
            .collect(),
        s => panic!("no reference for spec {s}"),
    }
}

/// `lift run` on `inputs` (files in `dir`); the output `y`.
fn run(ptx: &Path, dir: &Path, names: &[String], sizes: &BTreeMap<String, i64>) -> PathBuf {
    let out = tempfile::tempdir().unwrap().keep();
    let mut cmd = lift();
    cmd.arg("run").arg(ptx).arg("--out").arg(&out);
    for name in names {
        cmd.arg("--input").arg(format!(
            "{name}={}",
            dir.join(format!("{name}.npy")).display()
        ));
    }
    for (k, v) in sizes {
        cmd.arg("--size").arg(format!("{k}={v}"));
    }
    cmd.assert().success();
    out.join("y.npy")
}

#[test]
fn typed_fixtures_get_their_check_verdicts_and_refutations_replay() {
    let mut checks = 0;
    let mut replays = 0;
    for (family, ptx, fx) in fixtures() {
        for c in &fx.check {
            let what = format!("{family}/{} against `{}`", fx.variant, c.spec);
            let cx = tempfile::tempdir().unwrap();
            let out = lift()
                .arg("check")
                .arg(&ptx)
                .args(["--spec", &c.spec, "--counterexample"])
                .arg(cx.path())
                .output()
                .unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            match c.verdict.as_str() {
                "verified" => {
                    assert_eq!(out.status.code(), Some(0), "{what}:\n{text}");
                    assert!(text.contains("VERIFIED"), "{what}:\n{text}");
                }
                "refuted" => {
                    assert_eq!(out.status.code(), Some(1), "{what}:\n{text}");
                    assert!(text.contains("REFUTED"), "{what}:\n{text}");
                    // Replay: the kernel's output on the counterexample differs from
                    // the spec's value computed here.
                    let inputs = read_npys(cx.path());
                    assert!(!inputs.is_empty(), "{what}: no counterexample written");
                    // Inputs of integer tensors are integers of their dtype.
                    if let Some(m) = inputs.get("m") {
                        assert!(
                            m.data.iter().all(|&b| b == 0.0 || b == 1.0),
                            "{what}: mask {:?}",
                            m.data
                        );
                    }
                    for t in ["a", "b"] {
                        if let Some(a) = inputs.get(t) {
                            assert!(
                                a.data
                                    .iter()
                                    .all(|&v| v.fract() == 0.0 && v.abs() <= 32768.0),
                                "{what}: {t} = {:?}",
                                a.data
                            );
                        }
                    }
                    let names: Vec<String> = inputs.keys().cloned().collect();
                    let y = run(&ptx, cx.path(), &names, &BTreeMap::new());
                    let got = npy::read(&y).unwrap();
                    let want = reference(&c.spec, &inputs);
                    assert_eq!(got.data.len(), want.len(), "{what}");
                    assert!(
                        got.data
                            .iter()
                            .zip(&want)
                            .any(|(g, w)| (g - w).abs() > 1e-9 * w.abs().max(1.0)),
                        "{what}: the replay matches the spec\n{text}"
                    );
                    replays += 1;
                }
                "unknown" => {
                    assert_eq!(out.status.code(), Some(3), "{what}:\n{text}");
                    assert!(
                        text.contains("from bytes of different values or of another type"),
                        "{what}:\n{text}"
                    );
                }
                v => panic!("{what}: unknown verdict {v}"),
            }
            checks += 1;
        }
    }
    assert!(
        checks >= 24 && replays >= 10,
        "{checks} checks, {replays} replays"
    );
}

#[test]
fn typed_variants_run_on_the_references() {
    // Correct variants reproduce the NumPy files exactly (integers) or to f64 rounding;
    // refuted ones differ from them on the same inputs (argmax's twins: the inputs have
    // ties).
    let mut n = 0;
    for (family, ptx, fx) in fixtures() {
        if fx.expect == "race" {
            continue;
        }
        for inst in &fx.instance {
            if fx.expect == "unknown" {
                // byte_copy/swapped: a concrete run is exact (bytes of numbers); its
                // elements are x's with the bytes of each half swapped.
                let dir = ptx.parent().unwrap().join("ref").join(&inst.name);
                let inputs = read_npys(&dir);
                let names: Vec<String> = inputs.keys().cloned().collect();
                let got = npy::read(&run(&ptx, &dir, &names, &inst.sizes)).unwrap();
                for (g, &x) in got.data.iter().zip(&inputs["x"].data) {
                    let b = (x as f32).to_bits();
                    let swapped = ((b & 0x00ff_00ff) << 8) | ((b >> 8) & 0x00ff_00ff);
                    let want = f32::from_bits(swapped) as f64;
                    assert!(
                        *g == want || (g.is_nan() && want.is_nan()),
                        "{family}/{}: {g} vs {want}",
                        fx.variant
                    );
                }
                n += 1;
                continue;
            }
            let dir = ptx.parent().unwrap().join("ref").join(&inst.name);
            let inputs = read_npys(&dir);
            let names: Vec<String> = inputs.keys().cloned().collect();
            let y = run(&ptx, &dir, &names, &inst.sizes);
            let mut same = true;
            for (name, want) in read_npys(&dir.join("expected")) {
                let got = npy::read(&y.with_file_name(format!("{name}.npy"))).unwrap();
                assert_eq!(got.shape, want.shape, "{family}/{}: {name}", fx.variant);
                same &= got
                    .data
                    .iter()
                    .zip(&want.data)
                    .all(|(g, w)| (g - w).abs() <= 1e-12 * w.abs().max(1.0));
            }
            let what = format!("{family}/{}/{}", fx.variant, inst.name);
            match fx.expect.as_str() {
                "equivalent" => assert!(same, "{what}: differs from the reference"),
                "refuted" => assert!(!same, "{what}: matches the reference"),
                e => panic!("{what}: unexpected expectation {e}"),
            }
            n += 1;
        }
    }
    assert!(n >= 30, "only {n} runs");
}

#[test]
fn outputs_keep_their_dtype_and_integer_inputs_are_read_as_such() {
    // argmax writes int64, byte_flags bool, f64_poly float64 (the header's descr).
    for (ptx, want) in [
        ("argmax/first", "'<i8'"),
        ("byte_flags/adjacent", "'|b1'"),
        ("f64_poly/plain", "'<f8'"),
        ("int_add/widen", "'<i4'"),
        ("atomic_typed/sum_count", "'<f8'"),
    ] {
        let ptx = root().join("ptx").join(format!("{ptx}.ptx"));
        let dir = ptx.parent().unwrap().join("ref");
        let inst = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .next()
            .unwrap()
            .path();
        let inputs = read_npys(&inst);
        let names: Vec<String> = inputs.keys().cloned().collect();
        let sizes = BTreeMap::new();
        let k = Kernel::load(&ptx, None).unwrap();
        let sizes = k.sizes_from_inputs(&inputs, &sizes).unwrap();
        let y = run(&ptx, &inst, &names, &sizes);
        let bytes = std::fs::read(&y).unwrap();
        let header = String::from_utf8_lossy(&bytes[10..bytes.len().min(128)]);
        assert!(header.contains(want), "{}: {header}", ptx.display());
    }
    // The mask of masked_fill is a NumPy bool file, read as 0/1.
    let m = npy::read(&root().join("ptx/masked_fill/ref/n8/m.npy")).unwrap();
    assert!(m.data.iter().all(|&b| b == 0.0 || b == 1.0));
    assert!(m.data.contains(&1.0) && m.data.contains(&0.0));
}

#[test]
fn symbolic_terms_evaluate_to_the_concrete_runs() {
    for (family, ptx, fx) in fixtures() {
        if fx.expect == "race" || fx.expect == "unknown" {
            continue;
        }
        let inst = &fx.instance[0];
        let dir = ptx.parent().unwrap().join("ref").join(&inst.name);
        let inputs = read_npys(&dir);
        let k = Kernel::load(&ptx, None).unwrap();
        let i = k.instance(&inst.sizes).unwrap();
        let mut terms = Terms::new();
        let spec = k.spec(&i, &mut terms).unwrap();
        let run = k.run(&i, &inputs, &BTreeMap::new()).unwrap();
        let input = |t: &str, idx: &[i64]| -> f64 {
            let a = &inputs[t];
            let flat = idx
                .iter()
                .zip(&a.shape)
                .fold(0usize, |acc, (&x, &d)| acc * d + x as usize);
            a.data[flat]
        };
        let param = |_: &str| f64::NAN;
        for (t, (_, arr)) in spec.outputs.iter().zip(&run.outputs) {
            for (flat, e) in t.elems.iter().enumerate() {
                let got = terms.eval(e.unwrap(), &input, &param);
                let want = arr.data[flat];
                assert!(
                    (got - want).abs() <= 1e-12 * (1.0 + want.abs()),
                    "{family}/{}: y[{flat}] term {got}, run {want}",
                    fx.variant
                );
            }
        }
    }
}

#[test]
fn byte_races_need_overlapping_bytes() {
    // Four threads writing the four bytes of one 32-bit word: no race.
    let safe = root().join("ptx/byte_flags/adjacent.ptx");
    let out = lift().arg("race").arg(&safe).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("SAFE"), "{text}");
    // Two threads writing one byte: a race naming both byte stores.
    let racy = root().join("ptx/byte_flags/same_byte.ptx");
    let out = lift().arg("race").arg(&racy).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("RACE"), "{text}");
    assert!(
        text.contains("data race on `y`[0]")
            && text.contains("thread (0, 0, 0) writes")
            && text.contains("thread (1, 0, 0) writes")
            && text.contains("st.global.u8"),
        "{text}"
    );
}

#[test]
fn bad_dtypes_and_inputs_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    // An unknown dtype names the argument and the known ones.
    let src = std::fs::read_to_string(root().join("ptx/argmax/first.launch.toml")).unwrap();
    let bad = src.replace("dtype = \"int64\"", "dtype = \"int65\"");
    let launch = dir.path().join("bad.launch.toml");
    std::fs::write(&launch, bad).unwrap();
    let out = lift()
        .arg("run")
        .arg(root().join("ptx/argmax/first.ptx"))
        .arg("--launch")
        .arg(&launch)
        .arg("--input")
        .arg(format!(
            "x={}",
            root().join("ptx/argmax/ref/m3n4/x.npy").display()
        ))
        .arg("--out")
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("bad.launch.toml") && text.contains("int65") && text.contains("int64"),
        "{text}"
    );
    // A mask holding 0.5 is no bool: a usage error naming the element.
    let m = Array {
        shape: vec![8],
        data: vec![0.0, 1.0, 0.5, 0.0, 1.0, 0.0, 0.0, 1.0],
    };
    let mpath = dir.path().join("m.npy");
    npy::write(&mpath, &m).unwrap();
    let out = lift()
        .arg("run")
        .arg(root().join("ptx/masked_fill/bool_mask.ptx"))
        .arg("--input")
        .arg(format!(
            "x={}",
            root().join("ptx/masked_fill/ref/n8/x.npy").display()
        ))
        .arg("--input")
        .arg(format!("m={}", mpath.display()))
        .arg("--out")
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("[2]") && text.contains("0.5") && text.contains("bool"),
        "{text}"
    );
}
