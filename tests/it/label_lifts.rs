//! Gathers by integer labels lifted to formulas (`triton_ir/labels/`): NLL's class pick
//! `take(logp, t, axis=1)` (`logp[i, t[i]]`), cross-entropy's `take(x, t, axis=1)`
//! beside its log-sum-exp, an embedding's `w[ids]`. The expected pieces come from the
//! kernels' mathematics (kernels.py), not from lift's output; the NumPy rendering of
//! each lifted formula, run by Python on both instances' reference inputs (labels 0
//! and -100 included), reproduces the references, so `take` means what it prints.
//! Named forms: the simplifier folds the idioms to `cross_entropy(x, t,
//! ignore_index=-100)` and `nll_loss(logp, t, ignore_index=-100)` (PyTorch's
//! `F.cross_entropy`/`F.nll_loss` with `reduction='none'` in the torch rendering), the
//! expanded form one flag away; the label-0 twin keeps its own formula; a wrong
//! cross-entropy rule is caught by the rule sampler.

use crate::common;
use crate::common::output_text as text;
use assert_cmd::Command;
use lift::formula::{Formula, Output, ShapeEnv, TakeKind};
use lift::kernel::Kernel;
use lift::term::Terms;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// An instance with references: its name and sizes.
type Instance = (&'static str, &'static [(&'static str, i64)]);

/// Correct label kernels, the pieces their lifted formula must show, and their
/// instances with references.
const LIFTED: &[(&str, &[&str], &[Instance])] = &[
    (
        "nll_loss",
        &["loss[M] = ", "take(logp, t, axis=1)", "-100"],
        &[
            ("m4n5", &[("M", 4), ("N", 5)]),
            ("m3n3", &[("M", 3), ("N", 3)]),
        ],
    ),
    (
        "cross_entropy",
        &["loss[M] = ", "take(x, t, axis=1)", "-100", "log("],
        &[
            ("m3n4", &[("M", 3), ("N", 4)]),
            ("m4n10", &[("M", 4), ("N", 10)]),
        ],
    ),
    (
        "embedding",
        &["out[L,D] = w[ids]"],
        &[
            ("l3v5d4", &[("L", 3), ("V", 5), ("D", 4)]),
            ("l4v3d6", &[("L", 4), ("V", 3), ("D", 6)]),
        ],
    ),
];

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("triton_ir/labels")
        .join(name)
}

/// `lift KERNEL [extra]`: exit code and output.
fn lift_text(name: &str, extra: &[&str]) -> (Option<i32>, String) {
    let o = Command::cargo_bin("lift")
        .unwrap()
        .arg(dir(name).join("kernel.ttir"))
        .args(extra)
        .output()
        .unwrap();
    (o.status.code(), text(&o))
}

/// The formula lines of `lift KERNEL [extra]` (`loss[M] = ...`).
fn formula_lines(name: &str, extra: &[&str]) -> Vec<String> {
    let (code, t) = lift_text(name, extra);
    assert_eq!(code, Some(0), "{name}:\n{t}");
    t.lines()
        .filter(|l| l.contains(" = ") && !l.contains(" | "))
        .map(str::to_string)
        .collect()
}

/// The named forms: cross-entropy and NLL print as PyTorch names them; `--expand`
/// prints the gather; the twin whose label 0 counts as ignored keeps its `t > 0`.
#[test]
fn label_losses_print_their_named_forms() {
    assert_eq!(
        formula_lines("nll_loss", &[]),
        ["loss[M] = nll_loss(logp, t, ignore_index=-100)"]
    );
    assert_eq!(
        formula_lines("nll_loss", &["--expand"]),
        ["loss[M] = where(t != -100, -take(logp, t, axis=1), 0)"]
    );
    assert_eq!(
        formula_lines("cross_entropy", &[]),
        ["loss[M] = cross_entropy(x, t, ignore_index=-100)"]
    );
    let expanded = formula_lines("cross_entropy", &["--expand"]);
    assert!(
        expanded.len() == 1 && expanded[0].contains("take(x, t, axis=1)"),
        "{expanded:?}"
    );
    let twin = formula_lines("nll_loss_label0", &[]);
    assert_eq!(twin, ["loss[M] = where(t > 0, -take(logp, t, axis=1), 0)"]);
    let (code, torch) = lift_text("cross_entropy", &["--format", "torch"]);
    assert_eq!(code, Some(0), "{torch}");
    assert!(
        torch.contains(
            "torch.nn.functional.cross_entropy(x, t.long(), ignore_index=-100, reduction='none')"
        ),
        "{torch}"
    );
    let (_, torch) = lift_text("nll_loss", &["--format", "torch"]);
    assert!(
        torch.contains(
            "torch.nn.functional.nll_loss(logp, t.long(), ignore_index=-100, reduction='none')"
        ),
        "{torch}"
    );
}

/// A cross-entropy rule with the log-sum-exp and the picked logit swapped, or an NLL
/// rule without the minus, is caught by the rule sampler; the rules as written are not.
#[test]
fn a_wrong_loss_rule_is_caught() {
    use lift::simplify::{sample, Rules};
    let caught = |rule: &str| {
        let rules = Rules::built_in().with("wrong.egg", rule);
        let wrong = sample::rewrites(&rules).unwrap().pop().unwrap();
        assert_eq!(wrong.file, "wrong.egg");
        let rep = sample::sample(&wrong, &rules, 24, 7);
        assert!(rep.defined > 0, "{}: never sampled", rep.rule);
        rep.disagreement.is_some()
    };
    let zero = "(Num (bigrat (bigint 0) (bigint 1)))";
    assert!(caught(&format!(
        "(rewrite (Where (Cmp \"eq\" t (Num c)) {zero} (Sub (Take x t 1) (LogSumExp x 1 false))) \
         (CrossEntropy x t c) :ruleset rewrites)"
    )));
    assert!(caught(&format!(
        "(rewrite (Where (Cmp \"ne\" t (Num c)) (Take x t 1) {zero}) (NllLoss x t c) :ruleset rewrites)"
    )));
    assert!(!caught(&format!(
        "(rewrite (Where (Cmp \"ne\" t (Num c)) (Neg (Take x t 1)) {zero}) (NllLoss x t c) :ruleset rewrites)"
    )));
}

/// `lift KERNEL --expand` prints the gather and proves it on the instance (exit 0).
#[test]
fn label_kernels_lift_to_gathers() {
    for (name, pieces, _) in LIFTED {
        let o = Command::cargo_bin("lift")
            .unwrap()
            .arg(dir(name).join("kernel.ttir"))
            .arg("--expand")
            .output()
            .unwrap();
        let t = text(&o);
        assert_eq!(o.status.code(), Some(0), "{name}:\n{t}");
        assert!(t.contains("VERIFIED"), "{name}:\n{t}");
        for p in *pieces {
            assert!(t.contains(p), "{name}: no `{p}` in\n{t}");
        }
    }
}

/// The NumPy rendering of each lifted formula reproduces the references at both
/// instances (the formula is lifted once, at the launch's sizes).
#[test]
fn numpy_renderings_of_gathers_reproduce_the_references() {
    let Some(python) =
        common::require_numpy("numpy_renderings_of_gathers_reproduce_the_references")
    else {
        return;
    };
    let mut cases = Vec::new();
    for (name, _, instances) in LIFTED {
        let k = Kernel::load(&dir(name).join("kernel.ttir"), None).unwrap();
        let inst = k.instance(&BTreeMap::new()).unwrap();
        let mut terms = Terms::new();
        let l = lift::synth::lift(&k, &inst, &mut terms).unwrap();
        let outputs: Vec<Output> = l
            .outputs
            .iter()
            .map(|o| {
                let f = o
                    .formula
                    .clone()
                    .unwrap_or_else(|| panic!("{name}: not lifted"));
                Output::new(&o.name, f)
            })
            .collect();
        let env = ShapeEnv::from_launch(&k.launch, &inst.sizes).unwrap();
        let src = lift::render::numpy::function(&outputs, &env, "kernel").unwrap();
        let params = lift::render::parameters(&outputs);
        for (inst_name, sizes) in *instances {
            cases.push(common::NumpyCase {
                module: format!("k_{name}_{inst_name}"),
                source: src.clone(),
                ref_dir: dir(name).join("ref").join(inst_name),
                outputs: outputs.iter().map(|o| o.name.clone()).collect(),
                tensors: params
                    .iter()
                    .filter(|p| env.tensors.contains_key(*p))
                    .cloned()
                    .collect(),
                scalars: vec![],
                sizes: sizes.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            });
        }
    }
    let compared = common::run_numpy_cases(&python, &cases).unwrap_or_else(|e| panic!("{e}"));
    // nll_loss 4 + 3 rows, cross_entropy 3 + 4, embedding 3·4 + 4·6 elements
    assert_eq!(compared, 50);
}

/// `take` reads 0 at a position outside the axis, in the terms and in every Python
/// rendering (where NumPy and PyTorch would raise): `take(x, t)` with `t` declared
/// to take `-1..3` over an axis of 2 is `x[i, t[i]]` at `t` in `0..2` and 0 at `-1`
/// and `2`.
#[test]
fn take_reads_zero_outside_the_axis() {
    let mut terms = Terms::new();
    terms.declare_int_values("t", &[-1, 0, 1, 2]);
    let mut env = ShapeEnv::default();
    env.tensors.insert("x".into(), vec![3, 2]);
    env.tensors.insert("t".into(), vec![3]);
    let f = Formula::take(TakeKind::Along, Formula::input("x"), Formula::input("t"), 1);
    assert_eq!(f.shape(&env).unwrap(), vec![3]);
    let elems = f.instantiate(&mut terms, &env).unwrap();
    let t1 = terms.input("t", &[1]);
    for (v, want) in [(-1, None), (0, Some(0)), (1, Some(1)), (2, None)] {
        let got = terms.fix_leaves(elems[1], &[t1], &[v]);
        let want = match want {
            Some(j) => terms.input("x", &[1, j]),
            None => terms.zero(),
        };
        assert_eq!(got, want, "t[1] = {v}");
    }
    // `w[idx]`: the index's axes replace the gathered one.
    env.tensors.insert("idx".into(), vec![4]);
    let g = Formula::take(
        TakeKind::Index,
        Formula::input("x"),
        Formula::input("idx"),
        0,
    );
    assert_eq!(g.shape(&env).unwrap(), vec![4, 2]);
    assert_eq!(lift::render::text::expr(&g), "x[idx]");
    assert_eq!(lift::render::text::expr(&f), "take(x, t, axis=1)");
    let np = lift::render::numpy::expr(&f, &env);
    assert!(
        np.contains("np.take_along_axis(") && np.contains("astype(np.int64)"),
        "{np}"
    );
    let torch = lift::render::torch::expr(&f, &env);
    assert!(
        torch.contains("torch.gather(") && torch.contains(".long()"),
        "{torch}"
    );
    // A real (not integer) index has no declared values: an error, not a panic.
    env.tensors.insert("r".into(), vec![3]);
    let bad = Formula::take(TakeKind::Along, Formula::input("x"), Formula::input("r"), 1);
    assert!(bad.instantiate(&mut terms, &env).is_err());
}

/// The verdict line (`VERIFIED …`, `REFUTED …`) of `lift KERNEL [extra]`, with its exit
/// code.
fn verdict_line(name: &str, extra: &[&str]) -> (Option<i32>, String) {
    let (code, t) = lift_text(name, extra);
    let line = t
        .lines()
        .find(|l| l.starts_with("VERIFIED") || l.starts_with("REFUTED"))
        .unwrap_or_else(|| panic!("{name}: no verdict in\n{t}"))
        .to_string();
    (code, line)
}

/// The sizes of `REFUTED at M=5, N=3: …`.
fn refuted_sizes(line: &str) -> BTreeMap<String, i64> {
    let at = line
        .split_once("REFUTED at ")
        .unwrap_or_else(|| panic!("not refuted for all sizes: {line}"))
        .1;
    let at = at.split(':').next().unwrap();
    at.split(", ")
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            (k.trim().to_string(), v.trim().parse().unwrap())
        })
        .collect()
}

