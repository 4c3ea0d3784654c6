//! The CUDA tutorial corpus (issue 12, item 1's CUDA half): `ptx/tutorial/*.cu`, kernels
//! in the style of the classic CUDA tutorials and samples (grid-stride saxpy, padded
//! transpose, cooperative-groups reductions, warp softmax and layernorm, a scan, a
//! stencil, a shared-memory histogram, `cuda_pipeline` and `cg::memcpy_async` copies,
//! `NV_IF_TARGET`), each including a real header, with wrong twins. Each `.cu` header
//! says what `lift race` must say (`// race:`) and what `lift check --spec` must say
//! (`// check:`, with `// spec:`); a kernel expected VERIFIED must also lift to a
//! formula (`lift KERNEL` says VERIFIED). `ptx/tutorial/generate.py` compiles them.
//!
//! One test runs the `lift` binary on each kernel for each of the three commands. The
//! expectations come from CUDA's semantics, never from lift's output. A false VERIFIED
//! or false SAFE always fails. Any other mismatch fails unless it is in `KNOWN` with the
//! verdict lift gives and why; a `KNOWN` entry that no longer matches fails too. The pass
//! rate per command is printed (and recorded in `benchmarks/RESULTS.md`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// (kernel, command, the verdict lift gives, why). Never a false VERIFIED/SAFE here.
const KNOWN: &[(&str, &str, &str, &str)] = &[
    (
        "histogram_smem",
        "race",
        "UNKNOWN",
        "the shared bin is `keys[i] & 15`, an address computed from loaded data; lift \
         refuses an atomic (or any shared access) at a data-dependent address rather \
         than guess which threads collide",
    ),
    (
        "histogram_smem_plain_add",
        "race",
        "UNKNOWN",
        "the same data-dependent shared address (here a plain load/add/store); lift \
         stops with `unsupported` instead of reporting the race two equal keys cause",
    ),
    (
        "pipeline_scale_no_wait",
        "race",
        "UNINITIALISED READ",
        "no wait_group: lift lands a cp.async's shared write only at the wait that covers \
         its group, so the other thread's read finds the bytes unwritten and reports \
         that (a finding, not SAFE) where CUDA calls it a race with the in-flight copy",
    ),
];

/// lift's verdict words, longest first where one is a prefix of another.
const VERDICTS: &[&str] = &[
    "VERIFIED",
    "REFUTED",
    "SAFE",
    "RACE",
    "DEADLOCK",
    "OUT OF BOUNDS",
    "UNINITIALISED READ",
    "UNKNOWN",
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx/tutorial")
}

/// The value of `// key:` in the `.cu` header.
fn header(text: &str, key: &str) -> Option<String> {
    text.lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| {
            l[2..]
                .trim()
                .strip_prefix(key)
                .map(|v| v.trim().to_string())
        })
}

/// Runs `lift ARGS`; (verdict word, output). An error line (input error, unsupported
/// instruction) is UNKNOWN.
fn lift(args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lift"))
        .args(args)
        .output()
        .expect("run lift");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // the verdict line is the last on stdout; stderr (appended) may repeat the finding
    let word = text
        .lines()
        .rev()
        .find_map(|l| VERDICTS.iter().find(|v| l.starts_with(*v)))
        .map(|v| v.to_string())
        .unwrap_or_else(|| "UNKNOWN".into());
    (word, text)
}

