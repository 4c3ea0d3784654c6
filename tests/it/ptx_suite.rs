//! The PTX fixture suite (`ptx/<family>/<variant>.fixture.toml`) and Triton's own PTX
//! (`triton_ir/<op>/kernel.ptx`), data-driven: every file parses; correct variants
//! reproduce the NumPy references; racy variants report the race the fixture names;
//! refuted variants run and differ; symbolic specs evaluate to the concrete outputs.

#![allow(clippy::result_large_err)]

use crate::common;
use crate::common::read_npys;

use common::first_mismatch;
use lift::exec::ErrorKind;
use lift::npy::Array;
use lift::term::Terms;
use lift::{Error, Kernel};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const RTOL: f64 = 1e-5;
const ATOL: f64 = 1e-6;

#[derive(Debug, Deserialize)]
struct PtxFixture {
    variant: String,
    expect: String,
    #[serde(default)]
    race: Option<String>,
    #[serde(default, rename = "ref")]
    ref_: Option<String>,
    #[serde(default)]
    instance: Vec<Instance>,
}

#[derive(Debug, Deserialize, Clone)]
struct Instance {
    name: String,
    sizes: BTreeMap<String, i64>,
    /// Real-valued scalar arguments (attention's `scale`).
    #[serde(default)]
    scalars: BTreeMap<String, f64>,
}

struct Case {
    family: String,
    ptx: PathBuf,
    refdir: PathBuf,
    meta: PtxFixture,
}

impl Case {
    fn name(&self) -> String {
        format!("{}/{}", self.family, self.meta.variant)
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for fam in [
        "reduce",
        "matmul",
        "softmax",
        "relu",
        "cond_max",
        "atomic_rowsum",
        "atomic_matmul",
        "atomic_hist",
        "atomic_lock",
    ] {
        let dir = root().join("ptx").join(fam);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().ends_with(".fixture.toml"))
            .collect();
        files.sort();
        for f in files {
            let meta: PtxFixture = toml::from_str(&std::fs::read_to_string(&f).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            out.push(Case {
                family: fam.into(),
                ptx: dir.join(format!("{}.ptx", meta.variant)),
                refdir: dir.join(meta.ref_.clone().unwrap_or_else(|| "ref".into())),
                meta,
            });
        }
    }
    assert!(out.len() >= 17, "only {} PTX fixtures", out.len());
    out
}

fn run(
    kernel: &Path,
    refdir: &Path,
    sizes: &BTreeMap<String, i64>,
) -> Result<BTreeMap<String, Array>, Error> {
    run_with(kernel, refdir, sizes, &BTreeMap::new())
}

fn run_with(
    kernel: &Path,
    refdir: &Path,
    sizes: &BTreeMap<String, i64>,
    scalars: &BTreeMap<String, f64>,
) -> Result<BTreeMap<String, Array>, Error> {
    let k = Kernel::load(kernel, None)?;
    let inputs = read_npys(refdir);
    let sizes = k.sizes_from_inputs(&inputs, sizes)?;
    let i = k.instance(&sizes)?;
    let r = k.run(&i, &inputs, scalars)?;
    Ok(r.outputs.into_iter().collect())
}

fn exec_kind(e: &Error) -> Option<ErrorKind> {
    match e {
        Error::Exec { err, .. } => Some(err.kind),
        _ => None,
    }
}

#[test]
fn every_ptx_file_parses() {
    let mut files: Vec<PathBuf> = cases().iter().map(|c| c.ptx.clone()).collect();
    for e in std::fs::read_dir(root().join("triton_ir"))
        .unwrap()
        .flatten()
    {
        let p = e.path().join("kernel.ptx");
        if p.is_file() {
            files.push(p);
        }
    }
    assert!(files.len() > 60, "only {} PTX files", files.len());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let m = lift::ptx::parse(&text).unwrap_or_else(|e| panic!("{}:{e}", f.display()));
        assert_eq!(m.entries.len(), 1, "{}", f.display());
        assert!(!m.entries[0].body.is_empty(), "{}", f.display());
    }
}

