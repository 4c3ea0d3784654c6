//! Issue 43, item 6: Blackwell's tensor cores (`tcgen05.mma` into tensor memory), from a
//! real compiler.
//!
//! - `ptx/triton/matmul_f16_sm100*` (Triton 3.9 at `GPUTarget("cuda", 100, 32)`,
//!   `python3 ptx/triton/generate.py`, assembled by the wheel's ptxas for sm_100a): the
//!   fp16 `tl.dot` of `matmul_f16` with a 3-stage `cp.async` ring, `tcgen05.alloc` of
//!   64 columns, the accumulator zeroed by `tcgen05.st`, two `tcgen05.mma .kind::f16`
//!   (M = N = 64) per K step issued by one elected thread and committed to mbarriers,
//!   and the epilogue's `tcgen05.ld.16x32bx2`; and a twin reading B at row k // 2.
//!
//! Expected verdicts come from the `.py` docstrings. Tensor-memory layouts and
//! descriptor fields are lift's reading of the PTX ISA; Triton's kernel, made by others
//! for real hardware, agreeing with the naive kernel (`ptx/mma/naive_f16`, one thread
//! per element) and with the same source compiled for sm_80 is the independent check
//! of them: a wrong lane, column, swizzle or majorness would refute it.

use crate::common::lift_at_root as lift;

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
    assert!(text.contains("8192 of 8192 elements proved equal"), "{text}");
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
