//! Issue 43, items 2 and 4: TMA tensor copies through tensor maps the kernel builds
//! itself, from a real compiler.
//!
//! `ptx/triton/matmul_tma_sm{90,100}*`, `matmul_ws_sm{90,100}*` (Triton 3.9 at `GPUTarget("cuda", 90|100,
//! 32)`, `num_warps = 4, num_stages = 3`, `python3 ptx/triton/generate.py`, assembled by
//! the wheel's ptxas for sm_90a/sm_100a): `tl.make_tensor_descriptor` for A (box 64 x 32)
//! and B (box 32 x 64) and an fp16 `tl.dot`, the K loop plain (`tma`) or
//! `tl.range(..., warp_specialize=True)` (`ws`: a producer warp issues the copies, the
//! consumers arrive on "empty" mbarriers). Each program writes its two descriptors with
//! `tensormap.replace` into a zeroed shared template, copies them with
//! `tensormap.cp_fenceproxy` into its 256-byte slot of the global scratch (the pointer
//! parameter after the signature's), acquires them with `fence.proxy.tensormap`, and
//! `cp.async.bulk.tensor.2d` loads each K step's tiles through them (64- and 128-byte
//! swizzles) for `wgmma` (sm_90) or `tcgen05.mma` (sm_100). The `_bug` twins load the A
//! tile at column k // 2 instead of k (one line of the generator).
//!
//! Expected verdicts from the sources: every correct kernel computes `A @ B` in f32
//! from f16 inputs, as the naive kernel (`ptx/mma/naive_f16`, one thread per element,
//! NVRTC) and the same source at sm_80 (`ptx/triton/matmul_f16`, `mma.sync`) do; the
//! twin reads columns 16..48 of A at the second K step instead of 32..64, so it is wrong
//! from K = 64 on and right at K = 32 (k // 2 = k = 0 for the only step). Triton's code,
//! made for real hardware, agreeing with kernels that use no TMA is the independent
//! check of lift's reading of the tensor-map fields, the box order and the swizzle: a
//! wrong field, dimension order or swizzle would refute it.

use crate::common::lift_at_root as lift;

const NAIVE: &str = "ptx/mma/naive_f16.ptx";
const SM80: &str = "ptx/triton/matmul_f16.ptx";
const GEMMS: &[&str] = &[
    "ptx/triton/matmul_tma_sm90.ptx",
    "ptx/triton/matmul_tma_sm100.ptx",
    "ptx/triton/matmul_ws_sm90.ptx",
    "ptx/triton/matmul_ws_sm100.ptx",
];

fn twin(gemm: &str) -> String {
    gemm.replace(".ptx", "_bug.ptx")
}

#[test]
fn triton_tma_gemms_lift_to_a_matmul() {
    for g in GEMMS {
        let (code, text) = lift(&[g]);
        assert_eq!(code, Some(0), "{g}\n{text}");
        assert!(text.starts_with("C[M,N] = A @ B\n"), "{g}\n{text}");
    }
}

#[test]
fn triton_tma_gemms_equal_the_naive_and_sm80_kernels() {
    for g in GEMMS {
        // M = 64, N = 128, K = 128: two programs, four K steps, every element.
        let (code, text) = lift(&["equiv", g, NAIVE]);
        assert_eq!(code, Some(0), "{g}\n{text}");
        assert!(text.contains("VERIFIED"), "{g}\n{text}");
        assert!(
            text.contains("8192 of 8192 elements proved equal"),
            "{g}\n{text}"
        );
        let (code, text) = lift(&["equiv", g, SM80]);
        assert_eq!(code, Some(0), "{g}\n{text}");
    }
}

#[test]
fn triton_tma_gemms_are_race_and_deadlock_free() {
    for g in GEMMS {
        let (code, text) = lift(&["race", g]);
        assert_eq!(code, Some(0), "{g}\n{text}");
        assert!(text.contains("SAFE"), "{g}\n{text}");
    }
}

