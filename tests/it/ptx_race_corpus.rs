//! The race-checker corpus (issue 19): `ptx/races/*.cu`, small CUDA kernels in the
//! style of GPU race-checker test suites (shared-memory trees, barriers in branches,
//! aliasing, struct copies, atomics, warp shuffles and `__syncwarp`, inter-block races,
//! out-of-bounds indexing), each with its expected verdict and the reason for it in its
//! header (`// expect: RACE`, `// why: ...`), compiled by `ptx/races/generate.py`.
//!
//! One test walks them all and runs `lift race` (the library's `race::race`) on each
//! `.ptx` with its `.launch.toml`. The expected verdict comes from CUDA's semantics,
//! never from lift's output. A false SAFE (a kernel expected to race, deadlock or go out
//! of bounds that lift calls SAFE) always fails. Any other mismatch fails unless the
//! kernel is in `KNOWN` with the verdict lift gives and why; an entry that no longer
//! matches what lift says fails too, so the list stays exact. The pass rate is printed
//! (and recorded in `benchmarks/RESULTS.md`).

use lift::race::race_with;
use lift::Kernel;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Kernels lift does not get right, with the verdict it gives and the reason. Never a
/// false SAFE here: those are bugs to fix, not to list.
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "atomic_ticket",
        "UNKNOWN",
        "the slot index is the value atomicAdd returns, which depends on the order of the \
         threads' atomics; lift runs one order and does not model the others \
         (ARCHITECTURE.md, Atomics: a returned old value another unordered atomic changes)",
    ),
    (
        "atomic_mixed_ops",
        "UNKNOWN",
        "atomicAdd and atomicMax on one word do not commute, so the value left depends on \
         the order; lift runs one order and reports UNKNOWN rather than that order's result \
         (no race is missed: the accesses are all atomic)",
    ),
    (
        "cas_lock_blocks",
        "UNKNOWN",
        "the lock word is a writable __device__ variable (zero-initialised, NVRTC emits \
         no initialiser); lift reads module variables only as initialised tables or as \
         launch-bound input tensors, and a lock word in an input tensor makes the CAS \
         compare a data-dependent value",
    ),
    (
        "barrier_data_uniform",
        "UNKNOWN",
        "the __syncthreads() is under a branch on loaded data (uniform here: every thread \
         tests x[0]); lift if-converts data-dependent branches only around thread-private \
         code and plain loads and stores, and stops at a barrier inside one",
    ),
    (
        "barrier_data_divergent",
        "UNKNOWN",
        "the same limitation: a barrier under a data-dependent branch is not if-converted, \
         so the divergence that inputs of both signs cause is not reported as a deadlock",
    ),
];

/// The verdict words `// expect:` may use (those of `lift race`).
const VERDICTS: &[&str] = &[
    "SAFE",
    "RACE",
    "DEADLOCK",
    "OUT OF BOUNDS",
    "UNINITIALISED READ",
    "TRAP",
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx/races")
}

/// (expect, why, the verdict under `--strict-races` where given) from the `.cu` header.
fn expectation(cu: &Path) -> (String, String, Option<String>) {
    let text = std::fs::read_to_string(cu).unwrap();
    let mut expect = None;
    let mut strict = None;
    let mut why = String::new();
    let mut in_why = false;
    for line in text.lines().take_while(|l| l.starts_with("//")) {
        let body = line[2..].trim();
        if in_why && line.starts_with("//   ") {
            why = format!("{why} {body}");
            continue;
        }
        in_why = false;
        if let Some(e) = body.strip_prefix("expect:") {
            expect = Some(e.trim().to_string());
        } else if let Some(e) = body.strip_prefix("strict:") {
            strict = Some(e.trim().to_string());
        } else if let Some(w) = body.strip_prefix("why:") {
            why = w.trim().to_string();
            in_why = true;
        }
    }
    let expect = expect.unwrap_or_else(|| panic!("{}: no `// expect:` line", cu.display()));
    assert!(
        VERDICTS.contains(&expect.as_str()),
        "{}: expect {expect:?} is not one of {VERDICTS:?}",
        cu.display()
    );
    assert!(!why.is_empty(), "{}: no `// why:` line", cu.display());
    (expect, why, strict)
}

/// lift's verdict word (UNKNOWN for an error that is no finding) and its message;
/// with `strict`, as `--strict-races` has it.
fn verdict(ptx: &Path, strict: bool) -> (String, String) {
    let launch = ptx.with_extension("launch.toml");
    let kernel = match Kernel::load(ptx, Some(&launch)) {
        Ok(k) => k,
        Err(e) => return ("UNKNOWN".into(), e.to_string()),
    };
    let inst = kernel.instance(&BTreeMap::new()).unwrap();
    match race_with(&kernel, &inst, strict) {
        Ok(r) => (r.safety.verdict().to_string(), r.to_text()),
        Err(e) => ("UNKNOWN".into(), e.to_string()),
    }
}

#[test]
fn race_corpus_gets_its_verdicts() {
    let dir = dir();
    assert!(dir.is_dir(), "{} is missing", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            (p.extension()? == "cu").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 40,
        "only {} kernels in ptx/races",
        names.len()
    );

    let mut failures = Vec::new();
    let mut right = 0;
    let mut known = 0;
    let mut times = Vec::new();
    let (mut safe, mut unsafe_) = (0, 0);
    for name in &names {
        let (expect, why, strict) = expectation(&dir.join(format!("{name}.cu")));
        // A benign race: SAFE by default, the race under --strict-races.
        if let Some(want) = strict {
            let (got, message) = verdict(&dir.join(format!("{name}.ptx")), true);
            if got != want {
                failures.push(format!(
                    "{name}: with --strict-races expected {want}, lift says {got} ({why})\n{message}"
                ));
            }
        }
        if expect == "SAFE" {
            safe += 1;
        } else {
            unsafe_ += 1;
        }
        let ptx = dir.join(format!("{name}.ptx"));
        assert!(
            ptx.is_file(),
            "{name}.ptx is missing: run python3 ptx/races/generate.py"
        );
        let start = Instant::now();
        let (got, message) = verdict(&ptx, false);
        times.push(start.elapsed().as_secs_f64());
        let entry = KNOWN.iter().find(|(n, _, _)| n == name);
        println!("{name:32} expect {expect:18} got {got}");
        if got == expect {
            right += 1;
            if entry.is_some() {
                failures.push(format!(
                    "{name}: now {got} as expected; remove it from KNOWN"
                ));
            }
        } else if got == "SAFE" {
            failures.push(format!(
                "{name}: FALSE SAFE (expected {expect}: {why})\n{message}"
            ));
        } else {
            match entry {
                Some((_, listed, _)) if *listed == got => known += 1,
                Some((_, listed, _)) => failures.push(format!(
                    "{name}: lift says {got}, KNOWN lists {listed} (expected {expect})\n{message}"
                )),
                None => failures.push(format!(
                    "{name}: expected {expect}, lift says {got} ({why})\n{message}"
                )),
            }
        }
    }
    for (n, _, _) in KNOWN {
        if !names.iter().any(|m| m == n) {
            failures.push(format!("KNOWN lists {n}, which is not in ptx/races"));
        }
    }
    times.sort_by(f64::total_cmp);
    println!(
        "race corpus: {right}/{} right ({safe} expected SAFE, {unsafe_} expected a finding), \
         {known} known mismatches; per kernel median {:.2} ms, max {:.2} ms",
        names.len(),
        1e3 * times[times.len() / 2],
        1e3 * times[times.len() - 1]
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
