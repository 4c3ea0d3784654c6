//! Issue 43, item 6: Hopper's warpgroup tensor cores (`wgmma.mma_async` on shared-memory
//! matrix descriptors), from real compilers.
//!
//! - `ptx/triton/matmul_f16_sm90*` (Triton 3.9 at `GPUTarget("cuda", 90, 32)`,
//!   `python3 ptx/triton/generate.py`, assembled by the wheel's ptxas for sm_90a): the fp16
//!   `tl.dot` of `matmul_f16` with a 3-stage `cp.async` ring and `wgmma.mma_async
//!   .m64n64k16` in the 64-, 32- and 128-byte swizzles (K steps of 32, 16, 64), and a twin
//!   reading B at row k // 2; `matmul_bf16_sm90`, the K-step-16 kernel over bfloat16.
//! - `ptx/wgmma/` (NVRTC 12.9 at compute_90a, `python3 ptx/wgmma/generate.py`): an
//!   inline-PTX `wgmma.mma_async.m64n16k16` GEMM with tiles in the 32-byte swizzle, and
//!   twins made by textual edits of its source: no `wgmma.wait_group`, the wait after
//!   the K loop only, and descriptors without the swizzle.
//!
//! Expected verdicts come from the `.cu` headers and the `.py` docstrings, whose reasons
//! follow from each twin's edit (ptxas itself warns that it injects a `warpgroup.wait`
//! into the no-wait twin). The descriptor layouts are lift's reading of the PTX ISA;
//! Triton's kernels, made by others for real hardware, agreeing with the naive kernel
//! (`ptx/mma/naive_f16`, one thread per element) is the independent check of them.

use crate::common::{cu_header, cu_names, lift_at_root as lift};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The value of `// KEY:` in the header of `ptx/wgmma/NAME.cu`.
fn header(name: &str, key: &str) -> String {
    cu_header(&root().join("ptx/wgmma"), name, key)
}

fn names() -> Vec<String> {
    cu_names(&root().join("ptx/wgmma"))
}

const NAIVE: &str = "ptx/mma/naive_f16.ptx";

fn accumulation(n: usize) -> String {
    format!(
        "f32 accumulation of `wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16` read as exact"
    )
}

/// The line of the first instruction of `ptx` that starts with `prefix`.
fn line_of(ptx: &str, prefix: &str) -> usize {
    let text = std::fs::read_to_string(root().join(ptx)).unwrap();
    1 + text
        .lines()
        .position(|l| l.trim_start().starts_with(prefix))
        .unwrap_or_else(|| panic!("{ptx}: no {prefix}"))
}