#[test]
fn tutorial_corpus_gets_its_verdicts() {
    let dir = dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            (p.extension()? == "cu").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    let twins = names
        .iter()
        .filter(|n| {
            let cu = std::fs::read_to_string(dir.join(format!("{n}.cu"))).unwrap();
            header(&cu, "why:")
                .unwrap_or_default()
                .starts_with("wrong twin")
        })
        .count();
    assert!(
        names.len() - twins >= 12,
        "only {} correct kernels",
        names.len() - twins
    );
    assert!(twins >= 4, "only {twins} wrong twins");

    let mut failures = Vec::new();
    // per command: (right, known, run)
    let mut tally = std::collections::BTreeMap::<&str, (usize, usize, usize)>::new();
    for name in &names {
        let cu = std::fs::read_to_string(dir.join(format!("{name}.cu"))).unwrap();
        assert!(
            cu.contains("#include <"),
            "{name}.cu includes no real header"
        );
        let ptx = dir.join(format!("{name}.ptx"));
        assert!(
            ptx.is_file(),
            "{name}.ptx is missing: run python3 ptx/tutorial/generate.py"
        );
        let ptx = ptx.to_str().unwrap().to_string();
        let why = header(&cu, "why:").unwrap_or_default();
        let race = header(&cu, "race:").expect("a `// race:` line");
        let check = header(&cu, "check:").expect("a `// check:` line");
        let spec = header(&cu, "spec:").expect("a `// spec:` line");
        let mut runs: Vec<(&str, String, Vec<String>)> =
            vec![("race", race, vec!["race".into(), ptx.clone()])];
        if check != "none" {
            runs.push((
                "check",
                check.clone(),
                vec!["check".into(), ptx.clone(), "--spec".into(), spec.clone()],
            ));
        }
        if check == "VERIFIED" {
            runs.push(("lift", "VERIFIED".into(), vec!["lift".into(), ptx.clone()]));
        }
        for (cmd, expect, args) in runs {
            assert!(
                VERDICTS.contains(&expect.as_str()),
                "{name}: {cmd} expects {expect:?}"
            );
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (got, message) = lift(&args);
            println!("{name:30} {cmd:6} expect {expect:18} got {got}");
            let t = tally.entry(cmd).or_default();
            t.2 += 1;
            let entry = KNOWN.iter().find(|(n, c, _, _)| n == name && *c == cmd);
            if got == expect {
                t.0 += 1;
                if entry.is_some() {
                    failures.push(format!("{name} {cmd}: now {got}; remove it from KNOWN"));
                }
            } else if got == "VERIFIED" || got == "SAFE" {
                failures.push(format!(
                    "{name} {cmd}: FALSE {got} (expected {expect}: {why})\n{message}"
                ));
            } else {
                match entry {
                    Some((_, _, listed, _)) if *listed == got => t.1 += 1,
                    Some((_, _, listed, _)) => failures.push(format!(
                        "{name} {cmd}: lift says {got}, KNOWN lists {listed} (expected {expect})\n{message}"
                    )),
                    None => failures.push(format!(
                        "{name} {cmd}: expected {expect}, lift says {got} ({why})\n{message}"
                    )),
                }
            }
        }
    }
    for (n, c, _, _) in KNOWN {
        if !names.iter().any(|m| m == n) {
            failures.push(format!("KNOWN lists {n} {c}, which is not in ptx/tutorial"));
        }
    }
    for (cmd, (right, known, run)) in &tally {
        println!("tutorial corpus, lift {cmd}: {right}/{run} right, {known} known shortfalls");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The stencils lift to shifted slices (issue 12 item 5's stencil shortfall): the
/// formula is the `.cu` header's spec with its negative bounds written as sizes
/// (`x` has N + 2 elements, so `x[:-2]` is `x[:N]` and `x[1:-1]` is `x[1:N + 1]`).
#[test]
fn stencils_lift_to_the_shifted_slices_of_their_spec() {
    for (name, want) in [
        ("stencil_1d", "y[N] = x[:N] + x[1:N + 1] + x[2:]"),
        (
            "stencil_weights",
            "y[N] = -0.25 * x[:N] + 0.5 * x[1:N + 1] + -0.25 * x[2:]",
        ),
    ] {
        let ptx = dir().join(format!("{name}.ptx"));
        let src = std::fs::read_to_string(dir().join(format!("{name}.cu"))).unwrap();
        let spec = header(&src, "spec:").unwrap();
        let spelled = spec
            .replace("x[:-2]", "x[:N]")
            .replace("x[1:-1]", "x[1:N + 1]")
            .replace("- 0.25", "+ -0.25");
        assert_eq!(
            format!("y[N] = {}", &spelled["y = ".len()..]),
            want,
            "{name}"
        );
        let (word, text) = lift(&[ptx.to_str().unwrap()]);
        assert_eq!(word, "VERIFIED", "{name}: {text}");
        assert_eq!(text.lines().next(), Some(want), "{name}: {text}");
    }
}
