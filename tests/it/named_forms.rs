//! Named forms (`src/simplify/`, `rules/`): each rule file's egglog checks, both sides
//! of every rewrite sampled at random points (a wrong rule is caught), the recognised
//! constants against the standard library's values, the suite's formulas in named
//! form (snapshots, and the issue's expected texts), `--expand` giving back the
//! blessed expanded formula, the torch rendering parsed by Python, and the proof
//! dropping a named form that a wrong rule produced.

use assert_cmd::Command;
use lift::formula::{Formula, ShapeEnv};
use lift::simplify::{self, sample, Rules};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The rules as the repository's `rules/` folder has them (the built-in copy is the
/// same text: `include_str!`).
fn rules() -> Rules {
    Rules::built_in()
}

#[test]
fn each_rule_file_runs_its_checks() {
    let dir = root().join("rules/tests");
    let mut ran = 0;
    for (name, _) in simplify::rules::BUILT_IN {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: every rule file has checks: {e}", path.display()));
        let mut eg = simplify::egraph(&rules()).expect("the rules load");
        if let Err(e) = eg.parse_and_run_program(Some(path.display().to_string()), &text) {
            panic!("{}: {e}", path.display());
        }
        ran += 1;
    }
    assert_eq!(ran, 4);
}

#[test]
fn the_built_in_rules_are_the_files() {
    for (name, text) in simplify::rules::BUILT_IN {
        let on_disk = std::fs::read_to_string(root().join("rules").join(name)).unwrap();
        assert_eq!(on_disk, text, "rules/{name}");
    }
}

#[test]
fn every_rewrite_agrees_at_random_points() {
    let rules = rules();
    let all = sample::rewrites(&rules).unwrap();
    assert!(all.len() > 40, "only {} rewrites", all.len());
    for (k, r) in all.iter().enumerate() {
        let rep = sample::sample(r, &rules, 24, 0x5eed + k as u64);
        assert!(
            rep.disagreement.is_none(),
            "{}: {:?}",
            rep.rule,
            rep.disagreement
        );
        assert!(
            rep.defined > 0,
            "{}: never sampled inside its guards",
            rep.rule
        );
    }
}

#[test]
fn every_guard_rule_holds_at_random_points() {
    let rules = rules();
    let all = sample::derivations(&rules).unwrap();
    assert!(all.len() > 20, "only {} guard rules", all.len());
    for (k, d) in all.iter().enumerate() {
        let rep = sample::sample_derivation(d, &rules, 24, 0x9a4d + k as u64);
        assert!(
            rep.disagreement.is_none(),
            "{}: {:?}",
            rep.rule,
            rep.disagreement
        );
        assert!(rep.defined > 0, "{}: never sampled", rep.rule);
    }
    // A wrong guard: a reduction that drops its axis is not constant along it.
    let wrong = rules.with(
        "wrong.egg",
        "(rule ((= e (Sum x ax false))) ((const-along e ax)) :ruleset guards)",
    );
    let d = sample::derivations(&wrong).unwrap().pop().unwrap();
    assert!(sample::sample_derivation(&d, &wrong, 24, 3)
        .disagreement
        .is_some());
}

/// A rule file with one wrong rule: the sampler names it.
fn caught(rule: &str) -> bool {
    let rules = rules().with("wrong.egg", rule);
    let wrong = sample::rewrites(&rules).unwrap().pop().unwrap();
    assert_eq!(wrong.file, "wrong.egg");
    let rep = sample::sample(&wrong, &rules, 24, 7);
    rep.disagreement.is_some()
}

#[test]
fn a_wrong_rule_is_caught() {
    // exp(a + b) = exp(a) + exp(b): false everywhere
    assert!(caught(
        "(rewrite (Exp (Add a b)) (Add (Exp a) (Exp b)) :ruleset rewrites)"
    ));
    // sum(a / b) = sum(a) / b without its guard (b constant along the axis)
    assert!(caught(
        "(rewrite (Sum (Div a b) ax true) (Div (Sum a ax true) b) :ruleset rewrites)"
    ));
    // softmax over the other axis
    assert!(caught(
        "(rewrite (Softmax x 1) (Softmax x 0) :ruleset rewrites)"
    ));
    // the same rules with their guards and axes right are not
    assert!(!caught(
        "(rewrite (Sum (Div a b) ax true) (Div (Sum a ax true) b) :when ((const-along b ax)) :ruleset rewrites)"
    ));
}

