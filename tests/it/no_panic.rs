//! No panics: the `lift` binary on mutated and randomly composed real kernels — `lift
//! KERNEL`, `lift check KERNEL --spec …` and their all-sizes step (`--scope all`) — exits
//! with one of its documented codes (0 proved, 1 refuted, 2 usage or input error, 3
//! unknown), never 101 (a panic) and never by a signal (a stack overflow, an abort).
//!
//! The kernels are suite kernels (Triton 3.9.0 IR) edited at the level of ops, so that
//! most mutants still parse and reach the interpreter, the prover and the all-sizes
//! verifier: swapped operands, changed float constants (to 0, ±inf, NaN, huge, tiny),
//! a deleted op, a float op replaced by another of its arity, and a unary function
//! composed in front of an op's first operand. The case count is small for CI;
//! `LIFT_FUZZ_CASES=500` runs a longer campaign.

use crate::seed;

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Suite kernels with their specs: elementwise ops, a row reduction, softmax (one block
/// and online, looped) and layer norm.
const KERNELS: &[(&str, &str)] = &[
    ("add", "z = x + y"),
    ("relu", "y = torch.relu(x)"),
    ("exp", "y = torch.exp(x)"),
    ("log", "y = torch.log(x)"),
    ("sigmoid", "y = torch.sigmoid(x)"),
    ("max", "y = torch.amax(x, dim=1)"),
    ("softmax", "y = torch.softmax(x, dim=-1)"),
    ("softmax_online", "y = torch.softmax(x, dim=-1)"),
    (
        "layer_norm",
        "y = torch.nn.functional.layer_norm(x, (N,), w, b, eps); mean = torch.mean(x, dim=-1); \
         rstd = torch.rsqrt(torch.var(x, dim=-1, unbiased=False) + eps)",
    ),
];

/// Float constants a mutant may take (TTIR spellings of f32 values).
const CONSTANTS: &[&str] = &[
    "0.000000e+00",
    "1.000000e+00",
    "-1.000000e+00",
    "0x7F800000",
    "0xFF800000",
    "0x7FC00000",
    "3.000000e+38",
    "1.000000e-30",
];

/// Float ops by arity: a mutant replaces one by another of the same arity.
const BINARY: &[&str] = &[
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.maxnumf",
    "arith.minnumf",
    "arith.maximumf",
    "arith.minimumf",
];
const UNARY: &[&str] = &[
    "math.exp",
    "math.exp2",
    "math.log",
    "math.log2",
    "math.sqrt",
    "math.rsqrt",
    "math.sin",
    "math.cos",
    "math.erf",
    "math.absf",
    "arith.negf",
];

#[derive(Debug, Clone)]
enum Mutation {
    SwapOperands(usize),
    Constant(usize, usize),
    DeleteOp(usize),
    ReplaceOp(usize, usize),
    Compose(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let p = any::<usize>();
    prop_oneof![
        p.prop_map(Mutation::SwapOperands),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Constant(a, b)),
        any::<usize>().prop_map(Mutation::DeleteOp),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::ReplaceOp(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Compose(a, b)),
    ]
}

/// `%r = NAME %a, %b : T loc(..)`: the result, op name, operands and the rest (` : T
/// loc(..)`), for the ops of `names`.
fn op_line<'a>(line: &'a str, names: &[&str]) -> Option<(&'a str, &'a str, Vec<&'a str>, &'a str)> {
    let (lhs, rhs) = line.split_once(" = ")?;
    let (name, rest) = rhs.split_once(' ')?;
    if !names.contains(&name) {
        return None;
    }
    let (operands, tail) = rest.split_once(" : ")?;
    let operands: Vec<&str> = operands.split(", ").collect();
    if operands
        .iter()
        .any(|o| !o.starts_with('%') || o.contains(' '))
    {
        return None;
    }
    Some((lhs, name, operands, tail))
}

/// Indices of the lines `pick` accepts; the `k`-th of them (modulo), if any.
fn nth_line(lines: &[String], k: usize, pick: impl Fn(&str) -> bool) -> Option<usize> {
    let found: Vec<usize> = (0..lines.len()).filter(|&i| pick(&lines[i])).collect();
    (!found.is_empty()).then(|| found[k % found.len()])
}

