//! Triton atomics beyond the float add, and locks (issue 42, item 2), on Triton 3.9
//! fixtures (`triton_ir/real_ops/`, built by its `generate.py` from the block at the end
//! of `kernels.py`):
//!
//! - A row sum whose column blocks are added into `y[row]` by a plain load, add and
//!   store inside a critical section (`while tl.atomic_cas(lock, 0, 1) == 1: pass` ...
//!   `tl.atomic_xchg(lock, 0)`), and layer-norm backward's partial sums (Triton tutorial
//!   05: a lock and a count per group of rows, the first row of a group storing, the
//!   others adding) are VERIFIED on their instances; the same kernels without the lock
//!   are RACE, naming both programs, the element and the source lines; a lock never
//!   given back is a DEADLOCK (the spin is blocked, never run to a cap); a critical
//!   section whose result depends on the programs' order (`y = y / 2 + s`) is UNKNOWN.
//! - `tl.atomic_max` of floats (Triton's signed max / unsigned min on the bits, split
//!   by the sign) folds a block's absolute maximum into `amax`: VERIFIED, and its twin
//!   without `abs` REFUTED; integer atomic min and max of labels reproduce NumPy.
//! - Expected values come from NumPy references written in the generator (and, for the
//!   formulas, from the kernels' mathematics), never from lift's output.

use crate::common::output_text as text;
use crate::common::read_npys;
use assert_cmd::Command;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const FIXTURES: &[&str] = &[
    "rowsum_lock",
    "rowsum_nolock",
    "rowsum_lock_leak",
    "rowsum_lock_decay",
    "colsum_groups",
    "colsum_groups_nolock",
    "absmax",
    "absmax_noabs",
    "min_max_int",
];

#[derive(Deserialize)]
struct Fixture {
    spec: Option<String>,
    instance: Vec<Inst>,
}

#[derive(Deserialize)]
struct Inst {
    name: String,
    sizes: BTreeMap<String, i64>,
    expect: String,
}

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("triton_ir/real_ops")
        .join(name)
}

fn fixture(name: &str) -> Fixture {
    toml::from_str(&std::fs::read_to_string(dir(name).join("fixture.toml")).unwrap()).unwrap()
}

fn lift() -> Command {
    Command::cargo_bin("lift").unwrap()
}

/// `lift ARGS... KERNEL --size ...` at an instance: exit code and output.
fn at(
    args: &[&str],
    name: &str,
    sizes: &BTreeMap<String, i64>,
    tail: &[&str],
) -> (Option<i32>, String) {
    let mut cmd = lift();
    cmd.args(args).arg(dir(name).join("kernel.ttir")).args(tail);
    for (s, v) in sizes {
        cmd.args(["--size", &format!("{s}={v}")]);
    }
    let o = cmd.output().unwrap();
    (o.status.code(), text(&o))
}

#[test]
fn atomic_kernels_use_the_ops() {
    for (name, op) in [
        ("rowsum_lock", "tt.atomic_cas acq_rel"),
        ("rowsum_lock", "tt.atomic_rmw exch, acq_rel"),
        ("absmax", "tt.atomic_rmw max"),
        ("absmax", "tt.atomic_rmw umin"),
        ("absmax", "tt.bitcast"),
        ("min_max_int", "tt.atomic_rmw min"),
    ] {
        let ttir = std::fs::read_to_string(dir(name).join("kernel.ttir")).unwrap();
        assert!(ttir.contains(op), "{name}: no {op}");
    }
}

/// Every instance gets its expected verdict against the fixture's spec.
#[test]
fn atomic_kernels_get_their_verdict_at_each_instance() {
    for name in FIXTURES {
        let fx = fixture(name);
        let Some(spec) = fx.spec else { continue };
        for inst in &fx.instance {
            let what = format!("{name}/{}", inst.name);
            let (code, t) = at(&["check"], name, &inst.sizes, &["--spec", &spec]);
            match inst.expect.as_str() {
                "verified" => {
                    assert_eq!(code, Some(0), "{what}:\n{t}");
                    assert!(
                        t.contains("VERIFIED on this launch instance"),
                        "{what}:\n{t}"
                    );
                    assert!(t.contains("reverse order"), "{what}: no order note:\n{t}");
                }
                "refuted" => {
                    assert_eq!(code, Some(1), "{what}:\n{t}");
                    assert!(t.contains("REFUTED"), "{what}:\n{t}");
                }
                "race" => {
                    assert_eq!(code, Some(1), "{what}:\n{t}");
                    assert!(
                        t.contains("RACE") && t.contains("data race on"),
                        "{what}:\n{t}"
                    );
                }
                "deadlock" => {
                    assert_eq!(code, Some(1), "{what}:\n{t}");
                    assert!(
                        t.contains("DEADLOCK") && t.contains("never given back"),
                        "{what}:\n{t}"
                    );
                }
                "unknown" => {
                    assert_eq!(code, Some(3), "{what}:\n{t}");
                    assert!(t.contains("depends on the order"), "{what}:\n{t}");
                }
                v => panic!("{what}: {v}"),
            }
        }
    }
}