#[test]
fn recognised_constants_are_the_kernels_literals() {
    use std::f64::consts::{E, LN_2, LOG2_E, PI, SQRT_2};
    let known = [
        ("pi", PI),
        ("e", E),
        ("log2(e)", LOG2_E),
        ("log(2)", LN_2),
        ("sqrt(2)", SQRT_2),
        ("1/sqrt(2)", 1.0 / SQRT_2),
        ("sqrt(2/pi)", (2.0 / PI).sqrt()),
        ("0.044715", 0.044715),
    ];
    let rules = rules();
    let mut seen = 0;
    for r in sample::rewrites(&rules).unwrap() {
        let (sample::Sexp::List(rhs), [sample::Sexp::List(guard)]) = (&r.rhs, &r.guards[..]) else {
            continue;
        };
        let [sample::Sexp::Atom(k), sample::Sexp::Str(name), _] = &rhs[..] else {
            continue;
        };
        if k != "K" {
            continue;
        }
        // `(= q (bigrat (bigint P) (bigint Q)))`
        let text = format!("{:?}", guard[2]);
        let ints: Vec<f64> = text
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect();
        let value = ints[0] / ints[1];
        let want = known.iter().find(|(n, _)| n == name).expect(name).1;
        // the f32 or the f64 nearest to the constant
        let f32_ok = value == f64::from(want as f32);
        assert!(
            f32_ok || value == want,
            "{name}: {value} is neither rounding of {want}"
        );
        seen += 1;
    }
    assert_eq!(seen, 2 * known.len());
}

/// `lift KERNEL --scope instance [extra]`: its formula lines (`y[M,N] = ...`).
fn formulas(kernel: &Path, extra: &[&str]) -> Vec<String> {
    let out = Command::cargo_bin("lift")
        .unwrap()
        .arg(kernel)
        .args(["--scope", "instance"])
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", kernel.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(" = ") && !l.contains(" | "))
        .map(str::to_string)
        .collect()
}

fn kernel(op: &str) -> PathBuf {
    root().join("triton_ir").join(op).join("kernel.ttir")
}

/// The suite kernels of the issue, and their wrong twins.
const SUITE: [&str; 15] = [
    "softmax",
    "softmax_online",
    "log_softmax",
    "sigmoid",
    "silu",
    "silu_mul",
    "swiglu",
    "gelu",
    "gelu_sigmoid",
    "gelu_mul",
    "relu",
    "layer_norm",
    "rms_norm",
    "attention",
    "attention_naive",
];
const TWINS: [&str; 6] = [
    "softmax_bug",
    "log_softmax_bug",
    "gelu_bug",
    "layer_norm_bug",
    "rms_norm_bug",
    "attention_bug",
];

#[test]
fn suite_formulas_print_in_named_form() {
    let mut all = String::new();
    for op in SUITE.iter().chain(&TWINS) {
        all += &format!("{op}:\n");
        for l in formulas(&kernel(op), &[]) {
            all += &format!("  {l}\n");
        }
    }
    insta::assert_snapshot!(all);
}

