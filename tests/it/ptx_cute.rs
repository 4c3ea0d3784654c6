//! Issue 43: mbarrier pipelines as CuTe DSL writes them (`ptx/cute/`, nvidia-cutlass-dsl
//! 4.8.1 at `CUTE_DSL_ARCH=sm_90a`, `python3 ptx/cute/generate.py`): a producer warp and a
//! consumer warp around a two-stage ring in shared memory, with `cute.arch` mbarriers
//! (`ring`) and with `cutlass.pipeline.PipelineAsync` (`pipeline`), and twins made by
//! textual edits of their Python source: the producer's wait with the wrong phase
//! parity, the consumer's missing arrive on "empty", the missing `consumer_release`.
//!
//! Expected verdicts come from each `.py` header (`# expect:`, `# lift:`), whose reasons
//! follow from the edit; `y = 2 * x` is what the kernels' source computes.

use crate::common::lift_at_root as lift;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx/cute")
}

/// The kernels (`.py` stems other than the generator), sorted.
fn names() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".py").map(String::from)
        })
        .filter(|n| n != "generate")
        .collect();
    v.sort();
    v
}

/// The value of `# KEY:` in the header of `ptx/cute/NAME.py`.
fn header(name: &str, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(dir().join(format!("{name}.py"))).unwrap();
    let prefix = format!("# {key}:");
    text.lines()
        .take_while(|l| l.starts_with('#'))
        .find_map(|l| l.strip_prefix(&prefix).map(|v| v.trim().to_string()))
}

#[test]
fn cute_pipelines_get_their_verdicts_with_a_trail() {
    let names = names();
    assert!(names.len() >= 5, "only {} kernels in ptx/cute", names.len());
    for name in &names {
        let want = header(name, "expect").unwrap_or_else(|| panic!("{name}: no # expect:"));
        let ptx = format!("ptx/cute/{name}.ptx");
        let (code, text) = lift(&["race", &ptx]);
        let last = text.lines().last().unwrap_or("");
        assert!(last.starts_with(&format!("{want} ")), "{name}:\n{text}");
        match want.as_str() {
            "SAFE" => {
                assert_eq!(code, Some(0), "{name}:\n{text}");
                let formula = header(name, "lift").expect("# lift:");
                let (code, text) = lift(&[&ptx]);
                assert_eq!(code, Some(0), "{name}:\n{text}");
                assert!(text.starts_with(&format!("{formula}\n")), "{name}:\n{text}");
            }
            "DEADLOCK" => {
                assert_eq!(code, Some(1), "{name}:\n{text}");
                // The trail: the waiting warp, the barrier, the phase, what is missing.
                assert!(
                    text.contains("an mbarrier phase never completes"),
                    "{name}:\n{text}"
                );
                assert!(
                    text.contains("warp 0 (threads (0, 0, 0) to (31, 0, 0)) wait at line"),
                    "{name}:\n{text}"
                );
                assert!(
                    text.contains("32 of its 32 arrivals are missing"),
                    "{name}:\n{text}"
                );
            }
            w => panic!("{name}: unexpected expectation {w}"),
        }
    }
    // Wrong parity: the producer's very first wait, for phase 0 of "empty".
    let (_, text) = lift(&["race", "ptx/cute/ring_wrong_parity.ptx"]);
    assert!(
        text.contains("for phase 0 (parity 0) to complete"),
        "{text}"
    );
    // Missing arrive: the consumer has consumed both stages once and waits for the
    // producer's second round (phase 1), which waits for "empty" in phase 0.
    let (_, text) = lift(&["race", "ptx/cute/ring_missing_arrive.ptx"]);
    assert!(
        text.contains("for phase 1 (parity 1) to complete"),
        "{text}"
    );
}
