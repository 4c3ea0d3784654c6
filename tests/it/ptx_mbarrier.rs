//! Issue 43, item 3: mbarrier pipelines from real compilers (`ptx/mbarrier/`, NVRTC 12.9
//! at compute_90a, `python3 ptx/mbarrier/generate.py`, each file assembled by ptxas):
//! libcu++'s `cuda::barrier` + `cuda::memcpy_async` and an inline-PTX producer/consumer
//! ring of full and empty mbarriers, each with its bug twins (made by textual edits of
//! the correct source, listed in the generator).
//!
//! The expected verdicts come from the `.cu` headers (`// expect:`), whose `// why:`
//! reasons follow from the edit that made each twin, never from lift's output. Every
//! correct kernel is SAFE; every twin is DEADLOCK or RACE, and its report names the
//! barrier, the phase and a line. The trails' numbers (arrivals and bytes missing)
//! follow from the twins' edits too.

use lift::exec::addresses::AddressOnly;
use lift::npy::Array;
use lift::race::{race_with, RaceReport};
use lift::race_every::{Every, SWEEP};
use lift::Kernel;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx/mbarrier")
}

fn expectation(name: &str) -> String {
    crate::common::cu_header(&dir(), name, "expect")
}

/// lift race's verdict word (UNKNOWN for an error that is no finding) and its report.
fn race(name: &str) -> (String, String) {
    let ptx = dir().join(format!("{name}.ptx"));
    let kernel = Kernel::load(&ptx, Some(&ptx.with_extension("launch.toml")))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let inst = kernel.instance(&BTreeMap::new()).unwrap();
    match race_with(&kernel, &inst, false) {
        Ok(r) => (r.safety.verdict().to_string(), r.to_text()),
        Err(e) => ("UNKNOWN".into(), e.to_string()),
    }
}