#[test]
fn triton_tma_twins_loading_a_at_half_k_are_refuted_from_two_k_steps() {
    for g in GEMMS {
        let bug = twin(g);
        let (code, text) = lift(&["equiv", &bug, NAIVE]);
        assert_eq!(code, Some(1), "{bug}\n{text}");
        assert!(text.contains("REFUTED"), "{bug}\n{text}");
        // One K step of 32: k // 2 = k = 0, the twin is right.
        let (code, text) = lift(&["equiv", "--size", "K=32", &bug, NAIVE]);
        assert_eq!(code, Some(0), "{bug}\n{text}");
        // Its pipeline is as safe as the correct kernel's: only an offset differs.
        let (code, text) = lift(&["race", &bug]);
        assert_eq!(code, Some(0), "{bug}\n{text}");
    }
}

/// Triton 3.9's sm_90 warp specialisation at a 64-row tile (`matmul_ws_sm90_m64`): two
/// consumer partitions (warpgroups 1 and 2, threads 128..255 and 256..383) that each
/// compute and store the whole tile, as the TTGIR shows (two `tt.store`s of one pointer
/// tensor, tasks 1 and 2) and the SASS too (two epilogues of eight `STG.E.128`). Their
/// stores of C are unordered: a real write-write race, found between one thread of each
/// warpgroup. At 128 rows (`matmul_ws_sm90`) Triton splits the rows and the kernel is SAFE.
#[test]
fn triton_sm90_consumers_storing_the_same_64_row_tile_race() {
    let (code, text) = lift(&["race", "ptx/triton/matmul_ws_sm90_m64.ptx"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("RACE"), "{text}");
    let finding = text.lines().nth(1).unwrap_or_default();
    assert!(finding.contains("data race on `C`"), "{text}");
    assert!(finding.contains("thread (128, 0, 0)"), "{text}");
    assert!(finding.contains("thread (256, 0, 0)"), "{text}");
    // Both stores are the source's one `tl.store`.
    let src = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx/triton/matmul_ws_sm90_m64.py"),
    )
    .unwrap();
    let line = 1 + src.lines().position(|l| l.contains("tl.store(")).unwrap();
    let at = format!("matmul_ws_sm90_m64.py:{line})");
    assert_eq!(finding.matches(&at).count(), 2, "{at}\n{text}");
}

// ----- ptx/tensormap: the tensor-map model on NVRTC kernels with inline PTX -----

const MADE: &str = "ptx/tensormap/tma_made.ptx";

/// The kernel loads 16 rows of x per CTA through the map it built and stores 2 x: SAFE,
/// and the spec holds on every element (a wrong field, box order or row stride would
/// put other elements of x in the tile).
#[test]
fn a_tensor_map_built_by_the_kernel_is_read_by_its_tensor_copy() {
    let (code, text) = lift(&["race", MADE]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("SAFE"), "{text}");
    let (code, text) = lift(&["check", MADE, "--spec", "y = 2 * x"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("VERIFIED"), "{text}");
    let (code, text) = lift(&["check", MADE, "--spec", "y = 2 * x.T"]);
    assert_eq!(code, Some(1), "{text}");
}

/// Without the acquire fence the tensor-map proxy may read stale bytes: a finding
/// naming the map's copy and the tensor copy's line.
#[test]
fn a_tensor_copy_without_the_tensormap_fence_is_a_race() {
    let (code, text) = lift(&["race", "ptx/tensormap/tma_made_no_fence.ptx"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("RACE"), "{text}");
    assert!(text.contains("fence.proxy.tensormap"), "{text}");
    assert!(text.contains("tensormap.cp_fenceproxy"), "{text}");
    assert!(text.contains("cp.async.bulk.tensor"), "{text}");
}

/// A box of 8 rows completes 1024 of the 2048 bytes announced: phase 0 never
/// completes, and the trail names the barrier, the phase and the missing bytes.
#[test]
fn a_box_smaller_than_expect_tx_deadlocks_with_a_trail() {
    let (code, text) = lift(&["race", "ptx/tensormap/tma_made_box_rows.ptx"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("DEADLOCK"), "{text}");
    assert!(text.contains("phase 0"), "{text}");
    assert!(text.contains("1024"), "{text}");
    assert!(text.contains("tma_made_box_rows.cu"), "{text}");
}