/// `lift run` of each correct kernel on the generator's inputs reproduces its NumPy
/// reference (y + row sums, the groups' column sums with the locks given back and the
/// counts set, max(amax, max |x|), the labels' min and max).
#[test]
fn atomic_kernels_run_on_the_references() {
    for name in [
        "rowsum_lock",
        "colsum_groups",
        "absmax",
        "absmax_noabs",
        "min_max_int",
    ] {
        let fx = fixture(name);
        for inst in &fx.instance {
            let what = format!("{name}/{}", inst.name);
            let refs = dir(name).join("ref").join(&inst.name);
            let out = tempfile::tempdir().unwrap();
            let mut tail = vec!["--out".to_string(), out.path().display().to_string()];
            for k in read_npys(&refs).keys() {
                tail.push("--input".into());
                tail.push(format!("{k}={}", refs.join(format!("{k}.npy")).display()));
            }
            let tail: Vec<&str> = tail.iter().map(String::as_str).collect();
            let (code, t) = at(&["run"], name, &inst.sizes, &tail);
            assert_eq!(code, Some(0), "{what}:\n{t}");
            let got = read_npys(out.path());
            for (k, want) in read_npys(&refs.join("expected")) {
                let g = &got[&k];
                assert_eq!(g.shape, want.shape, "{what}: {k}");
                for (a, b) in g.data.iter().zip(&want.data) {
                    assert!(
                        (a - b).abs() <= 1e-6 * b.abs().max(1.0),
                        "{what}: {k}: {g:?} vs {want:?}"
                    );
                }
            }
        }
    }
}

/// The race names both programs of the row (blocks 0 and 1 of row 0), the element and
/// the Python line of each access; `lift race` says the same, and SAFE with the lock.
#[test]
fn a_missing_lock_is_a_race_naming_both_programs_and_lines() {
    let spec = fixture("rowsum_nolock").spec.unwrap();
    let sizes = BTreeMap::from([("M".to_string(), 3), ("N".to_string(), 10)]);
    let (code, t) = at(&["check"], "rowsum_nolock", &sizes, &["--spec", &spec]);
    assert_eq!(code, Some(1), "{t}");
    assert!(t.contains("data race on y[0]"), "{t}");
    assert!(t.contains("program (0, 0, 0) stores it"), "{t}");
    assert!(t.contains("program (0, 1, 0) loads it"), "{t}");
    assert!(
        t.matches("triton_ir/real_ops/kernels.py:").count() >= 2,
        "{t}"
    );
    let (code, t) = at(&["race"], "rowsum_nolock", &sizes, &[]);
    assert_eq!(code, Some(1), "{t}");
    assert!(t.contains("RACE"), "{t}");
    let (code, t) = at(&["race"], "rowsum_lock", &sizes, &[]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("SAFE"), "{t}");
}

/// `lift` lifts the lock-protected row sum on the instance: `y` plus the row's sum
/// (printed as the sum of the row with `y` appended, as for the float-add row sum) and
/// every lock given back (0).
#[test]
fn the_lock_protected_row_sum_lifts_to_its_formula() {
    let (code, t) = at(&[], "rowsum_lock", &BTreeMap::new(), &[]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("lock[M] = 0"), "{t}");
    assert!(
        t.contains("y[M] = y + sum(x, axis=1)")
            || t.contains("y[M] = sum(cat([x, y[:, None]], axis=1), axis=1)"),
        "{t}"
    );
    assert!(t.contains("VERIFIED on M=3, N=10"), "{t}");
}