/// The correct label kernels are VERIFIED for every size, with no bound on any size
/// but the integer widths', under the labels PyTorch accepts, which the verdict states
/// (the launch declares them: a class in `0..N` or `ignore_index`, a row in `0..V`).
#[test]
fn label_kernels_verify_for_all_sizes_under_their_declared_labels() {
    for (name, labels) in [
        (
            "nll_loss",
            "every t in {0..N, -100} (the launch's declared values)",
        ),
        (
            "cross_entropy",
            "every t in {0..N, -100} (the launch's declared values)",
        ),
        (
            "embedding",
            "every ids in {0..V} (the launch's declared values)",
        ),
    ] {
        let (code, line) = verdict_line(name, &[]);
        assert_eq!(code, Some(0), "{name}: {line}");
        assert!(line.starts_with("VERIFIED for all"), "{name}: {line}");
        assert!(line.contains(labels), "{name}: {line}");
        // Only integer widths bound the sizes (`M <= …` where i32 offsets end).
        for bound in ["N <= 4", "N == 4", "D <= 4", "D == 4"] {
            assert!(!line.contains(bound), "{name}: {line}");
        }
    }
}

/// Wrong twins at every size. Rows taken BLOCK_D apart are right exactly when
/// D == BLOCK_D (4), and the claim says so; a loop over whole blocks leaves a ragged
/// tail unwritten, so it is refuted at a D that 4 does not divide; an ignored row's
/// placeholder `logp[row, row]` leaves the tensor once M > N (the launch has M <= N),
/// refuted at such sizes; a label 0 taken for ignored keeps its own formula.
#[test]
fn label_twins_are_refuted_where_their_bug_shows() {
    let (code, line) = verdict_line("embedding_block_stride", &[]);
    assert_eq!(code, Some(0), "{line}");
    assert!(line.contains("with D == 4"), "{line}");
    let (code, line) = verdict_line("embedding_whole_blocks", &[]);
    assert_eq!(code, Some(1), "{line}");
    let at = refuted_sizes(&line);
    assert!(at["D"] % 4 != 0, "{line}");
    let (code, line) = verdict_line("nll_loss_ignore_diag", &[]);
    assert_eq!(code, Some(1), "{line}");
    let at = refuted_sizes(&line);
    assert!(at["M"] > at["N"], "{line}");
    // On the launch's own instance both are right.
    for name in ["embedding_whole_blocks", "nll_loss_ignore_diag"] {
        let (code, line) = verdict_line(name, &["--scope", "instance"]);
        assert_eq!(code, Some(0), "{name}: {line}");
    }
    // Against PyTorch's NLL the label-0 twin is refuted on the instance already.
    let o = Command::cargo_bin("lift")
        .unwrap()
        .arg("check")
        .arg(dir("nll_loss_label0").join("kernel.ttir"))
        .args([
            "--spec",
            "loss = F.nll_loss(logp, t, ignore_index=-100, reduction='none')",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

/// `lift check` against PyTorch's own losses and lookup proves them for every size too
/// (`F.nll_loss`, `F.cross_entropy` with `reduction='none'` and `F.embedding` read as
/// `take` formulas), stating the labels assumed; the ignored-row twin is refuted
/// against NLL at sizes with more rows than classes.
#[test]
fn label_kernels_check_against_pytorch_for_all_sizes() {
    let check = |name: &str, spec: &str| {
        let o = Command::cargo_bin("lift")
            .unwrap()
            .arg("check")
            .arg(dir(name).join("kernel.ttir"))
            .args(["--spec", spec])
            .output()
            .unwrap();
        let t = text(&o);
        let line = t
            .lines()
            .find(|l| l.starts_with("VERIFIED") || l.starts_with("REFUTED"))
            .unwrap_or_else(|| panic!("{name}: no verdict in\n{t}"))
            .to_string();
        (o.status.code(), line)
    };
    let nll = "loss = F.nll_loss(logp, t, ignore_index=-100, reduction='none')";
    for (name, spec, labels) in [
        ("nll_loss", nll, "every t in {0..N, -100}"),
        (
            "cross_entropy",
            "loss = F.cross_entropy(x, t, reduction=\"none\", ignore_index=-100)",
            "every t in {0..N, -100}",
        ),
        (
            "embedding",
            "out = F.embedding(ids, w)",
            "every ids in {0..V}",
        ),
    ] {
        let (code, line) = check(name, spec);
        assert_eq!(code, Some(0), "{name}: {line}");
        assert!(line.starts_with("VERIFIED for all"), "{name}: {line}");
        assert!(line.contains(labels), "{name}: {line}");
    }
    let (code, line) = check("nll_loss_ignore_diag", nll);
    assert_eq!(code, Some(1), "{line}");
    let at = refuted_sizes(&line);
    assert!(at["M"] > at["N"], "{line}");
}
