//! Issue 20's set of LLM-style kernels (`llm/`, built by `llm/generate.py` with NVRTC and
//! Triton): every check of `llm/set.toml` gets its verdict from `lift check` at the
//! launch's instance, and
//!
//! * a wrong kernel (expect `refuted`, `race` or `undefined`) is never VERIFIED; refuted
//!   ones carry a counterexample that replays through `lift run` (the kernel value it
//!   names is what a concrete run on its inputs stores);
//! * a correct kernel (expect `verified`) is never REFUTED;
//! * nobody does worse than `llm/status.toml` says it does today (each check's `got`,
//!   with the reason where it falls short of its `expect`), so the rates cannot drop.
//!
//! `LIFT_BLESS=1` rewrites `llm/status.toml` with what each check gets now (the reason
//! of a shortfall is lift's own message; review the diff); soundness failures still fail.
//!
//! The expected verdicts come from each kernel's math (`bug` in `llm/table.py` says why a
//! wrong one is wrong), not from lift's output.

use crate::common;

use lift::check::{self, CheckOptions, Outcome, Report};
use lift::exec::ErrorKind;
use lift::{Error, Kernel};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn llm_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("llm")
}

#[derive(Debug, Deserialize)]
struct SetToml {
    check: Vec<Check>,
}

#[derive(Debug, Deserialize, Clone)]
struct Check {
    name: String,
    kernel: String,
    #[allow(dead_code)]
    style: String,
    spec: String,
    expect: String,
    #[serde(default)]
    bug: Option<String>,
}

/// What a check got when `llm/status.toml` was last written, and why it falls short.
#[derive(Debug, Deserialize, Clone)]
struct Status {
    got: String,
    #[serde(default)]
    reason: Option<String>,
}

fn set() -> Vec<Check> {
    let text = std::fs::read_to_string(llm_dir().join("set.toml")).expect("llm/set.toml exists");
    toml::from_str::<SetToml>(&text)
        .expect("llm/set.toml parses")
        .check
}

fn statuses() -> BTreeMap<String, Status> {
    let text =
        std::fs::read_to_string(llm_dir().join("status.toml")).expect("llm/status.toml exists");
    toml::from_str(&text).expect("llm/status.toml parses")
}

/// The verdict a check gets, as one word, with the report when there is one.
enum Got {
    Report(Box<(Kernel, lift::launch::Instance, Report)>),
    Error(Error),
}

impl Got {
    fn word(&self) -> &'static str {
        match self {
            Got::Report(b) => match b.2.outcome {
                Outcome::Verified => "verified",
                Outcome::Refuted => "refuted",
                _ => "unknown",
            },
            Got::Error(Error::Exec { err, .. }) => match err.kind {
                ErrorKind::Race => "race",
                ErrorKind::MaskedOff => "undefined",
                ErrorKind::OutOfBounds | ErrorKind::NeverWritten => "fault",
                ErrorKind::Unsupported | ErrorKind::Limit => "unknown",
                _ => "error",
            },
            Got::Error(_) => "error",
        }
    }

    fn text(&self) -> String {
        match self {
            Got::Report(b) => {
                let t = b.2.to_text();
                let lines: Vec<&str> = t.lines().collect();
                lines[lines.len().saturating_sub(4)..].join(" / ")
            }
            Got::Error(e) => e.to_string(),
        }
    }
}

fn run_check(c: &Check) -> Got {
    let path = llm_dir().join(&c.kernel);
    let k = Kernel::load(&path, None).unwrap_or_else(|e| panic!("{}: {e}", c.name));
    let inst = k
        .instance(&BTreeMap::new())
        .unwrap_or_else(|e| panic!("{}: {e}", c.name));
    match check::check(&k, &inst, &c.spec, &CheckOptions::default()) {
        Ok(r) => Got::Report(Box::new((k, inst, r))),
        Err(e) => Got::Error(e),
    }
}

/// A refutation's counterexample replays: `lift run` on its inputs stores the kernel
/// value it names at its element.
fn replays(c: &Check, k: &Kernel, inst: &lift::launch::Instance, r: &Report) -> Result<(), String> {
    let cx = r
        .counterexample
        .as_ref()
        .ok_or("REFUTED without a counterexample")?;
    let Some(kernel_value) = cx.left else {
        // A fault found by the refuter (an unwritten element) names no value.
        return Ok(());
    };
    let (arrays, scalars) = r.counterexample_inputs(inst, &BTreeMap::new());
    let arrays: BTreeMap<_, _> = arrays.into_iter().collect();
    let run = k
        .run(inst, &arrays, &scalars)
        .map_err(|e| format!("lift run on the counterexample fails: {e}"))?;
    let out = &run
        .outputs
        .iter()
        .find(|(n, _)| n == &cx.tensor)
        .ok_or(format!("no output {}", cx.tensor))?
        .1;
    let flat = cx
        .index
        .iter()
        .zip(&out.shape)
        .fold(0, |acc, (&x, &d)| acc * d + x);
    let got = out.data[flat];
    let close = (got.is_nan() && kernel_value.is_nan())
        || got == kernel_value
        || (got - kernel_value).abs() <= 1e-5 * (1.0 + kernel_value.abs());
    if close {
        Ok(())
    } else {
        Err(format!(
            "{}: lift run gives {got} at {}{:?}, the counterexample says {kernel_value}",
            c.name, cx.tensor, cx.index
        ))
    }
}

