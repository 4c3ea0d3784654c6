//! Integer label and index tensors typed by the Triton IR (`triton_ir/labels/`, Triton 3.9
//! output of library-style kernels: Liger's chunked cross-entropy, `F.nll_loss`,
//! `F.embedding`, int8 row-wise dequantisation). Their launches state no `dtype`: the
//! `*i64` and `*i8` pointers decide it.
//! Each fixture gives a verdict per instance; every twin is right at its first instance
//! (where the bug cannot show: one vocabulary chunk, D == BLOCK_D) or at most label
//! and code values (label 0, negative int8 codes), and REFUTED (or OUT OF BOUNDS: a
//! ragged last block of unmasked loads) where it shows. Independently of lift's terms, `lift run` of each
//! kernel on the NumPy reference inputs (labels 0 and -100 included) reproduces the
//! references exactly where the kernel is correct and differs where the twin is wrong.
//! `nll_loss_rows` reads its masked label load with `--masked-load zero`: a masked-off
//! int64 label is the integer 0 (it was a float 0, which the label comparison refused).
//! A launch whose `dtype` contradicts the IR is an input error naming both files.

use crate::common::output_text as text;
use crate::common::read_npys;
use assert_cmd::Command;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const FIXTURES: &[&str] = &[
    "cross_entropy",
    "cross_entropy_one_chunk",
    "nll_loss",
    "nll_loss_label0",
    "nll_loss_rows",
    "nll_loss_rows_unmasked",
    "embedding",
    "embedding_block_stride",
    "embedding_whole_blocks",
    "nll_loss_ignore_diag",
    "dequant_rows",
    "dequant_rows_unsigned",
];

#[derive(Deserialize)]
struct Fixture {
    spec: String,
    /// Options of every run (`--masked-load zero`).
    #[serde(default)]
    options: String,
    /// The correct kernel is VERIFIED for every size, not only on the instance.
    #[serde(default)]
    all_sizes: bool,
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
        .join("triton_ir/labels")
        .join(name)
}

fn fixture(name: &str) -> Fixture {
    toml::from_str(&std::fs::read_to_string(dir(name).join("fixture.toml")).unwrap()).unwrap()
}

fn lift() -> Command {
    Command::cargo_bin("lift").unwrap()
}

#[test]
fn label_launches_state_no_dtype() {
    for name in FIXTURES {
        let launch = std::fs::read_to_string(dir(name).join("kernel.launch.toml")).unwrap();
        assert!(!launch.contains("dtype"), "{name}:\n{launch}");
        let ttir = std::fs::read_to_string(dir(name).join("kernel.ttir")).unwrap();
        assert!(
            ttir.contains("!tt.ptr<i64>") || ttir.contains("!tt.ptr<i8>"),
            "{name}: no integer pointer"
        );
    }
}

#[test]
fn label_kernels_get_their_verdict_at_each_instance() {
    for name in FIXTURES {
        let fx = fixture(name);
        let kernel = dir(name).join("kernel.ttir");
        for inst in &fx.instance {
            let what = format!("{name}/{}", inst.name);
            let mut cmd = lift();
            cmd.arg("check").arg(&kernel).args(["--spec", &fx.spec]);
            cmd.args(fx.options.split_whitespace());
            // A twin's verdict here is its instance's; label_lifts.rs holds the
            // all-sizes verdicts.
            if !fx.all_sizes {
                cmd.args(["--scope", "instance"]);
            }
            for (s, v) in &inst.sizes {
                cmd.args(["--size", &format!("{s}={v}")]);
            }
            let o = cmd.output().unwrap();
            let t = text(&o);
            match inst.expect.as_str() {
                "verified" => {
                    assert_eq!(o.status.code(), Some(0), "{what}:\n{t}");
                    assert!(t.contains("VERIFIED"), "{what}:\n{t}");
                    assert_eq!(fx.all_sizes, t.contains("VERIFIED for all"), "{what}:\n{t}");
                }
                "refuted" => {
                    assert_eq!(o.status.code(), Some(1), "{what}:\n{t}");
                    assert!(t.contains("REFUTED"), "{what}:\n{t}");
                }
                "oob" => {
                    assert_eq!(o.status.code(), Some(1), "{what}:\n{t}");
                    assert!(t.contains("OUT OF BOUNDS"), "{what}:\n{t}");
                }
                v => panic!("{what}: {v}"),
            }
        }
    }
}

