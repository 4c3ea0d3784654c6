//! The fixture suite under `triton_ir/`: each folder with a `fixture.toml` carries its
//! kernel, launch, expected verdict and reference data (see triton_ir/README.md).
#![allow(dead_code)]

use lift::npy::{self, Array};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
pub struct FixtureToml {
    pub op: String,
    #[serde(default)]
    pub spec: String,
    pub expect: String,
    #[serde(default)]
    pub bug: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
    /// Wrong twins only: the bug shows only in this region, which the random reference
    /// inputs miss (`x == 0`); lift must refute the twin all the same.
    #[serde(default)]
    pub bug_region: Option<String>,
    /// Size twins only (`expect = "verified"`): the kernel is correct at its instances but
    /// wrong at other sizes; this says what goes wrong and where.
    #[serde(default)]
    pub size_bug: Option<String>,
    /// Size twins only: a size assignment at which the bug shows (`{ N = 6 }`).
    #[serde(default)]
    pub bug_sizes: Option<BTreeMap<String, i64>>,
    /// The op this kernel must be proved equivalent to (or refuted against, for twins).
    #[serde(default)]
    pub equiv: Option<String>,
    #[serde(default)]
    pub instance: Vec<InstanceToml>,
}

#[derive(Debug, Deserialize, Clone)]
pub struct InstanceToml {
    pub name: String,
    pub sizes: BTreeMap<String, i64>,
    #[serde(default)]
    pub scalars: BTreeMap<String, f64>,
}

pub struct Fixture {
    pub dir: PathBuf,
    pub meta: FixtureToml,
}

impl Fixture {
    pub fn kernel(&self) -> PathBuf {
        self.dir.join("kernel.ttir")
    }

    pub fn name(&self) -> String {
        self.dir.file_name().unwrap().to_string_lossy().into_owned()
    }

    /// Input arrays of an instance: every `ref/<instance>/*.npy`.
    pub fn inputs(&self, inst: &InstanceToml) -> BTreeMap<String, Array> {
        read_dir_npy(&self.dir.join("ref").join(&inst.name))
    }

    /// Expected outputs of an instance: `ref/<instance>/expected/*.npy`.
    pub fn expected(&self, inst: &InstanceToml) -> BTreeMap<String, Array> {
        read_dir_npy(&self.dir.join("ref").join(&inst.name).join("expected"))
    }

    pub fn input_paths(&self, inst: &InstanceToml) -> Vec<(String, PathBuf)> {
        npy_files(&self.dir.join("ref").join(&inst.name))
    }
}

pub fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("triton_ir")
}

/// Every fixture of the suite, sorted by folder name.
/// Whether a kernel's IR has a loop (`scf.for`, `scf.while`): the all-sizes step proves
/// every loop-free correct kernel, and loops only where a summary fits.
pub fn has_loop(kernel: &Path) -> bool {
    let text =
        std::fs::read_to_string(kernel).unwrap_or_else(|e| panic!("{}: {e}", kernel.display()));
    text.contains("scf.for") || text.contains("scf.while")
}

pub fn fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(suite_dir()).expect("triton_ir/ exists") {
        let dir = entry.unwrap().path();
        let toml_path = dir.join("fixture.toml");
        if !toml_path.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&toml_path).unwrap();
        let meta: FixtureToml =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", toml_path.display()));
        out.push(Fixture { dir, meta });
    }
    out.sort_by_key(|f| f.name());
    assert!(
        !out.is_empty(),
        "no fixtures under {}",
        suite_dir().display()
    );
    out
}

fn npy_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "npy"))
                .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn read_dir_npy(dir: &Path) -> BTreeMap<String, Array> {
    npy_files(dir)
        .into_iter()
        .map(|(name, p)| (name, npy::read(&p).unwrap()))
        .collect()
}

/// numpy.allclose(actual, expected, rtol, atol): the first element that is not close.
pub fn first_mismatch(actual: &Array, expected: &Array, rtol: f64, atol: f64) -> Option<String> {
    if actual.shape != expected.shape {
        return Some(format!(
            "shape {:?} != expected {:?}",
            actual.shape, expected.shape
        ));
    }
    for (i, (a, e)) in actual.data.iter().zip(&expected.data).enumerate() {
        let close = if e.is_finite() {
            (a - e).abs() <= atol + rtol * e.abs()
        } else {
            a == e || (a.is_nan() && e.is_nan())
        };
        if !close {
            return Some(format!("element {i}: got {a}, expected {e}"));
        }
    }
    None
}

