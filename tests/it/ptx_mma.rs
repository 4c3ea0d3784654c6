//! Issue 43, item 6: tensor cores as Ampere code drives them, from real compilers.
//!
//! - `ptx/mma/` (NVRTC 12.9 at compute_80, `python3 ptx/mma/generate.py`, each file
//!   assembled by ptxas for sm_80): `mma_gemm`, a float16 GEMM with inline PTX
//!   (`cp.async` tiles, `ldmatrix .x4` and `.x2.trans`, `mma.sync.m16n8k16`), its twins
//!   made by textual edits of the source (one over bfloat16), and `naive_f16`, the reference (one thread per
//!   element, float32 products of the halves, summed one by one).
//! - `ptx/triton/matmul_f16*` (Triton 3.9 at sm_80, `python3 ptx/triton/generate.py`):
//!   an fp16 `tl.dot` with `cp.async` tiles, the same without alignment (`st.shared.b16`
//!   halves that `ldmatrix` reads as words), and a twin reading B at the wrong K offset.
//!
//! The expected verdicts come from the `.cu` headers (`// expect:` for `lift race`,
//! `// equiv:` for `lift equiv` against `naive_f16`) and the `.py` docstrings, whose
//! reasons follow from each twin's edit, never from lift's output. The fragment layouts
//! are lift's own reading of the PTX ISA; Triton's kernels, written by others for real
//! hardware, agreeing with the naive kernel is the independent check of them.

use crate::common::{cu_header, cu_names, lift_at_root as lift};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The value of `// KEY:` in the header of `ptx/mma/NAME.cu`.
fn header(name: &str, key: &str) -> String {
    cu_header(&root().join("ptx/mma"), name, key)
}

fn names() -> Vec<String> {
    cu_names(&root().join("ptx/mma"))
}

const ACCUMULATION: &str =
    "f32 accumulation of `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32` read as exact";

#[test]
fn mma_corpus_gets_its_race_verdicts() {
    let names = names();
    assert!(names.len() >= 6, "only {} kernels in ptx/mma", names.len());
    for name in &names {
        let want = header(name, "expect");
        let (code, text) = lift(&["race", &format!("ptx/mma/{name}.ptx")]);
        println!("{name:24} expect {want}");
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
                // The finding names the instructions and their source lines.
                assert!(text.contains("data race"), "{name}:\n{text}");
                assert!(
                    text.contains(&format!("ptx/mma/{name}.cu:")),
                    "{name}:\n{text}"
                );
            }
            w => panic!("{name}: unexpected expectation {w}"),
        }
    }
    // The missing __syncwarp between K steps races only with a second K step.
    let (code, text) = lift(&["race", "ptx/mma/mma_gemm_no_syncwarp.ptx", "--size", "K=16"]);
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn mma_corpus_gets_its_equiv_verdicts_against_the_naive_kernel() {
    for name in names() {
        let want = header(&name, "equiv");
        let ptx = format!("ptx/mma/{name}.ptx");
        let reference = "ptx/mma/naive_f16.ptx";
        // bf16 has no naive kernel lift reads (NVRTC widens bf16 by moving bits): its
        // reference is the spec.
        let (code, text) = match want.strip_prefix("equivalent to the spec ") {
            Some(spec) => lift(&["check", &ptx, "--spec", spec]),
            None => lift(&["equiv", &ptx, reference]),
        };
        println!("{name:24} equiv {want}");
        if want == "race" {
            // equiv checks each kernel's races first.
            assert_eq!(code, Some(1), "{name}:\n{text}");
            assert!(text.contains("data race"), "{name}:\n{text}");
        } else if want.starts_with("equivalent") {
            assert_eq!(code, Some(0), "{name}:\n{text}");
            assert!(text.contains("VERIFIED"), "{name}:\n{text}");
            if !name.starts_with("naive") {
                let ty = if name.contains("bf16") { "bf16" } else { "f16" };
                let stated = format!("f32 accumulation of `mma.sync.aligned.m16n8k16.row.col.f32.{ty}.{ty}.f32` read as exact");
                assert!(
                    text.contains(&stated),
                    "{name}: precision not stated\n{text}"
                );
            }
        } else {
            assert!(want.starts_with("refuted"), "{name}: {want}");
            assert_eq!(code, Some(1), "{name}:\n{text}");
            assert!(
                text.contains("REFUTED") && text.contains("counterexample"),
                "{name}:\n{text}"
            );
        }
        if want.ends_with("equivalent at K = 16") {
            let (code, text) = lift(&["equiv", "--size", "K=16", &ptx, reference]);
            assert_eq!(code, Some(0), "{name} at K = 16:\n{text}");
        }
    }
}

#[test]
fn tensor_core_gemms_lift_to_a_matmul() {
    for ptx in [
        "ptx/mma/mma_gemm.ptx",
        "ptx/triton/matmul_f16.ptx",
        "ptx/triton/matmul_f16_b16.ptx",
    ] {
        let (code, text) = lift(&[ptx]);
        assert_eq!(code, Some(0), "{ptx}:\n{text}");
        assert!(text.starts_with("C[M,N] = A @ B\n"), "{ptx}:\n{text}");
        assert!(text.contains(ACCUMULATION), "{ptx}:\n{text}");
    }
}

#[test]
fn triton_tensor_core_gemms_against_the_naive_kernel() {
    for ptx in ["ptx/triton/matmul_f16.ptx", "ptx/triton/matmul_f16_b16.ptx"] {
        let (code, text) = lift(&["equiv", ptx, "ptx/mma/naive_f16.ptx"]);
        assert_eq!(code, Some(0), "{ptx}:\n{text}");
        assert!(
            text.contains("1024 of 1024 elements proved equal"),
            "{ptx}:\n{text}"
        );
    }
    // The twin reads B at row k // 2: right for one K step, wrong for two.
    let bug = "ptx/triton/matmul_f16_bug.ptx";
    let (code, text) = lift(&["equiv", bug, "ptx/mma/naive_f16.ptx"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("REFUTED"), "{text}");
    let (code, text) = lift(&["equiv", "--size", "K=16", bug, "ptx/mma/naive_f16.ptx"]);
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn a_wrong_fragment_order_is_refuted_with_a_counterexample_from_a_concrete_run() {
    // a1 and a2 swapped: C[0, 0] takes A's columns 8-15 times B's rows 0-7 and the
    // other way round, so it differs for almost every input; the counterexample
    // gives the two values it computed.
    let (code, text) = lift(&[
        "check",
        "ptx/mma/mma_gemm_swapped_frag.ptx",
        "--spec",
        "C = A.float() @ B.float()",
    ]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("REFUTED"), "{text}");
}