#[test]
fn the_issues_named_forms() {
    let line = |op: &str, out: &str| {
        formulas(&kernel(op), &[])
            .into_iter()
            .find(|l| l.starts_with(out))
            .unwrap_or_else(|| panic!("{op}: no output {out}"))
    };
    assert_eq!(line("softmax", "y"), "y[M,N] = softmax(x, axis=1)");
    assert_eq!(line("log_softmax", "y"), "y[M,N] = log_softmax(x, axis=1)");
    assert_eq!(line("gelu", "y"), "y[N] = gelu(x, approximate='tanh')");
    assert_eq!(line("gelu_mul", "out"), "out[N] = b * gelu(a)");
    assert_eq!(
        line("layer_norm", "rstd"),
        "rstd[M] = rsqrt(var(x, axis=1) + eps)"
    );
    // Entropy is -Σ p·log p with p = softmax(x): the repeated p is bound once.
    assert_eq!(
        line("entropy", "y"),
        "y[M] = -sum(s * log(s), axis=1) where s = softmax(x, axis=1)"
    );
    for op in ["attention", "attention_naive"] {
        assert_eq!(
            line(op, "o"),
            "o[M,D] = softmax(scale * q @ k.T, axis=1) @ v",
            "{op}"
        );
    }
}

#[test]
fn wrong_twins_print_differently_from_their_kernels() {
    for (ok, bug) in [
        ("softmax", "softmax_bug"),
        ("log_softmax", "log_softmax_bug"),
        ("gelu", "gelu_bug"),
        ("layer_norm", "layer_norm_bug"),
        ("rms_norm", "rms_norm_bug"),
        ("attention", "attention_bug"),
    ] {
        assert_ne!(
            formulas(&kernel(ok), &[]),
            formulas(&kernel(bug), &[]),
            "{bug}"
        );
    }
}