#[test]
fn correct_variants_reproduce_the_references() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for c in cases().iter().filter(|c| c.meta.expect == "equivalent") {
        for inst in &c.meta.instance {
            let dir = c.refdir.join(&inst.name);
            match run(&c.ptx, &dir, &inst.sizes) {
                Err(e) => failures.push(format!("{}/{}: {e}", c.name(), inst.name)),
                Ok(out) => {
                    for (name, want) in read_npys(&dir.join("expected")) {
                        if let Some(m) = first_mismatch(&out[&name], &want, RTOL, ATOL) {
                            failures.push(format!("{}/{}: {name}: {m}", c.name(), inst.name));
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 24, "only {checked} outputs checked");
}

#[test]
fn racy_variants_report_the_race() {
    let racy: Vec<Case> = cases()
        .into_iter()
        .filter(|c| c.meta.expect == "race" && !is_async(c))
        .collect();
    // 8, and atomic_lock/no_lock_g (its -G build).
    assert_eq!(racy.len(), 9);
    for c in &racy {
        assert!(c.meta.race.is_some(), "{}: fixture names no race", c.name());
        for inst in &c.meta.instance {
            let dir = c.refdir.join(&inst.name);
            let e = match run(&c.ptx, &dir, &inst.sizes) {
                Ok(_) => panic!("{}/{}: no race reported", c.name(), inst.name),
                Err(e) => e,
            };
            assert_eq!(exec_kind(&e), Some(ErrorKind::Race), "{}: {e}", c.name());
            let msg = e.to_string();
            assert!(msg.contains("data race on shared"), "{msg}");
            assert!(
                (msg.contains("writes") || msg.contains("atomically updates"))
                    && (msg.contains("reads") || msg.contains("atomically updates")),
                "{msg}"
            );
            // The conflicting pair the fixture describes.
            let want = match c.name().as_str() {
                // Lane 16+k stores s[16+k], lane k loads it: same warp, no __syncwarp.
                "reduce/warp_unrolled_racy" => "no bar.sync or bar.warp.sync",
                // Thread 64 stores s[64], thread 0 loads it in the first step.
                "reduce/missing_syncthreads" => "[64]",
                // Thread 0 stores s[0] while others load the max from s[0].
                "softmax/missing_barrier" => "[0]",
                // Thread 1 stores s[1] when x[65] > x[1] (a conditional store, made on
                // these inputs), thread 0 reads s[1] in the last step.
                "cond_max/missing_syncthreads" => "[1]",
                // Thread 0's plain read of s and another thread's atomicAdd into s.
                "atomic_rowsum/shared_acc_no_sync" => "atomically updates",
                // Thread k zeroes hist[k], thread 8 + k adds into it.
                "atomic_hist/zero_unsynced" => "hist[0]",
                // The plain read-modify-write of total, unlocked or unfenced.
                "atomic_lock/no_lock" | "atomic_lock/no_lock_g" | "atomic_lock/no_fence" => "total",
                v => panic!("unexpected racy variant {v}"),
            };
            assert!(msg.contains(want), "{}: {msg}", c.name());
            assert_eq!(e.exit_code(), 1);
        }
    }
}

#[test]
fn refuted_variants_run_and_differ_from_the_reference() {
    let bad: Vec<Case> = cases()
        .into_iter()
        .filter(|c| c.meta.expect == "refuted")
        .collect();
    // 9, and the -G builds relu/leaky_twin_g and atomic_rowsum/missing_tail_g
    // (tests/ptx_calls.rs checks every -G build's verdicts).
    assert_eq!(bad.len(), 11);
    for c in &bad {
        for inst in &c.meta.instance {
            let dir = c.refdir.join(&inst.name);
            let out = run(&c.ptx, &dir, &inst.sizes)
                .unwrap_or_else(|e| panic!("{}/{}: {e}", c.name(), inst.name));
            let differs = read_npys(&dir.join("expected"))
                .iter()
                .any(|(name, want)| first_mismatch(&out[name], want, RTOL, ATOL).is_some());
            assert!(differs, "{}/{}: matches the reference", c.name(), inst.name);
        }
    }
}

/// The `cp.async` variants (`smem_async*`) whose racy fixtures read a tile while a copy
/// into it is in flight (no or too weak a `cp.async.wait_group`, or a prefetch issued
/// into the buffer still being read): the copy may land before or after the read.
fn is_async(c: &Case) -> bool {
    c.meta.variant.starts_with("smem_async")
}

#[test]
fn unwaited_async_copies_are_races() {
    let cases: Vec<Case> = cases()
        .into_iter()
        .filter(|c| c.meta.expect == "race" && is_async(c))
        .collect();
    assert_eq!(cases.len(), 3);
    for c in &cases {
        for inst in &c.meta.instance {
            let dir = c.refdir.join(&inst.name);
            let e = run(&c.ptx, &dir, &inst.sizes).unwrap_err();
            assert_eq!(exec_kind(&e), Some(ErrorKind::Race), "{}: {e}", c.name());
            assert!(e.to_string().contains("own cp.async"), "{}: {e}", c.name());
            assert_eq!(e.exit_code(), 1);
        }
    }
}

/// Triton's PTX of the elementwise, reduction, softmax, matmul and attention kernels
/// (the last four load tiles with `cp.async` and read them with `ldmatrix`).
const TRITON: &[&str] = &[
    "add",
    "sub",
    "mul",
    "exp",
    "relu",
    "sum",
    "max",
    "softmax",
    "matmul",
    "matmul_tiles",
    "attention_naive",
    "attention",
];

#[derive(Debug, Deserialize)]
struct TritonFixture {
    #[serde(default)]
    instance: Vec<Instance>,
}

fn triton_instances(op: &str) -> Vec<Instance> {
    let p = root().join("triton_ir").join(op).join("fixture.toml");
    let f: TritonFixture = toml::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    f.instance
}

#[test]
fn triton_ptx_reproduces_the_references() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for op in TRITON {
        let dir = root().join("triton_ir").join(op);
        for inst in triton_instances(op) {
            let refdir = dir.join("ref").join(&inst.name);
            match run_with(&dir.join("kernel.ptx"), &refdir, &inst.sizes, &inst.scalars) {
                Err(e) => failures.push(format!("{op}/{}: {e}", inst.name)),
                Ok(out) => {
                    for (name, want) in read_npys(&refdir.join("expected")) {
                        if let Some(m) = first_mismatch(&out[&name], &want, RTOL, ATOL) {
                            failures.push(format!("{op}/{}: {name}: {m}", inst.name));
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 16);
}

/// The spec's terms, evaluated at the reference inputs, equal the concrete outputs.
/// `tol`: relative; 1e-9 where the PTX is exact real arithmetic, looser where a
/// recognised libm expansion (read as the exact function) runs concretely as its
/// approximation.
fn symbolic_matches_concrete(
    kernel: &Path,
    refdir: &Path,
    sizes: &BTreeMap<String, i64>,
    scalars: &BTreeMap<String, f64>,
    tol: f64,
) {
    let k = Kernel::load(kernel, None).unwrap();
    let inputs = read_npys(refdir);
    let sizes = k.sizes_from_inputs(&inputs, sizes).unwrap();
    let i = k.instance(&sizes).unwrap();
    let mut terms = Terms::new();
    let spec = k
        .spec(&i, &mut terms)
        .unwrap_or_else(|e| panic!("{}: {e}", kernel.display()));
    let run = k.run(&i, &inputs, scalars).unwrap();
    let input = |t: &str, idx: &[i64]| -> f64 {
        let a = &inputs[t];
        let flat = idx
            .iter()
            .zip(&a.shape)
            .fold(0usize, |acc, (&x, &d)| acc * d + x as usize);
        a.data[flat]
    };
    let param = |n: &str| scalars.get(n).copied().unwrap_or(f64::NAN);
    let mut n = 0;
    for (t, (name, arr)) in spec.outputs.iter().zip(&run.outputs) {
        assert_eq!(&t.name, name);
        for (flat, e) in t.elems.iter().enumerate() {
            let want = arr.data[flat];
            let Some(id) = e else {
                assert!(want.is_nan(), "{}: {name}[{flat}]", kernel.display());
                continue;
            };
            let got = terms.eval(*id, &input, &param);
            assert!(
                (got - want).abs() <= tol * (1.0 + want.abs()),
                "{}: {name}[{flat}]: term gives {got}, concrete run {want}",
                kernel.display()
            );
            n += 1;
        }
    }
    assert!(n > 0, "{}: no output element", kernel.display());
}

#[test]
fn symbolic_specs_evaluate_to_the_concrete_runs() {
    for c in cases().iter().filter(|c| {
        !matches!(
            c.meta.expect.as_str(),
            "race" | "unwritten" | "unknown" | "deadlock"
        )
    }) {
        let inst = &c.meta.instance[0];
        let dir = c.refdir.join(&inst.name);
        // CUDA's accurate expf is recognised as exp (src/ptx/libm.rs); its concrete
        // run is the expansion, within a few f32 ulps.
        let tol = if c.meta.variant == "naive_smem_expf" {
            1e-5
        } else {
            1e-9
        };
        symbolic_matches_concrete(&c.ptx, &dir, &inst.sizes, &inst.scalars, tol);
    }
    for op in TRITON {
        let dir = root().join("triton_ir").join(op);
        let inst = &triton_instances(op)[0];
        symbolic_matches_concrete(
            &dir.join("kernel.ptx"),
            &dir.join("ref").join(&inst.name),
            &inst.sizes,
            &inst.scalars,
            1e-9,
        );
    }
    // Libdevice expansions: the spec reads them as the functions, the concrete run
    // executes the polynomial.
    for op in [
        "log",
        "sin",
        "cos",
        "tanh",
        "gelu",
        "gelu_mul",
        "log_softmax",
    ] {
        let dir = root().join("triton_ir").join(op);
        let inst = &triton_instances(op)[0];
        symbolic_matches_concrete(
            &dir.join("kernel.ptx"),
            &dir.join("ref").join(&inst.name),
            &inst.sizes,
            &inst.scalars,
            1e-5,
        );
    }
}

#[test]
fn sum_spec_is_the_row_sum() {
    let dir = root().join("ptx/reduce");
    let k = Kernel::load(&dir.join("sequential.ptx"), None).unwrap();
    let i = k.instance(&BTreeMap::new()).unwrap();
    let mut terms = Terms::new();
    let spec = k.spec(&i, &mut terms).unwrap();
    let out = &spec.outputs[0];
    assert_eq!(out.name, "out");
    let want: Vec<_> = (0..128).map(|j| terms.input("x", &[1, j])).collect();
    let want = terms.sum(&want);
    let got = out.elems[1].unwrap();
    // Same multiset of summands: evaluate at a few points.
    for seed in 0..3 {
        let v = |_: &str, idx: &[i64]| ((idx[0] * 131 + idx[1] * 7 + seed) % 17) as f64 - 8.0;
        let p = |_: &str| 0.0;
        assert_eq!(terms.eval(got, &v, &p), terms.eval(want, &v, &p));
    }
    assert!(out.sources[1].is_some());
    assert_eq!(out.sources[1].as_ref().unwrap().loc.line, 22);
}
