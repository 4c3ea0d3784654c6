//! Robustness of the Triton IR parser: mutated real kernels (truncated, with tokens
//! or bytes deleted, duplicated, swapped or inserted) must give `Ok` or `Err`, never a
//! panic, a stack overflow or a hang.
//!
//! The corpus is the suite (`triton_ir/*/kernel.ttir`, or `LIFT_TRITON_IR_DIR`) plus
//! the parser's own Triton 3.9 samples, so the test has inputs even before the suite
//! exists.

use crate::seed;

use std::path::{Path, PathBuf};

use lift::triton_ir::parse;
use proptest::prelude::*;

const SAMPLES: &[&str] = &[
    include_str!("../../src/triton_ir/testdata/elem.ttir"),
    include_str!("../../src/triton_ir/testdata/rowred.ttir"),
    include_str!("../../src/triton_ir/testdata/mm.ttir"),
    include_str!("../../src/triton_ir/testdata/ctrl.ttir"),
    include_str!("../../src/triton_ir/testdata/casts.ttir"),
    include_str!("../../src/triton_ir/testdata/calls.ttir"),
    include_str!("../../src/triton_ir/testdata/gath.ttir"),
];

fn corpus() -> Vec<String> {
    let dir = match std::env::var_os("LIFT_TRITON_IR_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("triton_ir"),
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path().join("kernel.ttir"))
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut out: Vec<String> = SAMPLES.iter().map(|s| s.to_string()).collect();
    out.extend(files.iter().filter_map(|p| std::fs::read_to_string(p).ok()));
    out
}

/// Byte-level pieces worth inserting: the syntax the parser branches on.
const PIECES: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "<",
    ">",
    "[",
    "]",
    ":",
    ",",
    "=",
    "->",
    "%",
    "%x",
    "%x:2",
    "^bb1",
    "#loc",
    "#loc9",
    "!tt.ptr<",
    "\"",
    "loc(",
    "dense<",
    "tensor<",
    "x",
    "0x",
    "-",
    "1.5e+00",
    "99999999999999999999999999999999999999999",
    "scf.for",
    "scf.if",
    "scf.while",
    "\"tt.reduce\"(",
    "do",
    "else",
    "iter_args(",
    "callsite(",
    " at ",
    "fused[",
    "\n",
    "\u{00e9}",
    "\0",
];

#[derive(Debug, Clone)]
enum Mutation {
    Truncate(usize),
    DeleteBytes(usize, usize),
    DuplicateBytes(usize, usize),
    Insert(usize, usize),
    DeleteToken(usize),
    DuplicateToken(usize),
    SwapTokens(usize, usize),
    FlipByte(usize, u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let p = any::<usize>();
    prop_oneof![
        p.prop_map(Mutation::Truncate),
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Mutation::DeleteBytes(a, n)),
        (any::<usize>(), 1usize..40).prop_map(|(a, n)| Mutation::DuplicateBytes(a, n)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, k)| Mutation::Insert(a, k)),
        any::<usize>().prop_map(Mutation::DeleteToken),
        any::<usize>().prop_map(Mutation::DuplicateToken),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapTokens(a, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Mutation::FlipByte(a, b)),
    ]
}

/// Whitespace-separated tokens with their separators, so a token edit keeps the rest.
fn split_tokens(s: &[u8]) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut cur = Vec::new();
    for &b in s {
        cur.push(b);
        if b == b' ' || b == b'\n' {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn apply(src: &mut Vec<u8>, m: &Mutation) {
    let len = src.len().max(1);
    match *m {
        Mutation::Truncate(a) => src.truncate(a % len),
        Mutation::DeleteBytes(a, n) => {
            let a = a % len;
            let b = (a + n).min(src.len());
            if a < b {
                src.drain(a..b);
            }
        }
        Mutation::DuplicateBytes(a, n) => {
            let a = a % len;
            let b = (a + n).min(src.len());
            if a < b {
                let piece: Vec<u8> = src[a..b].to_vec();
                src.splice(b..b, piece);
            }
        }
        Mutation::Insert(a, k) => {
            let a = (a % len).min(src.len());
            let piece = PIECES[k % PIECES.len()].as_bytes().to_vec();
            src.splice(a..a, piece);
        }
        Mutation::DeleteToken(i) | Mutation::DuplicateToken(i) | Mutation::SwapTokens(i, _) => {
            let mut toks = split_tokens(src);
            if toks.is_empty() {
                return;
            }
            let n = toks.len();
            match *m {
                Mutation::DeleteToken(_) => {
                    toks.remove(i % n);
                }
                Mutation::DuplicateToken(_) => {
                    let t = toks[i % n].clone();
                    toks.insert(i % n, t);
                }
                Mutation::SwapTokens(_, j) => toks.swap(i % n, j % n),
                _ => {}
            }
            *src = toks.concat();
        }
        Mutation::FlipByte(a, b) => {
            if !src.is_empty() {
                let a = a % src.len();
                src[a] = b;
            }
        }
    }
}

proptest! {
    // `LIFT_FUZZ_CASES=100000` for a longer campaign.
    #![proptest_config(seed::seeded(ProptestConfig {
        cases: std::env::var("LIFT_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    }, "triton_ir_fuzz"))]

    #[test]
    fn mutated_kernels_never_panic(
        pick in any::<usize>(),
        muts in proptest::collection::vec(mutation(), 1..4),
    ) {
        let corpus = corpus();
        let mut src = corpus[pick % corpus.len()].as_bytes().to_vec();
        for m in &muts {
            apply(&mut src, m);
        }
        let text = String::from_utf8_lossy(&src);
        let _ = parse(&text);
    }
}

#[test]
fn every_prefix_of_a_kernel_parses_or_errors() {
    // Exhaustive truncation of one real kernel (ctrl: scf.if, scf.while, scf.for).
    let src = SAMPLES[3];
    for (i, _) in src.char_indices().step_by(7) {
        let _ = parse(&src[..i]);
    }
    assert!(parse(src).is_ok());
}

#[test]
fn deep_nesting_errors_cleanly() {
    for open in [
        "scf.if %c {\n",
        "{",
        "(",
        "[",
        "<",
        "loc(\"a\"(",
        "dense<[",
        "!tt.ptr<",
    ] {
        let s = format!(
            "module {{\n tt.func @k(%c: i1) {{\n{}\n }}\n}}\n",
            open.repeat(100_000)
        );
        assert!(parse(&s).is_err(), "{open}");
    }
    let s = format!("{}module {{}}", "#loc = loc(#loc)\n".repeat(3));
    let _ = parse(&s);
}