#[test]
fn label_kernels_run_on_the_references_as_their_verdicts_say() {
    for name in FIXTURES {
        let fx = fixture(name);
        let kernel = dir(name).join("kernel.ttir");
        for inst in &fx.instance {
            let what = format!("{name}/{}", inst.name);
            let refs = dir(name).join("ref").join(&inst.name);
            let out = tempfile::tempdir().unwrap();
            let mut cmd = lift();
            cmd.arg("run").arg(&kernel).arg("--out").arg(out.path());
            cmd.args(fx.options.split_whitespace());
            let ins = read_npys(&refs);
            for k in ins.keys() {
                cmd.arg("--input")
                    .arg(format!("{k}={}", refs.join(format!("{k}.npy")).display()));
            }
            let o = cmd.output().unwrap();
            if inst.expect == "oob" {
                // The reference inputs reach the access outside the tensor too.
                assert_eq!(o.status.code(), Some(1), "{what}:\n{}", text(&o));
                assert!(text(&o).contains("OUT OF BOUNDS"), "{what}:\n{}", text(&o));
                continue;
            }
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
                    .any(|(a, b)| !((a - b).abs() <= 1e-6 * b.abs().max(1.0))); // NaN: unwritten
            }
            assert_eq!(differs, inst.expect == "refuted", "{what}: {got:?}");
        }
    }
}

#[test]
fn a_launch_dtype_the_ir_contradicts_is_an_input_error() {
    let kernel = dir("nll_loss").join("kernel.ttir");
    let launch = std::fs::read_to_string(dir("nll_loss").join("kernel.launch.toml")).unwrap();
    let agreeing = tempfile::NamedTempFile::new().unwrap();
    // `int64` (what the IR says) and the launch's silence agree; `float32` does not.
    std::fs::write(
        agreeing.path(),
        launch.replace("values = [", "dtype = \"int64\", values = ["),
    )
    .unwrap();
    let o = lift()
        .arg("spec")
        .arg(&kernel)
        .arg("--launch")
        .arg(agreeing.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let bad = tempfile::NamedTempFile::new().unwrap();
    let contradicting = launch.replace(", values = [\"0..N\", -100]", ", dtype = \"float32\"");
    std::fs::write(bad.path(), &contradicting).unwrap();
    let o = lift()
        .arg("check")
        .arg(&kernel)
        .arg("--launch")
        .arg(bad.path())
        .args(["--spec", &fixture("nll_loss").spec])
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("args.t_ptr"), "{t}");
    assert!(t.contains("float32") && t.contains("int64"), "{t}");
    assert!(t.contains("kernel.ttir:"), "{t}");
    assert!(t.contains(&bad.path().display().to_string()), "{t}");
}

/// Every Triton launch of the project that states a `dtype` (the corpus's labels, the
/// LLM set's argmax outputs, the gather suite's indices): without it the kernel's IR
/// gives each tensor the same element type, so none of them needs it.
#[test]
fn no_triton_launch_needs_its_dtype() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut kernels = Vec::new();
    for pattern in ["corpus", "triton_ir/gather", "llm/triton"] {
        for e in std::fs::read_dir(root.join(pattern)).unwrap().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "ttir") {
                kernels.push(p);
            } else if p.join("kernel.ttir").exists() {
                kernels.push(p.join("kernel.ttir"));
            }
        }
    }
    let mut stated = 0;
    for ttir in kernels {
        let Some(launch) = lift::kernel::Kernel::launch_beside(&ttir) else {
            continue;
        };
        let text = std::fs::read_to_string(&launch).unwrap();
        if !text.contains("dtype") {
            continue;
        }
        stated += 1;
        let bare = tempfile::NamedTempFile::new().unwrap();
        let without: String = text
            .lines()
            .map(|l| {
                let mut l = l.to_string();
                for d in ["int64", "int32", "int8", "bool", "float16", "bfloat16"] {
                    l = l.replace(&format!(", dtype = \"{d}\""), "");
                }
                l + "\n"
            })
            .collect();
        assert!(
            !without.contains("dtype"),
            "{}: {without}",
            launch.display()
        );
        std::fs::write(bare.path(), without).unwrap();
        let none = BTreeMap::new();
        let dtypes = |l: &Path| {
            let k = lift::kernel::Kernel::load(&ttir, Some(l)).unwrap();
            let inst = k.instance(&none).unwrap();
            inst.tensors
                .iter()
                .map(|t| (t.name.clone(), t.dtype))
                .collect::<Vec<_>>()
        };
        let want = dtypes(&launch);
        assert!(
            want.iter().any(|(_, d)| !d.is_float()),
            "{}: {want:?}",
            ttir.display()
        );
        assert_eq!(dtypes(bare.path()), want, "{}", ttir.display());
    }
    // 7 corpus entries, 4 gather fixtures, 3 LLM-set argmax kernels.
    assert_eq!(stated, 14);
}