#[test]
fn llm_set_gets_its_expected_verdicts_and_no_less_than_its_status() {
    let checks = set();
    let bless = std::env::var("LIFT_BLESS").is_ok_and(|v| v == "1");
    let status = if bless { BTreeMap::new() } else { statuses() };
    let mut blessed = String::from(
        "# What each check of llm/set.toml gets today (tests/llm_set.rs; LIFT_BLESS=1 rewrites it).\n\
         # `got` below `expect` (set.toml) needs a reason; the test fails on any regression.\n",
    );
    let correct = checks.iter().filter(|c| c.expect == "verified").count();
    let wrong = checks.len() - correct;
    assert!(
        correct >= 50 && wrong >= 12,
        "{correct} correct, {wrong} wrong checks"
    );
    let mut failures = Vec::new();
    let mut table = Vec::new();
    let (mut verified, mut caught) = (0, 0);
    for c in &checks {
        assert!(
            c.expect == "verified" || c.bug.is_some(),
            "{}: a wrong kernel states its bug",
            c.name
        );
        let got = run_check(c);
        let word = got.word();
        if bless {
            blessed.push_str(&format!("\n[\"{}\"]\ngot = \"{word}\"\n", c.name));
            if word != c.expect {
                let reason = got
                    .text()
                    .replace('\n', " ")
                    .replace('\\', "\\\\")
                    .replace('"', "\\\"");
                blessed.push_str(&format!(
                    "reason = \"{}\"\n",
                    reason.chars().take(400).collect::<String>()
                ));
            }
        }
        let blessed_status = Status {
            got: word.to_string(),
            reason: Some(String::new()),
        };
        let want = if bless {
            &blessed_status
        } else {
            status
                .get(&c.name)
                .unwrap_or_else(|| panic!("{}: no entry in llm/status.toml", c.name))
        };
        assert!(
            want.got == c.expect || want.reason.is_some(),
            "{}: llm/status.toml says {} (expect {}) without a reason",
            c.name,
            want.got,
            c.expect
        );
        // Soundness: a wrong kernel is never proved, a correct one never refuted.
        if c.expect != "verified" && word == "verified" {
            failures.push(format!(
                "{}: WRONG KERNEL VERIFIED ({}): {}",
                c.name,
                c.bug.as_deref().unwrap_or(""),
                got.text()
            ));
        }
        if c.expect == "verified"
            && matches!(word, "refuted" | "race" | "undefined" | "fault")
            && want.got != word
        {
            failures.push(format!(
                "{}: a correct kernel gets {word}: {}",
                c.name,
                got.text()
            ));
        }
        if word == "refuted" {
            if let Got::Report(b) = &got {
                if let Err(e) = replays(c, &b.0, &b.1, &b.2) {
                    failures.push(format!("{}: {e}", c.name));
                }
            }
        }
        // No regression below the committed status.
        if want.got == c.expect && word != c.expect {
            failures.push(format!(
                "{}: got {word}, llm/status.toml says {}: {}",
                c.name,
                want.got,
                got.text()
            ));
        } else if want.got != c.expect && word == c.expect {
            eprintln!(
                "{}: now {word} as expected; llm/status.toml can say so",
                c.name
            );
        } else if want.got != word && word != c.expect {
            eprintln!(
                "{}: got {word} (status: {}, expect {}): {}",
                c.name,
                want.got,
                c.expect,
                got.text()
            );
        }
        if c.expect == "verified" {
            verified += usize::from(word == "verified");
        } else {
            caught += usize::from(word == c.expect || word == "refuted");
        }
        table.push(format!("| {} | {} | {word} |", c.name, c.expect));
    }
    eprintln!(
        "llm set: {correct} correct checks, {verified} VERIFIED ({:.1}%); {wrong} wrong checks, {caught} caught (REFUTED/RACE/undefined)\n{}",
        100.0 * verified as f64 / correct as f64,
        table.join("\n")
    );
    if bless {
        std::fs::write(llm_dir().join("status.toml"), blessed).expect("write llm/status.toml");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    if bless {
        return;
    }
    let promised = |expect: bool| {
        checks
            .iter()
            .filter(|c| (c.expect == "verified") == expect && status[&c.name].got == c.expect)
            .count()
    };
    assert!(verified >= promised(true));
    assert!(caught >= promised(false));
}

/// Item 2 of issue 20: a running max seeded with `-FLT_MAX` over float32 inputs is
/// proved equal to `amax` and the verdict states the seed it read as -inf; one seeded
/// with `-INFINITY` needs no such line; one seeded with `-1e10` is refuted on a row below
/// the seed.
#[test]
fn running_max_seeds_are_stated_where_they_are_read_as_inf_and_refuted_where_they_matter() {
    let check_of = |kernel: &str, spec: &str| {
        let k = Kernel::load(&llm_dir().join(kernel), None).unwrap();
        let i = k.instance(&BTreeMap::new()).unwrap();
        check::check(&k, &i, spec, &CheckOptions::default()).unwrap()
    };
    let r = check_of("cuda/rowmax_if.ptx", "out = torch.amax(x, dim=1)");
    assert_eq!(r.outcome, Outcome::Verified, "{}", r.to_text());
    assert!(
        r.assumptions.iter().any(|a| a.contains("-FLT_MAX")),
        "{:?}",
        r.assumptions
    );
    let r = check_of("cuda/softmax_warp.ptx", "y = torch.softmax(x, dim=1)");
    assert_eq!(r.outcome, Outcome::Verified, "{}", r.to_text());
    assert!(
        r.assumptions.iter().all(|a| !a.contains("seed")),
        "{:?}",
        r.assumptions
    );
    let r = check_of("cuda/rowmax_seed_1e10.ptx", "out = torch.amax(x, dim=1)");
    assert_eq!(r.outcome, Outcome::Refuted, "{}", r.to_text());
    let cx = r.counterexample.as_ref().unwrap();
    assert_eq!(cx.left, Some(-1e10), "{}", r.to_text());
    assert!(cx.right.is_some_and(|v| v < -1e10), "{}", r.to_text());
}

/// Item 3 of issue 20 (the formula half): `lift` prints argmax/argmin, products, scans
/// and triangles. The expected formulas are what each kernel's source computes; the
/// twins whose math differs (ties to the last index, an exclusive scan, a k loop over
/// part of the row) do not get the op's formula.
#[test]
fn argmax_products_scans_and_triangles_lift_to_their_formulas_and_twins_do_not() {
    let formula = |kernel: &str| -> Option<String> {
        let k = Kernel::load(&llm_dir().join(kernel), None).unwrap();
        let i = k.instance(&BTreeMap::new()).unwrap();
        let mut t = lift::term::Terms::new();
        let l = lift::synth::lift(&k, &i, &mut t).unwrap();
        let [o] = &l.outputs[..] else {
            panic!("{kernel}: one output expected")
        };
        o.formula
            .as_ref()
            .map(|f| lift::render::text::expr_in(f, &l.env))
    };
    for (kernel, want) in [
        ("cuda/argmax_thread.ptx", "argmax(x, axis=1)"),
        ("cuda/argmax_warp_shuffle.ptx", "argmax(x, axis=1)"),
        ("triton/t_argmax.ttir", "argmax(x, axis=1)"),
        ("triton/t_argmin.ttir", "argmin(x, axis=1)"),
        ("cuda/prod_thread.ptx", "prod(x, axis=1)"),
        ("cuda/cumsum_thread.ptx", "cumsum(x, axis=1)"),
        ("cuda/cumsum_hillis_steele.ptx", "cumsum(x, axis=1)"),
        ("triton/t_cumsum.ttir", "cumsum(x, axis=1)"),
        // The full k loop masked to the lower triangle, and the k loop from col to
        // row, which multiplies the triangles of A and B only.
        ("cuda/tril_matmul_full.ptx", "tril(A @ B)"),
        ("cuda/tril_matmul.ptx", "tril(A) @ tril(B)"),
        // diag(a) @ B scales row i by a[i]: NumPy's column `a[:, None]` (`a.T` of a
        // vector would be `a` along the rows).
        ("cuda/diag_matmul.ptx", "B * a[:, None]"),
    ] {
        assert_eq!(formula(kernel).as_deref(), Some(want), "{kernel}");
    }
    for kernel in ["cuda/argmax_last_tie.ptx", "cuda/cumsum_exclusive.ptx"] {
        let f = formula(kernel);
        assert!(
            f.as_deref()
                .is_none_or(|f| !f.contains("argmax") && !f.contains("cumsum")),
            "{kernel}: {f:?}"
        );
    }
}

/// Pooling and convolution lift to PyTorch's own calls, with the geometry each kernel's
/// source uses (the specs in llm/set.toml name the same calls), and the NumPy rendering
/// of each formula computes what direct loops over PyTorch's definitions compute
/// (`out[i] = op over j of x[i·s - p + j·d]`, padding -inf for a max pool, 0 for an
/// average pool, which keeps dividing by the kernel size, and for a convolution). The
/// twin whose window is off by one gets no pooling formula.
#[test]
fn pooling_and_convolution_lift_to_their_calls_and_render_as_the_loops_compute() {
    let lift = |kernel: &str, format: &str| -> String {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_lift"))
            .args([llm_dir().join(kernel).to_str().unwrap(), "--format", format])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let cases = [
        (
            "maxpool1d",
            "max_pool1d(x, kernel_size=4, stride=2)",
            "pool(x, 'max', (4,), (2,), (0,))",
            "x=(2, 2, 16)",
        ),
        (
            "avgpool1d",
            "avg_pool1d(x, kernel_size=3, stride=2, padding=1)",
            "pool(x, 'avg', (3,), (2,), (1,))",
            "x=(2, 2, 15)",
        ),
        (
            "maxpool2d",
            "max_pool2d(x, kernel_size=2)",
            "pool(x, 'max', (2, 2), (2, 2), (0, 0))",
            "x=(1, 2, 6, 8)",
        ),
        (
            "conv1d",
            "conv1d(x, w)",
            "conv(x, w, None, 1, 0)",
            "x=(2, 3, 10), w=(4, 3, 3)",
        ),
        (
            "conv1d_padded",
            "conv1d(x, w, b, stride=2, padding=1)",
            "conv(x, w, b, 2, 1)",
            "x=(2, 2, 9), w=(3, 2, 3), b=(3,)",
        ),
    ];
    let mut script = String::from(PYTHON_WINDOWS);
    for (kernel, want, reference, shapes) in cases {
        let text = lift(&format!("cuda/{kernel}.ptx"), "text");
        let first = text.lines().next().unwrap_or("");
        assert!(first.ends_with(&format!("= {want}")), "{kernel}: {text}");
        let module = lift(&format!("cuda/{kernel}.ptx"), "numpy");
        assert!(module.contains("def "), "{kernel}: {module}");
        script += &format!(
            "ns = {{}}\nexec({module:?}, ns)\nf = ns['{kernel}_numpy']\ncheck({kernel:?}, f, lambda x=None, w=None, b=None: {reference}, dict({shapes}))\n"
        );
    }
    let twin = lift("cuda/avgpool1d_window_off_by_one.ptx", "text");
    assert!(!twin.contains("avg_pool1d("), "{twin}");
    let Some(python) = common::require_numpy("pooling_and_convolution_render_as_the_loops_compute")
    else {
        return;
    };
    let out = std::process::Command::new(python)
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).matches("ok").count(),
        5
    );
}

