//! Issue 43: a Hopper GEMM as CuTe DSL writes it (`ptx/cute_gemm/`, nvidia-cutlass-dsl
//! 4.8.1 at `CUTE_DSL_ARCH=sm_90a`, `python3 ptx/cute_gemm/generate.py`): warp 0 loads
//! A and B tiles with TMA through tensor maps the host made (`__grid_constant__`
//! parameters, bound by the launch's `tensormap` tables) into a two-stage ring on
//! `cutlass.pipeline.PipelineTmaAsync`, one warpgroup multiplies each stage with
//! `wgmma` m64n64k16 and releases it, and C is stored from the f32 accumulators; M = 64,
//! N = 128, K = 128 (two CTAs, four K tiles of 32, so each stage is refilled once). The
//! twins are one textual edit of the Python source each (`generate.py`'s TWINS).
//!
//! Expected verdicts come from the sources: `gemm` computes C = A @ B (A row-major
//! M x K, B row-major K x N, as `ptx/mma/naive_f16`, one thread per element, NVRTC);
//! a wrong box, dimension order or swizzle in the launch's maps, or a wrong reading of
//! CuTe's wgmma descriptors, would put other elements of A or B in the products and
//! refute the equivalence. The twins' findings follow from their edits (`# why:`).

use crate::common::lift_at_root as lift;

const GEMM: &str = "ptx/cute_gemm/gemm.ptx";
const NAIVE: &str = "ptx/mma/naive_f16.ptx";

#[test]
fn cute_tma_wgmma_gemm_is_safe_and_lifts_to_a_matmul() {
    let (code, text) = lift(&["race", GEMM]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.lines().last().unwrap_or("").starts_with("SAFE "),
        "{text}"
    );
    let (code, text) = lift(&[GEMM]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.starts_with("C[M,N] = A @ B\n"), "{text}");
}

#[test]
fn cute_tma_wgmma_gemm_equals_the_naive_kernel() {
    let (code, text) = lift(&["equiv", GEMM, NAIVE]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("VERIFIED"), "{text}");
    assert!(
        text.contains("8192 of 8192 elements proved equal"),
        "{text}"
    );
}

/// The producer starts at phase 0 of "empty" instead of the phase before it: its first
/// `producer_acquire` waits for the consumers' releases, and they wait for the tile it
/// never loads.
#[test]
fn cute_gemm_with_the_wrong_initial_parity_deadlocks_with_a_trail() {
    let (code, text) = lift(&["race", "ptx/cute_gemm/gemm_wrong_parity.ptx"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("DEADLOCK"), "{text}");
    assert!(text.contains("an mbarrier phase never completes"), "{text}");
    // Warp 0 at the producer's wait, on "empty" (count 4: one arrival per warp).
    assert!(
        text.contains("warp 0 (threads (0, 0, 0) to (31, 0, 0)) wait at line"),
        "{text}"
    );
    assert!(
        text.contains("with count 4) for phase 0 (parity 0)"),
        "{text}"
    );
    assert!(text.contains("4 of its 4 arrivals are missing"), "{text}");
}

/// Without consumer_release the third K tile's `producer_acquire` (stage 0 again) waits
/// for the four warps' arrivals on "empty", which never come.
#[test]
fn cute_gemm_without_consumer_release_deadlocks_on_the_empty_barrier() {
    let (code, text) = lift(&["race", "ptx/cute_gemm/gemm_missing_release.ptx"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("DEADLOCK"), "{text}");
    assert!(text.contains("an mbarrier phase never completes"), "{text}");
    assert!(
        text.contains("with count 4) for phase 0 (parity 0)"),
        "{text}"
    );
    assert!(text.contains("4 of its 4 arrivals are missing"), "{text}");
}

/// expect_tx of 6144 bytes where A's and B's tiles bring 8192: the full barrier's
/// transaction count passes zero and its phase never completes.
#[test]
fn cute_gemm_expecting_too_few_bytes_is_an_expect_tx_mismatch() {
    let (code, text) = lift(&["race", "ptx/cute_gemm/gemm_tx_too_few.ptx"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("DEADLOCK"), "{text}");
    assert!(text.contains("for phase 0 (parity 0)"), "{text}");
    assert!(
        text.contains("expect_tx mismatch: 2048 bytes more were completed than expected (expect_tx of 6144 bytes at line"),
        "{text}"
    );
}

/// Without `wgmma.wait_group` the accumulators are stored while the wgmma may still be
/// in flight.
#[test]
fn cute_gemm_without_wgmma_wait_is_a_race() {
    let (code, text) = lift(&["race", "ptx/cute_gemm/gemm_no_wait.ptx"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("RACE"), "{text}");
    assert!(text.contains("still in flight"), "{text}");
}

/// The launch's swizzle is what makes the tiles land where the wgmma reads them: the
/// same kernel with A's map unswizzled is refuted against the naive kernel.
#[test]
fn cute_gemm_with_an_unswizzled_map_for_a_is_refuted() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let ptx = dir.path().join("g.ptx");
    std::fs::copy(root.join(GEMM), &ptx).unwrap();
    let launch = std::fs::read_to_string(root.join("ptx/cute_gemm/gemm.launch.toml")).unwrap();
    assert_eq!(launch.matches("swizzle = 64").count(), 1);
    std::fs::write(
        dir.path().join("g.launch.toml"),
        launch.replace("swizzle = 64", "swizzle = 0"),
    )
    .unwrap();
    let (code, text) = lift(&["equiv", ptx.to_str().unwrap(), NAIVE]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("REFUTED"), "{text}");
}
