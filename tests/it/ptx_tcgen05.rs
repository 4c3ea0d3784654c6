//! Issue 43, item 6: Blackwell's tensor cores (`tcgen05.mma` into tensor memory), from a
//! real compiler.
//!
//! - `ptx/triton/matmul_f16_sm100*` (Triton 3.9 at `GPUTarget("cuda", 100, 32)`,
//!   `python3 ptx/triton/generate.py`, assembled by the wheel's ptxas for sm_100a): the
//!   fp16 `tl.dot` of `matmul_f16` with a 3-stage `cp.async` ring, `tcgen05.alloc` of
//!   64 columns, the accumulator zeroed by `tcgen05.st`, two `tcgen05.mma .kind::f16`
//!   (M = N = 64) per K step issued by one elected thread and committed to mbarriers,
//!   and the epilogue's `tcgen05.ld.16x32bx2`; and a twin reading B at row k // 2.
//! - `ptx/tcgen05/` (NVRTC 12.9 at compute_100a, `python3 ptx/tcgen05/generate.py`): an
//!   inline-PTX `tcgen05.mma` GEMM (M = 128, N = 16, `tcgen05.ld.32x32b`), and twins made
//!   by textual edits of its source: the accumulator read before the last commit's
//!   mbarrier phase completes, no wait inside the K loop, no commit, no
//!   `tcgen05.wait::ld`, an instruction descriptor saying B is N-major, and no
//!   `tcgen05.dealloc` (tensor memory still allocated at exit).
//!
//! Expected verdicts come from the `.py` docstrings and the `.cu` headers, whose reasons
//! follow from each twin's edit. Tensor-memory layouts and
//! descriptor fields are lift's reading of the PTX ISA; Triton's kernel, made by others
//! for real hardware, agreeing with the naive kernel (`ptx/mma/naive_f16`, one thread
//! per element) and with the same source compiled for sm_80 is the independent check
//! of them: a wrong lane, column, swizzle or majorness would refute it.

use crate::common::{cu_header, cu_names, lift_at_root as lift};
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx/tcgen05")
}

const NAIVE: &str = "ptx/mma/naive_f16.ptx";
const GEMM: &str = "ptx/triton/matmul_f16_sm100.ptx";
const BUG: &str = "ptx/triton/matmul_f16_sm100_bug.ptx";

fn accumulation() -> &'static str {
    "f32 accumulation of `tcgen05.mma.cta_group::1.kind::f16` read as exact"
}

#[test]
fn triton_sm100_gemm_lifts_to_a_matmul() {
    let (code, text) = lift(&[GEMM]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.starts_with("C[M,N] = A @ B\n"), "{text}");
    assert!(text.contains(accumulation()), "{text}");
}