/// Loops over PyTorch's definitions of pooling and convolution (ceil_mode=False,
/// count_include_pad=True), and a checker that runs a rendering against them.
const PYTHON_WINDOWS: &str = r#"
import itertools
import numpy as np

def pool(x, op, k, s, p):
    nd = len(k)
    lead, sp = x.shape[:-nd], x.shape[-nd:]
    out = [(n + 2 * pp - kk) // ss + 1 for n, kk, ss, pp in zip(sp, k, s, p)]
    y = np.zeros(lead + tuple(out))
    for i in itertools.product(*[range(o) for o in out]):
        vals = []
        for j in itertools.product(*[range(kk) for kk in k]):
            pos = [ii * ss - pp + jj for ii, ss, pp, jj in zip(i, s, p, j)]
            inside = all(0 <= q < n for q, n in zip(pos, sp))
            pad = -np.inf if op == 'max' else 0.0
            vals.append(x[(...,) + tuple(pos)] if inside else np.full(lead, pad))
        v = np.stack(vals, axis=-1)
        y[(...,) + i] = v.max(axis=-1) if op == 'max' else v.sum(axis=-1) / len(vals)
    return y

def conv(x, w, b, s, p):
    n, ci, l = x.shape
    co, _, k = w.shape
    lo = (l + 2 * p - k) // s + 1
    y = np.zeros((n, co, lo))
    for a, o, i in itertools.product(range(n), range(co), range(lo)):
        acc = 0.0 if b is None else b[o]
        for c, j in itertools.product(range(ci), range(k)):
            q = i * s - p + j
            if 0 <= q < l:
                acc += x[a, c, q] * w[o, c, j]
        y[a, o, i] = acc
    return y

def check(name, f, ref, shapes):
    rng = np.random.default_rng(7)
    args = {k: rng.standard_normal(v) for k, v in shapes.items()}
    got, want = f(**args), ref(**args)
    assert got.shape == want.shape, (name, got.shape, want.shape)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12), (name, got, want)
    print(name, "ok")
"#;
