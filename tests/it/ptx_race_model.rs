//! Issue 41, item 9: races as the PTX memory model has them.
//!
//! - Lanes of one warp storing to one address in one instruction are no race: one
//!   lane's store wins. The same value from every lane is no finding (Triton's
//!   reductions at realistic tiles, `ptx/triton/rowsum_tile`, and
//!   `ptx/races/warp_same_value_store`); values that may differ are a nondeterministic
//!   value (`ptx/races/warp_different_values_store`).
//! - A race no output depends on (a read whose value is never used, two stores of one
//!   value) keeps SAFE but is listed as a benign race, in text and JSON;
//!   `--strict-races` makes it RACE.
//! - A race check needs no value types: integer data in a launch without `dtype`
//!   (`ptx/races/int_shift_race` and its barrier twin).
//!
//! Fixtures are real compiler output: `python3 ptx/triton/generate.py rowsum_tile`
//! (Triton 3.9, num_warps = 4, a 32 x 64 tile) and `python3 ptx/races/generate.py`
//! (NVRTC). Every `ptx/races` kernel's `// expect:` verdict is also checked by
//! `tests/ptx_race_corpus.rs`.

use assert_cmd::Command;
use lift::race::{race, race_with, Safety};
use lift::Kernel;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn kernel(rel: &str) -> Kernel {
    Kernel::load(&root().join(rel), None).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn lift() -> Command {
    Command::cargo_bin("lift").unwrap()
}

fn report(rel: &str, sizes: &[(&str, i64)], strict: bool) -> lift::race::RaceReport {
    let k = kernel(rel);
    let sizes: BTreeMap<String, i64> = sizes.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let inst = k.instance(&sizes).unwrap();
    race_with(&k, &inst, strict).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Triton's row sum at num_warps = 4 over a 32 x 64 tile: every lane of a warp stores
/// the warp's partial sums to one shared address in one `st.shared.v4` (line 739), and
/// warps 0 and 1 (64 and 96) store the same combined sums to one address after the
/// second reduction step (line 851). The first is no race, the second a benign one.
#[test]
fn triton_reduction_at_four_warps_is_safe() {
    let text = std::fs::read_to_string(root().join("ptx/triton/rowsum_tile.ptx")).unwrap();
    assert!(text.contains(".reqntid 128"), "4 warps");
    for sizes in [[("M", 32), ("N", 64)], [("M", 40), ("N", 50)]] {
        let r = report("ptx/triton/rowsum_tile.ptx", &sizes, false);
        assert_eq!(r.safety, Safety::Safe, "{}", r.to_text());
        // No lane-against-lane race of one warp instruction is even listed.
        assert!(
            r.benign.iter().all(|b| !b.message.contains("at line 739")),
            "{}",
            r.to_text()
        );
    }
}

/// The same-value stores of two warps are a race in the memory model: listed, and
/// RACE under --strict-races.
#[test]
fn same_value_stores_of_two_warps_are_benign_races() {
    let r = report("ptx/triton/rowsum_tile.ptx", &[], false);
    let b = r
        .benign
        .iter()
        .find(|b| b.message.contains("both store the same value"))
        .unwrap_or_else(|| panic!("no same-value race listed:\n{}", r.to_text()));
    assert_eq!(b.line, 851, "{}", b.message);
    assert!(b.message.contains("thread (0, 0, 0)"), "{}", b.message);
    let strict = report("ptx/triton/rowsum_tile.ptx", &[], true);
    match strict.safety {
        Safety::Unsafe { kind, message } => {
            assert_eq!(kind, lift::exec::ErrorKind::Race);
            assert!(message.contains("benign race"), "{message}");
        }
        s => panic!("{s:?}"),
    }
}

/// One warp, one instruction, one address: the same value is no finding at all, values
/// that may differ are a nondeterministic value.
#[test]
fn one_warp_instruction_to_one_address() {
    let same = report("ptx/races/warp_same_value_store.ptx", &[], true);
    assert_eq!(same.safety, Safety::Safe, "{}", same.to_text());
    assert!(same.benign.is_empty(), "{}", same.to_text());
    let differ = report("ptx/races/warp_different_values_store.ptx", &[], false);
    match &differ.safety {
        Safety::Unsafe { kind, message } => {
            assert_eq!(*kind, lift::exec::ErrorKind::Race);
            assert!(message.contains("nondeterministic"), "{message}");
            assert!(message.contains("in one warp instruction"), "{message}");
        }
        s => panic!("{s:?}"),
    }
}

/// Replicated lanes (`inplace_small`): 31 of every 32 loads of an element race with
/// the one store but are never used. SAFE, listed with their lines in text and JSON;
/// RACE with --strict-races (exit 1).
#[test]
fn dead_reads_are_listed_as_benign_races() {
    let r = report("ptx/triton/inplace_small.ptx", &[], false);
    assert_eq!(r.safety, Safety::Safe);
    let b = r.benign.first().expect("a benign race");
    assert!(
        b.message.contains("the value read is never used"),
        "{}",
        b.message
    );
    assert!(
        b.count > 1,
        "every replicated load of each element: {}",
        b.count
    );
    let text = r.to_text();
    assert!(text.contains("benign races"), "{text}");
    assert!(
        text.contains(&format!("inplace_small.ptx:{}:", b.line)),
        "{text}"
    );

    let path = root().join("ptx/triton/inplace_small.ptx");
    let out = lift()
        .args(["race", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "safe");
    let list = v["benign_races"].as_array().expect("benign_races");
    assert_eq!(list.len(), r.benign.len());
    assert_eq!(list[0]["line"], b.line);
    assert_eq!(list[0]["count"], b.count);

    let out = lift()
        .args(["race", "--strict-races"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("RACE"), "{text}");
    assert!(text.contains("benign race"), "{text}");
}

/// A GPUVerify-style kernel racing on integer data, its launch without a `dtype`:
/// RACE, and its barrier twin SAFE (typed memory once stopped both as UNKNOWN).
#[test]
fn a_race_on_integer_data_needs_no_dtype() {
    let launch =
        std::fs::read_to_string(root().join("ptx/races/int_shift_race.launch.toml")).unwrap();
    assert!(!launch.contains("dtype"), "{launch}");
    let k = kernel("ptx/races/int_shift_race.ptx");
    let inst = k.instance(&BTreeMap::new()).unwrap();
    match race(&k, &inst).unwrap().safety {
        Safety::Unsafe { kind, message } => {
            assert_eq!(kind, lift::exec::ErrorKind::Race);
            assert!(message.contains("data race on `a`"), "{message}");
        }
        s => panic!("{s:?}"),
    }
    let ok = kernel("ptx/races/int_shift_sync_ok.ptx");
    let inst = ok.instance(&BTreeMap::new()).unwrap();
    assert_eq!(race(&ok, &inst).unwrap().safety, Safety::Safe);
    // Values still matter to `check`: there the mistyped store stays an error.
    let spec = lift()
        .args(["spec"])
        .arg(root().join("ptx/races/int_shift_sync_ok.ptx"))
        .output()
        .unwrap();
    assert_eq!(spec.status.code(), Some(3), "{spec:?}");
}