#[test]
fn wgmma_corpus_gets_its_race_verdicts() {
    let names = names();
    assert!(
        names.len() >= 4,
        "only {} kernels in ptx/wgmma",
        names.len()
    );
    for name in &names {
        let want = header(name, "expect");
        let ptx = format!("ptx/wgmma/{name}.ptx");
        let (code, text) = lift(&["race", &ptx]);
        let verdict = text
            .lines()
            .last()
            .unwrap_or("")
            .split(' ')
            .next()
            .unwrap_or("");
        assert_eq!(verdict, want, "{name}:\n{text}");
        match want.as_str() {
            "SAFE" => assert_eq!(code, Some(0), "{name}:\n{text}"),
            "RACE" => {
                assert_eq!(code, Some(1), "{name}:\n{text}");
                assert!(text.contains("data race"), "{name}:\n{text}");
                // The finding names the wgmma.mma_async by its line.
                let issue = line_of(&ptx, "wgmma.mma_async");
                assert!(
                    text.contains(&format!("`wgmma.mma_async` at line {issue}")),
                    "{name}: the in-flight operation's line {issue} is not named\n{text}"
                );
            }
            w => panic!("{name}: unexpected expectation {w}"),
        }
    }
    // No wait: the race is on an accumulator register, read by the store of C.
    let (_, text) = lift(&["race", "ptx/wgmma/wgmma_gemm_no_wait.ptx"]);
    assert!(text.contains("data race on register %f"), "{text}");
    assert!(text.contains("st.global.f32"), "{text}");
    // The wait after the loop: the second K step's shared stores overwrite the tiles.
    let (_, text) = lift(&["race", "ptx/wgmma/wgmma_gemm_wait_after_loop.ptx"]);
    assert!(text.contains("data race on shared `"), "{text}");
    assert!(text.contains("overwritten in between"), "{text}");
    // With one K step nothing is overwritten, and the final wait covers the registers.
    let (code, text) = lift(&[
        "race",
        "ptx/wgmma/wgmma_gemm_wait_after_loop.ptx",
        "--size",
        "K=16",
    ]);
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn wgmma_corpus_gets_its_equiv_verdicts_against_the_naive_kernel() {
    for name in names() {
        let want = header(&name, "equiv");
        let ptx = format!("ptx/wgmma/{name}.ptx");
        let (code, text) = lift(&["equiv", &ptx, NAIVE]);
        match want.as_str() {
            "race" => {
                assert_eq!(code, Some(1), "{name}:\n{text}");
                assert!(text.contains("data race"), "{name}:\n{text}");
            }
            "equivalent" => {
                assert_eq!(code, Some(0), "{name}:\n{text}");
                // M = 64, N = 32: every element.
                assert!(
                    text.contains("2048 of 2048 elements proved equal"),
                    "{name}:\n{text}"
                );
                assert!(
                    text.contains(&accumulation(16)),
                    "{name}: precision not stated\n{text}"
                );
            }
            "refuted" => {
                assert_eq!(code, Some(1), "{name}:\n{text}");
                assert!(
                    text.contains("REFUTED") && text.contains("counterexample"),
                    "{name}:\n{text}"
                );
            }
            w => panic!("{name}: unexpected expectation {w}"),
        }
    }
}

const SM90: [&str; 3] = [
    "ptx/triton/matmul_f16_sm90.ptx",
    "ptx/triton/matmul_f16_sm90_k16.ptx",
    "ptx/triton/matmul_f16_sm90_k64.ptx",
];

#[test]
fn triton_sm90_gemms_lift_to_a_matmul() {
    for ptx in SM90 {
        let (code, text) = lift(&[ptx]);
        assert_eq!(code, Some(0), "{ptx}:\n{text}");
        assert!(text.starts_with("C[M,N] = A @ B\n"), "{ptx}:\n{text}");
        assert!(text.contains(&accumulation(64)), "{ptx}:\n{text}");
    }
}

#[test]
fn triton_sm90_gemms_against_the_naive_and_the_sm80_kernels() {
    for ptx in SM90 {
        let (code, text) = lift(&["equiv", ptx, NAIVE]);
        assert_eq!(code, Some(0), "{ptx}:\n{text}");
        assert!(text.contains("VERIFIED"), "{ptx}:\n{text}");
        let (code, text) = lift(&["race", ptx]);
        assert_eq!(code, Some(0), "{ptx}:\n{text}");
    }
    // M = 64, N = 128: two programs, every element.
    let (code, text) = lift(&["equiv", SM90[0], NAIVE]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("8192 of 8192 elements proved equal"),
        "{text}"
    );
    // The same source at sm_80 (mma.sync) and at sm_90 (wgmma).
    let (code, text) = lift(&["equiv", SM90[0], "ptx/triton/matmul_f16.ptx"]);
    assert_eq!(code, Some(0), "{text}");
    // The twin reads B at row k // 2: right for one K step of 32, wrong for two.
    let bug = "ptx/triton/matmul_f16_sm90_bug.ptx";
    let (code, text) = lift(&["equiv", bug, NAIVE]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("REFUTED"), "{text}");
    let (code, text) = lift(&["equiv", "--size", "K=32", bug, NAIVE]);
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn triton_sm90_bf16_gemm_meets_its_spec_and_not_a_wrong_one() {
    let ptx = "ptx/triton/matmul_bf16_sm90.ptx";
    let (code, text) = lift(&["check", ptx, "--spec", "C = A.float() @ B.float()"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("f32 accumulation of `wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16` read as exact"),
        "{text}"
    );
    // B transposed (square at this launch): another product.
    let (code, text) = lift(&["check", ptx, "--spec", "C = A.float() @ B.float().T"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("REFUTED"), "{text}");
}