#[test]
fn expand_prints_the_blessed_formula() {
    // `expected.toml` holds the synthesised formula (tests/it/fixtures.rs).
    for op in SUITE {
        let expected: toml::Value = toml::from_str(
            &std::fs::read_to_string(root().join("triton_ir").join(op).join("expected.toml"))
                .unwrap(),
        )
        .unwrap();
        let mut want: Vec<String> = expected["lift"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        let mut got = formulas(&kernel(op), &["--expand"]);
        want.sort();
        got.sort();
        assert_eq!(got, want, "{op}");
    }
}

#[test]
fn torch_renderings_call_named_ops_and_parse() {
    let Some(python) = common::require_python("torch_renderings_call_named_ops_and_parse") else {
        return;
    };
    for (op, call) in [
        ("softmax", "torch.softmax(x, dim=1)"),
        ("log_softmax", "torch.log_softmax(x, dim=1)"),
        ("gelu", "torch.nn.functional.gelu(x, approximate='tanh')"),
        ("sigmoid", "torch.sigmoid(x)"),
        ("silu", "torch.nn.functional.silu(x)"),
        ("relu", "torch.relu(x)"),
        (
            "layer_norm",
            "torch.nn.functional.layer_norm(x, x.shape[-1:], w, b, eps)",
        ),
        ("attention", "torch.softmax("),
        // Used twice, computed once into a local.
        ("entropy", "    s = torch.softmax(x, dim=1)\n"),
        // A base-2 softmax (exp2 of log2(e)-scaled scores) is torch's softmax too.
        (
            "attention_norescale",
            "o = torch.softmax(scale * (q @ k.T), dim=1) @ v",
        ),
    ] {
        let out = Command::cargo_bin("lift")
            .unwrap()
            .arg(kernel(op))
            .args(["--scope", "instance", "--format", "torch"])
            .output()
            .unwrap();
        let src = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(src.contains(call), "{op}: no {call} in\n{src}");
        let parsed = std::process::Command::new(&python)
            .args(["-c", "import ast, sys; ast.parse(sys.stdin.read())"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin.take().unwrap().write_all(src.as_bytes())?;
                c.wait()
            })
            .unwrap();
        assert!(parsed.success(), "{op}: Python cannot parse\n{src}");
    }
}

#[test]
fn json_carries_both_forms() {
    let out = Command::cargo_bin("lift")
        .unwrap()
        .arg(kernel("softmax"))
        .args(["--scope", "instance", "--format", "json"])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = &doc["outputs"][0];
    assert_eq!(o["named_text"], "softmax(x, axis=1)");
    assert_eq!(o["named"]["op"], "softmax");
    assert_eq!(o["named"]["axis"], 1);
    assert_eq!(o["formula"]["op"], "div");
    let n = &o["named_nodes"];
    assert!(n["named"].as_u64() < n["formula"].as_u64(), "{n}");
}

fn softmax_env() -> (Formula, ShapeEnv) {
    let x = || Formula::input("x");
    let e = || (x() - x().max(1, true)).exp();
    let env = ShapeEnv::new().tensor("x", &[3, 5]);
    (e() / e().sum(1, true), env)
}

#[test]
fn a_named_form_from_a_wrong_rule_is_dropped() {
    let (f, env) = softmax_env();
    let good = simplify::simplify(&f, &env, &rules()).unwrap();
    assert!(good.proved);
    assert_eq!(good.named.expand().size(), f.size());
    // A wrong rule says softmax(x) = x: extraction takes it (cheaper), the instance
    // proof refutes it, and the formula stays as it was.
    let wrong = rules().with("wrong.egg", "(rewrite (Softmax x ax) x :ruleset rewrites)");
    let bad = simplify::rewrite(&f, &env, &wrong).unwrap();
    assert!(!simplify::prove(&f, &bad.expand(), &env));
    let s = simplify::simplify(&f, &env, &wrong).unwrap();
    assert!(!s.proved);
    assert_eq!(s.named, simplify::Named::Formula(f));
}

/// A named form that writes out to the formula with a row sum moved out of a matrix
/// product (`softmax(s) @ v` against flash attention's `(exp(s) @ v) / sum(exp(s))`)
/// is equal by that identity; a divisor summed along the other axis varies along the
/// product's sum, does not come out, and the pair is decided and refuted.
#[test]
fn a_row_sum_out_of_a_product_proves_and_a_column_sum_is_refuted() {
    let env = ShapeEnv::new().tensor("s", &[4, 4]).tensor("v", &[4, 4]);
    let p = || Formula::input("s").exp();
    let v = || Formula::input("v");
    let named = (p() / p().sum(1, true)).matmul(v());
    let formula = p().matmul(v()) / p().sum(1, true);
    assert!(simplify::prove(&formula, &named, &env));
    assert!(simplify::prove(&named, &formula, &env));
    let named = (p() / p().sum(0, true)).matmul(v());
    let formula = p().matmul(v()) / p().sum(0, true);
    assert_eq!(formula.shape(&env), named.shape(&env));
    assert!(!simplify::prove(&formula, &named, &env));
}

#[test]
fn a_rule_file_that_does_not_parse_is_named() {
    let broken = rules().with("broken.egg", "(rewrite (Exp a)");
    let e = simplify::egraph(&broken).err().expect("a parse error");
    assert!(e.0.starts_with("broken.egg"), "{e}");
}

#[test]
fn simplification_is_deterministic() {
    let (f, env) = softmax_env();
    let a = simplify::rewrite(&f, &env, &rules()).unwrap();
    for _ in 0..3 {
        assert_eq!(simplify::rewrite(&f, &env, &rules()).unwrap(), a);
    }
}

use crate::common;

#[test]
fn latex_prints_named_ops_and_binds_repeats() {
    let latex = |op: &str| {
        let out = Command::cargo_bin("lift")
            .unwrap()
            .arg(kernel(op))
            .args(["--scope", "instance", "--format", "latex"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let softmax = latex("softmax");
    assert!(
        softmax.starts_with("y = \\operatorname{softmax}_{j}\\left(x\\right)"),
        "{softmax}"
    );
    let entropy = latex("entropy");
    assert!(
        entropy.contains("\\quad\\text{where } s = \\operatorname{softmax}_{j}\\left(x\\right)"),
        "{entropy}"
    );
    // `--expand` keeps the synthesised formula written out.
    let out = Command::cargo_bin("lift")
        .unwrap()
        .arg(kernel("softmax"))
        .args(["--scope", "instance", "--format", "latex", "--expand"])
        .output()
        .unwrap();
    let expanded = String::from_utf8_lossy(&out.stdout);
    assert!(
        expanded.contains("\\exp") && !expanded.contains("softmax"),
        "{expanded}"
    );
}