#[test]
fn triton_sm100_gemm_equals_the_naive_and_the_sm80_kernels_and_is_race_free() {
    // M = 64, N = 128: two programs, every element.
    let (code, text) = lift(&["equiv", GEMM, NAIVE]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("VERIFIED"), "{text}");
    assert!(
        text.contains("8192 of 8192 elements proved equal"),
        "{text}"
    );
    // The same source at sm_80 (mma.sync).
    let (code, text) = lift(&["equiv", GEMM, "ptx/triton/matmul_f16.ptx"]);
    assert_eq!(code, Some(0), "{text}");
    // Tensor memory, the mma pipe and its mbarriers: no race, no deadlock.
    let (code, text) = lift(&["race", GEMM]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("SAFE"), "{text}");
    // One K step: only the prologue's mma pair and the final wait.
    let (code, text) = lift(&["equiv", "--size", "K=32", GEMM, NAIVE]);
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn triton_sm100_gemm_twin_reading_b_at_half_k_is_refuted() {
    // The twin reads B at row k // 2: right for one K step of 32, wrong for two.
    let (code, text) = lift(&["equiv", BUG, NAIVE]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("REFUTED"), "{text}");
    let (code, text) = lift(&["equiv", "--size", "K=32", BUG, NAIVE]);
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn triton_sm100_gemm_meets_its_spec_and_not_a_transposed_one() {
    let (code, text) = lift(&["check", GEMM, "--spec", "C = A.float() @ B.float()"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains(accumulation()), "{text}");
    // Square at K = N = 64 with M = 64: B transposed is another product.
    let (code, text) = lift(&[
        "check",
        GEMM,
        "--size",
        "N=64",
        "--size",
        "K=64",
        "--spec",
        "C = A.float() @ B.float().T",
    ]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("REFUTED"), "{text}");
}

#[test]
fn tcgen05_corpus_gets_its_race_verdicts_with_a_trail() {
    let names = cu_names(&dir());
    assert!(
        names.len() >= 6,
        "only {} kernels in ptx/tcgen05",
        names.len()
    );
    for name in &names {
        let want = cu_header(&dir(), name, "expect");
        let ptx = format!("ptx/tcgen05/{name}.ptx");
        let (code, text) = lift(&["race", &ptx]);
        let last = text.lines().last().unwrap_or("");
        assert!(last.starts_with(&format!("{want} ")), "{name}:\n{text}");
        match want.as_str() {
            "SAFE" => assert_eq!(code, Some(0), "{name}:\n{text}"),
            "RACE" => {
                assert_eq!(code, Some(1), "{name}:\n{text}");
                assert!(text.contains("data race"), "{name}:\n{text}");
            }
            "DEADLOCK" => {
                assert_eq!(code, Some(1), "{name}:\n{text}");
                assert!(
                    text.contains("an mbarrier phase never completes"),
                    "{name}:\n{text}"
                );
            }
            "UNDEFINED BEHAVIOUR" => {
                assert_eq!(code, Some(1), "{name}:\n{text}");
                assert!(text.contains("still allocated when CTA"), "{name}:\n{text}");
            }
            w => panic!("{name}: unexpected expectation {w}"),
        }
    }
    // Each race names what collided: the accumulator in tensor memory against the mma,
    // a tile the mma reads against the next step's store, a register against the ld.
    let (_, text) = lift(&["race", "ptx/tcgen05/tcgen05_gemm_read_before_wait.ptx"]);
    assert!(
        text.contains("data race on tensor memory lane 0, column 0"),
        "{text}"
    );
    assert!(
        text.contains("the tcgen05.mma issued by thread (0, 0, 0) writes it"),
        "{text}"
    );
    let (_, text) = lift(&["race", "ptx/tcgen05/tcgen05_gemm_no_loop_wait.ptx"]);
    assert!(
        text.contains("the tcgen05.mma issued by thread (0, 0, 0) reads"),
        "{text}"
    );
    assert!(text.contains("st.shared"), "{text}");
    // Tensor memory never freed: the finding names the tcgen05.alloc's line (its source
    // line too) and the columns it gave out.
    let (_, text) = lift(&["race", "ptx/tcgen05/tcgen05_gemm_no_dealloc.ptx"]);
    let alloc = std::fs::read_to_string(dir().join("tcgen05_gemm_no_dealloc.ptx"))
        .unwrap()
        .lines()
        .position(|l| l.contains("tcgen05.alloc"))
        .expect("a tcgen05.alloc")
        + 1;
    assert!(
        text.contains(&format!(
            "the 32 columns of tensor memory this tcgen05.alloc gave out at line {alloc}"
        )),
        "{text}"
    );
    assert!(text.contains("tcgen05_gemm_no_dealloc.cu:"), "{text}");
    let (_, text) = lift(&["race", "ptx/tcgen05/tcgen05_gemm_no_wait_ld.ptx"]);
    assert!(
        text.contains("no `tcgen05.wait::ld` has waited for it"),
        "{text}"
    );
    // The deadlock's trail: all four warps, the barrier's phase and the missing arrival.
    let (_, text) = lift(&["race", "ptx/tcgen05/tcgen05_gemm_no_commit.ptx"]);
    assert!(text.contains("warps 0 to 3"), "{text}");
    assert!(
        text.contains("for phase 0 (parity 0) to complete; 1 of its 1 arrivals are missing"),
        "{text}"
    );
    // One K step: no tile is overwritten, so the twin without the loop's wait is safe.
    let (code, text) = lift(&[
        "race",
        "ptx/tcgen05/tcgen05_gemm_no_loop_wait.ptx",
        "--size",
        "K=16",
    ]);
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn tcgen05_corpus_gets_its_equiv_verdicts_against_the_naive_kernel() {
    for name in cu_names(&dir()) {
        let want = cu_header(&dir(), &name, "equiv");
        let ptx = format!("ptx/tcgen05/{name}.ptx");
        let (code, text) = lift(&["equiv", &ptx, NAIVE]);
        match want.as_str() {
            "equivalent" => {
                assert_eq!(code, Some(0), "{name}:\n{text}");
                // M = 128, N = 32: every element.
                assert!(
                    text.contains("4096 of 4096 elements proved equal"),
                    "{name}:\n{text}"
                );
                assert!(text.contains(accumulation()), "{name}:\n{text}");
            }
            "refuted" => {
                assert_eq!(code, Some(1), "{name}:\n{text}");
                assert!(text.contains("REFUTED"), "{name}:\n{text}");
            }
            "race" | "deadlock" => {
                assert_eq!(code, Some(1), "{name}:\n{text}");
                assert!(text.contains(&want.to_uppercase()), "{name}:\n{text}");
            }
            "undefined" => {
                assert_eq!(code, Some(1), "{name}:\n{text}");
                assert!(text.contains("UNDEFINED BEHAVIOUR"), "{name}:\n{text}");
            }
            w => panic!("{name}: unexpected expectation {w}"),
        }
    }
    let (code, text) = lift(&["ptx/tcgen05/tcgen05_gemm.ptx"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.starts_with("C[M,N] = A @ B\n"), "{text}");
}