/// lift race's whole report.
fn report(name: &str) -> RaceReport {
    let ptx = dir().join(format!("{name}.ptx"));
    let kernel = Kernel::load(&ptx, Some(&ptx.with_extension("launch.toml"))).unwrap();
    let inst = kernel.instance(&BTreeMap::new()).unwrap();
    race_with(&kernel, &inst, false).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn names() -> Vec<String> {
    crate::common::cu_names(&dir())
}

#[test]
fn mbarrier_corpus_gets_its_verdicts() {
    let names = names();
    assert!(
        names.len() >= 12,
        "only {} kernels in ptx/mbarrier",
        names.len()
    );
    let mut failures = Vec::new();
    for name in &names {
        let want = expectation(name);
        let (got, report) = race(name);
        println!("{name:32} expect {want:9} got {got}");
        if got != want {
            failures.push(format!(
                "{name}: expected {want}, lift says {got}\n{report}"
            ));
            continue;
        }
        if want == "SAFE" {
            continue;
        }
        // The trail: the barrier, the phase and the line (the consumers' own barrier
        // twin races on shared memory no mbarrier guards).
        let needles: &[&str] = match (want.as_str(), name.as_str()) {
            ("UNKNOWN", _) => &["unsupported", ".ptx:"],
            (_, "ring_ws_no_consumer_barrier") => {
                &["`_ZZ27ring_ws_no_consumer_barrierE4part", "line "]
            }
            _ => &["mbarrier", "phase", "line "],
        };
        for &needle in needles {
            if !report.contains(needle) {
                failures.push(format!(
                    "{name}: the report does not name the {needle}\n{report}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The deadlock trails say what each twin's edit leaves missing (NVRTC names
/// `__shared__ uint64_t empty[2]` of kernel K `_ZZ<len>KE5empty`).
#[test]
fn deadlock_trails_say_what_is_missing() {
    let cases = [
        // Parity ph instead of ph ^ 1: the producer waits on empty[0]'s open phase 0,
        // to which no consumer has arrived (64 expected); the consumers wait on full[0].
        (
            "ring_wrong_parity",
            &[
                "E5empty[0]`",
                "phase 0 (parity 0)",
                "64 of its 64 arrivals are missing",
            ][..],
        ),
        // Consumer 63 never arrives: empty[0] misses 1 of 64 arrivals in its phase 0,
        // for which the producer waits in its round 1 (k = 2, parity ph ^ 1 = 0).
        (
            "ring_missing_arrive",
            &[
                "E5empty[0]`",
                "phase 0 (parity 0)",
                "1 of its 64 arrivals are missing",
            ],
        ),
        // 16 bytes expected beyond the 256 the copy brings.
        (
            "ring_tx_too_many",
            &[
                "E4full[0]`",
                "phase 0",
                "expect_tx mismatch: 16 transaction bytes are expected but never arrive",
                "expect_tx of 272 bytes",
            ],
        ),
        // 16 bytes fewer expected than the copy brings.
        (
            "ring_tx_too_few",
            &[
                "E4full[0]`",
                "phase 0",
                "expect_tx mismatch: 16 bytes more were completed than expected",
                "expect_tx of 240 bytes",
            ],
        ),
        // init(&bar, blockDim.x + 1): 129 arrivals expected, 128 threads arrive.
        (
            "barrier_copy_missing_arrive",
            &["E3bar[0]`", "phase 0", "1 of its 129 arrivals are missing"],
        ),
    ];
    for (name, needles) in cases {
        let (got, report) = race(name);
        assert_eq!(got, "DEADLOCK", "{name}\n{report}");
        for n in needles {
            assert!(
                report.contains(n),
                "{name}: the trail does not say {n:?}\n{report}"
            );
        }
        // Every line the trail names is a source line of the .cu (-lineinfo).
        assert!(
            report.contains(&format!("ptx/mbarrier/{name}.cu:")),
            "{name}\n{report}"
        );
    }
}

/// A read before the wait races with the bulk copy, which the report names with its
/// barrier and phase.
#[test]
fn a_read_before_the_wait_races_with_the_copy() {
    for name in ["ring_read_before_wait", "barrier_copy_read_before_wait"] {
        let (got, report) = race(name);
        assert_eq!(got, "RACE", "{name}\n{report}");
        assert!(
            report.contains("the bulk copy issued by thread (0, 0, 0)"),
            "{name}\n{report}"
        );
        assert!(report.contains("in phase 0"), "{name}\n{report}");
    }
}

/// The TMA tensor copy parses (its `[tmap, {c0, c1}]` operand, the address of its
/// descriptor's `.param`, `%cluster_ctarank`) and stops as unsupported at its line.
#[test]
fn a_tma_tensor_copy_is_unsupported_at_its_line() {
    let (got, report) = race("tma_box");
    assert_eq!(got, "UNKNOWN", "{report}");
    assert!(report.contains("cp.async.bulk.tensor.2d"), "{report}");
    assert!(report.contains("unsupported"), "{report}");
    // The asm statement spans lines 26 to 30 of tma_box.cu.
    assert!(
        (26..=30).any(|l| report.contains(&format!("ptx/mbarrier/tma_box.cu:{l}"))),
        "{report}"
    );
}

/// The correct pipelines compute what they should: the ring sums each consumer's
/// column over the K tiles, barrier_copy reverses each row.
#[test]
fn the_pipelines_compute_their_results() {
    let run = |name: &str, x: Array| {
        let ptx = dir().join(format!("{name}.ptx"));
        let k = Kernel::load(&ptx, Some(&ptx.with_extension("launch.toml"))).unwrap();
        let inst = k.instance(&BTreeMap::new()).unwrap();
        let inputs = BTreeMap::from([("x".to_string(), x)]);
        let out = k.run(&inst, &inputs, &BTreeMap::new()).unwrap();
        out.outputs.into_iter().next().unwrap().1.data
    };
    // ring: B = 2, K = 5, 64 columns; x[b, k, i] = 1000 b + 100 k + i, so
    // out[b, i] = 5000 b + 100 (0 + 1 + 2 + 3 + 4) + 5 i.
    let x: Vec<f64> = (0..2 * 5 * 64)
        .map(|j| f64::from(1000 * (j / 320) + 100 * ((j / 64) % 5) + j % 64))
        .collect();
    let want: Vec<f64> = (0..2 * 64)
        .map(|j| f64::from(5 * 1000 * (j / 64) + 100 * 10 + 5 * (j % 64)))
        .collect();
    let got = run(
        "ring",
        Array {
            shape: vec![2, 5, 64],
            data: x,
        },
    );
    assert_eq!(got, want);
    // barrier_copy: y[b, i] = x[b, 127 - i].
    let x: Vec<f64> = (0..256).map(f64::from).collect();
    let want: Vec<f64> = (0..256)
        .map(|j| f64::from(128 * (j / 128) + 127 - j % 128))
        .collect();
    let got = run(
        "barrier_copy",
        Array {
            shape: vec![2, 128],
            data: x,
        },
    );
    assert_eq!(got, want);
}

/// Issue 43, item 7: the correct rings are safe for every number of K tiles: 1 to 32
/// run one by one, every larger count by the repetition proof, up to where a 32-bit
/// value the compiled kernel computes from k stops being exact: ring and ring_ws keep
/// the stage's byte offset `k * 256` in a u32 (`shl.b32` by 8, then `cvt.u64.u32`), so
/// 2^32 / 256 tiles; ring128 its `int` offset `k * 96` (`cvt.s64.s32`), so 2^31 / 96.
#[test]
fn the_rings_are_safe_for_every_k() {
    let ring = (1i64 << 32) / 256;
    for (name, wrap) in [
        ("ring", ring),
        ("ring128", (1i64 << 31) / 96),
        ("ring_ws", ring),
    ] {
        let r = report(name);
        let text = r.to_text();
        let Some(Every::Safe {
            size,
            swept,
            proof: Ok(p),
        }) = &r.every
        else {
            panic!("{name}: no every-K proof\n{text}");
        };
        assert_eq!(
            (size.as_str(), *swept, p.from),
            ("K", SWEEP, SWEEP + 1),
            "{text}"
        );
        assert!(
            (wrap - 8..=wrap + 8).contains(&p.upto),
            "{name}: proved up to K = {}, expected about {wrap}\n{text}",
            p.upto
        );
        assert!(
            text.contains(&format!("SAFE for every K from 1 to {}", p.upto)),
            "{text}"
        );
        let json = r.to_json();
        assert_eq!(json["scope"], "all_sizes", "{json}");
        assert_eq!(json["every_size"]["proved"][0], SWEEP + 1, "{json}");
    }
}

/// A twin whose bug needs a count the launch does not use: the producer loads one tile
/// fewer when K mod 4 == 3, so the launch's K = 5 is safe and K = 3 deadlocks (the
/// least count with K mod 4 == 3).
#[test]
fn a_deadlock_at_another_k_is_found() {
    let name = "ring_k3_skips_tile";
    let ptx = dir().join(format!("{name}.ptx"));
    let k = Kernel::load(&ptx, Some(&ptx.with_extension("launch.toml"))).unwrap();
    let at = |n: i64| {
        let inst = k.instance(&BTreeMap::from([("K".to_string(), n)])).unwrap();
        k.execute_for_races(&inst, &mut AddressOnly::default())
            .is_ok()
    };
    assert!(at(5), "the launch's K = 5 runs clean");
    assert!(
        !at(3) && !at(7) && at(4),
        "K = 3 and 7 deadlock, K = 4 does not"
    );
    let r = report(name);
    let text = r.to_text();
    assert_eq!(r.safety.verdict(), "DEADLOCK", "{text}");
    assert!(text.contains("DEADLOCK at K=3"), "{text}");
    assert!(text.contains("at K=3: "), "{text}");
}

/// A bug only beyond the counts run one by one (one tile fewer when K > 40): the
/// repetition proof must not prove it away (the branch on K > 40 goes both ways over
/// the counts it would cover), and the counts run after it fails find it at K = 41.
#[test]
fn a_bug_beyond_the_sweep_is_not_proved_away() {
    let r = report("ring_k41_skips_tile");
    let text = r.to_text();
    assert_eq!(r.safety.verdict(), "DEADLOCK", "{text}");
    assert!(text.contains("DEADLOCK at K=41"), "{text}");
}