fn apply(lines: &mut Vec<String>, m: &Mutation) {
    let all: Vec<&str> = BINARY.iter().chain(UNARY).copied().collect();
    match *m {
        Mutation::SwapOperands(k) => {
            if let Some(i) = nth_line(lines, k, |l| op_line(l, BINARY).is_some()) {
                let (lhs, name, ops, tail) = op_line(&lines[i], BINARY).unwrap();
                if ops.len() == 2 {
                    let indent = &lines[i][..lines[i].len() - lines[i].trim_start().len()];
                    let swapped = format!("{lhs} = {name} {}, {} : {tail}", ops[1], ops[0]);
                    lines[i] = format!("{indent}{}", swapped.trim_start());
                }
            }
        }
        Mutation::Constant(k, c) => {
            let float_const = |l: &str| l.contains("arith.constant") && l.contains("f32");
            if let Some(i) = nth_line(lines, k, float_const) {
                let l = &lines[i];
                // The value sits between `dense<` and `>`, or after `arith.constant `.
                let new = CONSTANTS[c % CONSTANTS.len()];
                let replaced = if let Some((a, b)) = l.split_once("dense<") {
                    b.split_once('>')
                        .map(|(_, rest)| format!("{a}dense<{new}>{rest}"))
                } else {
                    l.split_once("arith.constant ").and_then(|(a, b)| {
                        b.split_once(" : ")
                            .map(|(_, rest)| format!("{a}arith.constant {new} : {rest}"))
                    })
                };
                if let Some(r) = replaced {
                    lines[i] = r;
                }
            }
        }
        Mutation::DeleteOp(k) => {
            let is_op = |l: &str| l.trim_start().starts_with('%') && l.contains(" = ");
            if let Some(i) = nth_line(lines, k, is_op) {
                lines.remove(i);
            }
        }
        Mutation::ReplaceOp(k, r) => {
            if let Some(i) = nth_line(lines, k, |l| op_line(l, &all).is_some()) {
                let (_, name, ops, _) = op_line(&lines[i], &all).unwrap();
                let table = if ops.len() == 2 { BINARY } else { UNARY };
                let new = table[r % table.len()];
                lines[i] = lines[i].replacen(&format!(" {name} "), &format!(" {new} "), 1);
            }
        }
        Mutation::Compose(k, f) => {
            if let Some(i) = nth_line(lines, k, |l| op_line(l, &all).is_some()) {
                let (lhs, name, ops, tail) = op_line(&lines[i], &all).unwrap();
                let indent = lines[i][..lines[i].len() - lines[i].trim_start().len()].to_string();
                let fresh = format!("%fz{i}");
                let g = UNARY[f % UNARY.len()];
                let pre = format!("{indent}{fresh} = {g} {} : {tail}", ops[0]);
                let mut rest: Vec<&str> = ops.clone();
                rest[0] = &fresh;
                let post = format!("{lhs} = {name} {} : {tail}", rest.join(", "));
                lines[i] = post;
                lines.insert(i, pre);
            }
        }
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the binary from the repository root (so source lines resolve); its exit code,
/// `None` when a signal ended it.
fn exit_code(args: &[&str]) -> Option<i32> {
    Command::new(env!("CARGO_BIN_EXE_lift"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the lift binary runs")
        .status
        .code()
}

fn mutant(op: &str, muts: &[Mutation], dir: &Path) -> PathBuf {
    let folder = root().join("triton_ir").join(op);
    let src = std::fs::read_to_string(folder.join("kernel.ttir")).unwrap();
    let mut lines: Vec<String> = src.lines().map(str::to_string).collect();
    for m in muts {
        apply(&mut lines, m);
    }
    let path = dir.join("kernel.ttir");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    std::fs::copy(
        folder.join("kernel.launch.toml"),
        dir.join("kernel.launch.toml"),
    )
    .unwrap();
    path
}

proptest! {
    #![proptest_config(seed::seeded(ProptestConfig {
        cases: std::env::var("LIFT_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(12),
        failure_persistence: None,
        ..ProptestConfig::default()
    }, "no_panic"))]

    #[test]
    fn lift_and_check_on_mutated_kernels_exit_with_a_documented_code(
        pick in any::<usize>(),
        muts in proptest::collection::vec(mutation(), 1..4),
    ) {
        let (op, spec) = KERNELS[pick % KERNELS.len()];
        let dir = tempfile::tempdir().unwrap();
        let k = mutant(op, &muts, dir.path());
        let k = k.to_str().unwrap();
        for args in [
            vec![k, "--scope", "all"],
            vec!["check", k, "--spec", spec, "--scope", "all"],
        ] {
            let code = exit_code(&args);
            let text = std::fs::read_to_string(k).unwrap_or_default();
            prop_assert!(
                matches!(code, Some(0..=3)),
                "`lift {}` exited with {:?} on a mutant of {} ({:?}):\n{}",
                args.join(" "), code, op, muts, text
            );
        }
    }
}

/// The mutations keep the text a kernel: a composed function reads the op's first
/// operand and feeds the op, and a swap exchanges the two operands.
#[test]
fn mutations_edit_the_ops_they_name() {
    let mut lines = vec!["    %z = arith.addf %x, %y : tensor<4xf32> loc(#loc1)".to_string()];
    apply(&mut lines, &Mutation::SwapOperands(0));
    assert_eq!(
        lines[0],
        "    %z = arith.addf %y, %x : tensor<4xf32> loc(#loc1)"
    );
    apply(&mut lines, &Mutation::Compose(0, 2));
    assert_eq!(
        lines,
        [
            "    %fz0 = math.log %y : tensor<4xf32> loc(#loc1)",
            "    %z = arith.addf %fz0, %x : tensor<4xf32> loc(#loc1)",
        ]
    );
    let mut c =
        vec!["    %c = arith.constant dense<2.000000e+00> : tensor<4xf32> loc(#loc1)".to_string()];
    apply(&mut c, &Mutation::Constant(0, 5));
    assert_eq!(
        c[0],
        "    %c = arith.constant dense<0x7FC00000> : tensor<4xf32> loc(#loc1)"
    );
}