/// A Python that can `import numpy`: `$LIFT_PYTHON`, the generator's venv, `python3`,
/// `/usr/bin/python3`.
pub fn python_with_numpy() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(p) = std::env::var("LIFT_PYTHON") {
        candidates.push(p.into());
    }
    candidates.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv-gen/bin/python"));
    candidates.push("python3".into());
    // Debian's own Python, where `apt-get install python3-numpy` puts NumPy (a pyenv
    // or venv `python3` earlier on PATH does not see it).
    candidates.push("/usr/bin/python3".into());
    candidates.into_iter().find(|p| {
        std::process::Command::new(p)
            .args(["-c", "import numpy"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Whether this is a CI run: `CI` is set (GitHub Actions, GitLab and most CI systems
/// set `CI=true`) to anything but `""`, `0` or `false`.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// A dependency a test cannot run without, missing: in CI the test fails with `what`
/// named; elsewhere it prints `skipped: ...` and the caller returns. Rust's test harness
/// cannot mark a test ignored at run time, so cargo counts it as passed: the line is
/// written to stderr directly (past the harness's output capture, so it shows without
/// `--nocapture`), and CI never takes this path.
#[track_caller]
pub fn missing(test: &str, what: &str) {
    use std::io::Write;
    let msg = format!("{test}: {what} not found (set LIFT_PYTHON, or run scripts/setup.sh)");
    if in_ci() {
        panic!("{msg}; CI is set, so a missing dependency is a failure, not a skip");
    }
    let _ = writeln!(std::io::stderr(), "skipped: {msg}");
}

/// [`python_with_numpy`], or [`missing`] (a failure in CI) naming NumPy.
#[track_caller]
pub fn require_numpy(test: &str) -> Option<PathBuf> {
    let p = python_with_numpy();
    if p.is_none() {
        missing(test, "a Python with NumPy");
    }
    p
}

/// Any Python 3 (for `ast.parse`): one with NumPy, else `python3`; or [`missing`].
#[track_caller]
pub fn require_python(test: &str) -> Option<PathBuf> {
    let p = python_with_numpy().or_else(|| {
        std::process::Command::new("python3")
            .arg("--version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|_| PathBuf::from("python3"))
    });
    if p.is_none() {
        missing(test, "Python 3");
    }
    p
}

/// One NumPy rendering to run on one fixture instance's reference inputs.
pub struct NumpyCase {
    /// Python module name (unique per case).
    pub module: String,
    /// The rendered module; it defines `kernel(...)`.
    pub source: String,
    pub ref_dir: PathBuf,
    pub outputs: Vec<String>,
    pub tensors: Vec<String>,
    pub scalars: Vec<(String, f64)>,
    /// The instance's sizes, passed to size parameters the function has (`N=8`).
    pub sizes: BTreeMap<String, i64>,
}

impl NumpyCase {
    pub fn new(
        f: &Fixture,
        inst: &InstanceToml,
        outputs: &[lift::formula::Output],
        env: &lift::formula::ShapeEnv,
        source: String,
    ) -> NumpyCase {
        let params = lift::render::parameters(outputs);
        NumpyCase {
            module: format!("k_{}_{}", f.name(), inst.name).replace(['/', '-', '.'], "_"),
            source,
            ref_dir: f.dir.join("ref").join(&inst.name),
            outputs: outputs.iter().map(|o| o.name.clone()).collect(),
            tensors: params
                .iter()
                .filter(|p| env.tensors.contains_key(*p))
                .cloned()
                .collect(),
            scalars: params
                .iter()
                .filter(|p| env.scalars.contains(*p))
                .map(|p| (p.clone(), inst.scalars[p]))
                .collect(),
            sizes: inst.sizes.clone(),
        }
    }
}

/// Runs every case in one Python process: each module's `kernel` on the reference
/// inputs, compared with the reference outputs (rtol 1e-5, atol 1e-6). Returns how
/// many elements were compared, or the mismatches.
pub fn run_numpy_cases(python: &Path, cases: &[NumpyCase]) -> Result<usize, String> {
    run_python_cases(python, cases, false)
}

/// As [`run_numpy_cases`] for PyTorch renderings (inputs passed as float64 tensors).
pub fn run_torch_cases(python: &Path, cases: &[NumpyCase]) -> Result<usize, String> {
    run_python_cases(python, cases, true)
}

/// A Python that can `import torch` (`$LIFT_PYTHON` or `python3`), if any.
pub fn python_with_torch() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(p) = std::env::var("LIFT_PYTHON") {
        candidates.push(p.into());
    }
    candidates.push("python3".into());
    candidates.into_iter().find(|p| {
        std::process::Command::new(p)
            .args(["-c", "import torch, numpy"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

fn run_python_cases(python: &Path, cases: &[NumpyCase], torch: bool) -> Result<usize, String> {
    let dir = tempfile::tempdir().unwrap();
    let mut list = String::from("CASES = [\n");
    for c in &cases.iter().collect::<Vec<_>>() {
        std::fs::write(dir.path().join(format!("{}.py", c.module)), &c.source).unwrap();
        let q = |v: &[String]| {
            v.iter()
                .map(|s| format!("{s:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let scalars: Vec<String> = c
            .scalars
            .iter()
            .map(|(k, v)| format!("{k:?}: {v:?}"))
            .collect();
        let sizes: Vec<String> = c.sizes.iter().map(|(k, v)| format!("{k:?}: {v}")).collect();
        list += &format!(
            "    ({:?}, {:?}, [{}], [{}], {{{}}}, {{{}}}),\n",
            c.module,
            c.ref_dir.to_string_lossy(),
            q(&c.outputs),
            q(&c.tensors),
            scalars.join(", "),
            sizes.join(", ")
        );
    }
    list += "]\n";
    let torch = if torch {
        "TORCH = True\n"
    } else {
        "TORCH = False\n"
    };
    let driver = DRIVER.replacen("compared = 0", &format!("{list}{torch}compared = 0"), 1);
    let driver_path = dir.path().join("driver.py");
    std::fs::write(&driver_path, driver).unwrap();
    let out = std::process::Command::new(python)
        .arg(&driver_path)
        .arg(dir.path())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{stdout}\n{stderr}"));
    }
    Ok(stdout
        .lines()
        .find_map(|l| l.strip_prefix("compared "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0))
}

const DRIVER: &str = r#"
import importlib, inspect, sys
import numpy as np

sys.path.insert(0, sys.argv[1])
compared = 0
failures = []
for module, ref, outputs, tensors, scalars, sizes in CASES:
    kernel = importlib.import_module(module).kernel
    args = {t: np.load(f"{ref}/{t}.npy").astype(np.float64) for t in tensors}
    if TORCH:
        import torch
        args = {t: torch.from_numpy(a) for t, a in args.items()}
    args.update(scalars)
    params = inspect.signature(kernel).parameters
    args.update({k: v for k, v in sizes.items() if k in params})
    got = kernel(**args)
    if TORCH:
        got = tuple(g.numpy() for g in got) if isinstance(got, tuple) else got.numpy()
    if len(outputs) == 1:
        got = (got,)
    for name, g in zip(outputs, got):
        want = np.load(f"{ref}/expected/{name}.npy")
        g = np.asarray(g, dtype=np.float64)
        if g.shape != want.shape:
            failures.append(f"{ref} {name}: shape {g.shape} != {want.shape}")
        elif not np.allclose(g, want, rtol=1e-5, atol=1e-6):
            failures.append(f"{ref} {name}: max error {np.max(np.abs(g - want))}")
        compared += want.size
for f in failures:
    print("MISMATCH", f)
print("compared", compared)
sys.exit(1 if failures else 0)
"#;

/// The spec's outputs at `inputs`, evaluated from lift's terms at f32 constants.
pub fn spec_values(spec: &str, inputs: &BTreeMap<String, Array>) -> BTreeMap<String, Vec<f64>> {
    use lift::torch::{self, Env, FloatType};
    let shapes: BTreeMap<String, Vec<usize>> = inputs
        .iter()
        .map(|(n, a)| (n.clone(), a.shape.clone()))
        .collect();
    let (scalars, values, sizes) = (
        std::collections::BTreeSet::new(),
        BTreeMap::new(),
        BTreeMap::new(),
    );
    let env = Env {
        tensors: &shapes,
        scalars: &scalars,
        values: &values,
        sizes: &sizes,
        float: FloatType::F32,
    };
    let mut terms = lift::term::Terms::new();
    let outs = torch::parse(spec)
        .unwrap()
        .instantiate(&mut terms, &env)
        .unwrap();
    let value = |name: &str, idx: &[i64]| {
        let a = &inputs[name];
        let flat = idx
            .iter()
            .zip(&a.shape)
            .fold(0usize, |f, (&i, &s)| f * s + i as usize);
        a.data[flat]
    };
    outs.iter()
        .map(|o| {
            let v = o
                .elems
                .iter()
                .map(|&e| terms.eval(e, &value, &|_| f64::NAN))
                .collect();
            (o.name.clone(), v)
        })
        .collect()
}

/// `lift check PTX --spec SPEC` gives `verdict` (`verified` or `refuted`); a refutation's
/// counterexample (which must hold `x`) replays through `lift run` to outputs that differ
/// from the spec's by more than `rtol` relative (`floor`: the smallest magnitude it is
/// relative to). Returns the counterexample's inputs (none for a proof).
pub fn check_and_replay(
    ptx: &Path,
    spec: &str,
    verdict: &str,
    what: &str,
    rtol: f64,
    floor: f64,
) -> BTreeMap<String, Array> {
    use assert_cmd::Command;
    let cx = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("lift")
        .unwrap()
        .arg("check")
        .arg(ptx)
        .args(["--spec", spec, "--counterexample"])
        .arg(cx.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let want = match verdict {
        "verified" => 0,
        "refuted" => 1,
        v => panic!("{what}: unknown verdict {v}"),
    };
    assert_eq!(
        out.status.code(),
        Some(want),
        "{what}: expected {verdict}, lift says:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    if want == 0 {
        assert!(text.contains("VERIFIED"), "{what}:\n{text}");
        return BTreeMap::new();
    }
    assert!(text.contains("REFUTED"), "{what}:\n{text}");
    let inputs: BTreeMap<String, Array> = std::fs::read_dir(cx.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "npy"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            (name, npy::read(&p).unwrap())
        })
        .collect();
    assert!(
        inputs.contains_key("x"),
        "{what}: no x.npy in the counterexample"
    );
    let replay = tempfile::tempdir().unwrap();
    let mut run = Command::cargo_bin("lift").unwrap();
    run.arg("run").arg(ptx).arg("--out").arg(replay.path());
    for name in inputs.keys() {
        run.arg("--input").arg(format!(
            "{name}={}",
            cx.path().join(format!("{name}.npy")).display()
        ));
    }
    run.assert().success();
    let expected = spec_values(spec, &inputs);
    let differs = expected.iter().any(|(name, want)| {
        let got = npy::read(&replay.path().join(format!("{name}.npy"))).unwrap();
        got.data
            .iter()
            .zip(want)
            .any(|(&g, &w)| g.is_nan() != w.is_nan() || (g - w).abs() > rtol * w.abs().max(floor))
    });
    assert!(
        differs,
        "{what}: the kernel replays equal to the spec at the counterexample:\n{text}"
    );
    inputs
}

/// The `.npy` arrays of `dir`, by file stem (a fixture's inputs or expected outputs).
pub fn read_npys(dir: &Path) -> BTreeMap<String, Array> {
    let mut m = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "npy") {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            m.insert(name, npy::read(&p).unwrap());
        }
    }
    m
}

/// A finished command's stdout then stderr, as text.
pub fn output_text(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `lift ARGS` run from the repository root: (exit code, stdout then stderr).
pub fn lift_at_root(args: &[&str]) -> (Option<i32>, String) {
    let out = assert_cmd::Command::cargo_bin("lift")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap();
    (out.status.code(), output_text(&out))
}

/// The names (stems) of the `.cu` sources of an NVRTC corpus folder, sorted.
pub fn cu_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            (p.extension()? == "cu").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    names
}

/// The value of `// KEY:` in the comment header of `DIR/NAME.cu` (the generators write
/// each kernel's expectations there); panics naming the file where it is missing.
pub fn cu_header(dir: &Path, name: &str, key: &str) -> String {
    let text = std::fs::read_to_string(dir.join(format!("{name}.cu"))).unwrap();
    text.lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| {
            l[2..]
                .trim()
                .strip_prefix(key)
                .and_then(|r| r.strip_prefix(':'))
                .map(|e| e.trim().to_string())
        })
        .unwrap_or_else(|| panic!("{name}.cu: no `// {key}:` line"))
}
