//! `lift batch` (issue 45, item 3): the suite manifest (`tests/batch/suite.toml`, every
//! fixture folder of `triton_ir/` and `corpus/`: `lift` and `check` against its spec)
//! run whole and as two shards; the merged shards equal the whole run with timings
//! left out, and every record agrees with the folder's blessed `expected.toml` (which
//! the fixture runner, tests/it/fixtures.rs, writes through the library, not through
//! `lift batch`). Then the other job kinds (`equiv`, `race`), and the errors: a bad
//! manifest names file, line and what was expected; `--merge` refuses duplicates, gaps
//! and shards of other manifests; a bad `--shard` is a usage error.

use assert_cmd::Command;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `lift batch` with no wall-clock limit, as the fixture runner has none: under any
/// load the verdicts are the blessed ones (docs/verdicts.md, "Determinism").
fn lift() -> Command {
    let mut c = Command::cargo_bin("lift").unwrap();
    c.args(["batch", "--budget", "1e9", "--no-progress"]);
    c
}

/// Run `lift batch ARGS`: (exit code, stdout, stderr).
fn batch(args: &[&str]) -> (Option<i32>, String, String) {
    let out = lift().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn records(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A record with its timing removed.
fn untimed(mut r: serde_json::Value) -> serde_json::Value {
    r.as_object_mut().unwrap().remove("seconds");
    r
}

#[derive(Deserialize)]
struct Expected {
    lift: Vec<String>,
    lift_all_sizes: Option<String>,
    check: Option<String>,
    check_all_sizes: Option<String>,
}

#[test]
/// The two shards, merged, are the whole run: every job once, in manifest order, each
/// with its folder's blessed answers (`expected.toml`, which the fixture runner holds an
/// unsharded run to). One pass over the suite, not two: the unsharded run is the fixture
/// runner's.
fn suite_in_two_shards_merges_to_the_whole_run_and_agrees_with_the_fixtures() {
    let generated = std::process::Command::new("python3")
        .args(["tests/batch/generate.py", "--check"])
        .status();
    if let Ok(s) = generated {
        assert!(
            s.success(),
            "tests/batch/suite.toml is stale: python3 tests/batch/generate.py"
        );
    }
    let manifest = "tests/batch/suite.toml";
    let dir = tempfile::tempdir().unwrap();
    let mut shards = Vec::new();
    for s in ["0/2", "1/2"] {
        let (code, out, err) = batch(&[manifest, "--shard", s]);
        assert!(matches!(code, Some(0 | 1)), "shard {s}: {err}");
        let path = dir.path().join(format!("shard{}.jsonl", &s[..1]));
        std::fs::write(&path, &out).unwrap();
        // A shard holds exactly its indices, in order.
        let idx: Vec<u64> = records(&out)
            .iter()
            .map(|r| r["index"].as_u64().unwrap())
            .collect();
        let first = s[..1].parse::<u64>().unwrap();
        assert!(
            idx.iter()
                .enumerate()
                .all(|(n, &i)| i == first + 2 * n as u64),
            "shard {s}: {idx:?}"
        );
        shards.push(path);
    }
    // Given in the other order: the merge is in manifest order all the same.
    let out = lift()
        .arg("--merge")
        .args([&shards[1], &shards[0]])
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let merged: Vec<_> = records(&String::from_utf8_lossy(&out.stdout))
        .into_iter()
        .map(untimed)
        .collect();
    let jobs = std::fs::read_to_string(manifest)
        .unwrap()
        .lines()
        .filter(|l| l.trim() == "[[job]]")
        .count();
    let idx: Vec<u64> = merged
        .iter()
        .map(|r| r["index"].as_u64().unwrap())
        .collect();
    assert_eq!(
        idx,
        (0..jobs as u64).collect::<Vec<_>>(),
        "every job once, in order"
    );
    agrees_with_the_fixtures(&merged);
}

/// Every record against its folder's `expected.toml`: the formulas, the verdict the
/// blessed answers imply, and the all-sizes outcomes.
fn agrees_with_the_fixtures(records: &[serde_json::Value]) {
    let mut folders = BTreeMap::new();
    for suite in ["triton_ir", "corpus"] {
        for e in std::fs::read_dir(suite).unwrap().filter_map(|e| e.ok()) {
            if e.path().join("fixture.toml").is_file() && e.path().join("kernel.ttir").is_file() {
                folders.insert(format!("{suite}/{}", e.file_name().to_string_lossy()), 0);
            }
        }
    }
    for r in records {
        let id = r["id"].as_str().unwrap();
        let (folder, kind) = id.rsplit_once(':').unwrap();
        *folders
            .get_mut(folder)
            .unwrap_or_else(|| panic!("{id}: no such fixture folder")) += 1;
        let text = std::fs::read_to_string(Path::new(folder).join("expected.toml")).unwrap();
        let e: Expected = toml::from_str(&text).unwrap();
        let error = r["error"].as_str().map(|e| format!("error: {e}"));
        match kind {
            "lift" => {
                let got: Vec<String> = match &error {
                    Some(e) => vec![e.clone()],
                    None => serde_json::from_value(r["formula"].clone()).unwrap(),
                };
                assert_eq!(got, e.lift, "{id}: the formulas differ from expected.toml");
                let verdict = if e.lift.iter().any(|l| l.starts_with("error: ")) {
                    None
                } else if e.lift.iter().any(|l| l.contains(": UNDEFINED: "))
                    || e.lift_all_sizes
                        .as_deref()
                        .is_some_and(|s| s.starts_with("REFUTED"))
                {
                    Some("refuted")
                } else if e.lift.iter().any(|l| l.contains(": STALLED: ")) {
                    Some("unknown")
                } else {
                    Some("verified")
                };
                if let Some(v) = verdict {
                    assert_eq!(r["verdict"], v, "{id}");
                }
                if e.lift_all_sizes.is_some() {
                    assert_eq!(r["all_sizes"].as_str(), e.lift_all_sizes.as_deref(), "{id}");
                }
            }
            "check" => {
                let want = e
                    .check
                    .as_deref()
                    .unwrap_or_else(|| panic!("{id}: expected.toml has no check"));
                match &error {
                    Some(got) => assert_eq!(got, want, "{id}"),
                    None => assert_eq!(r["word"], want, "{id}"),
                }
                assert_eq!(
                    r["all_sizes"].as_str(),
                    e.check_all_sizes.as_deref(),
                    "{id}"
                );
            }
            _ => panic!("{id}: a suite job is lift or check"),
        }
    }
    let missing: Vec<_> = folders
        .iter()
        .filter(|(_, n)| **n == 0)
        .map(|(f, _)| f)
        .collect();
    assert!(
        missing.is_empty(),
        "fixture folders no job runs: {missing:?}"
    );
}

/// A manifest written into a temporary folder; paths in it are relative to that folder,
/// so jobs name kernels by absolute path.
fn manifest(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

fn repo(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(rel)
        .display()
        .to_string()
}

/// `equiv` and `race` jobs, JSON manifests, and a job that fails to load, each with the
/// verdict its fixture gives independently: Triton's PTX of softmax is its TTIR
/// (tests/it/ptx_equiv.rs), the unrolled warp reduction without `volatile` races and the
/// sequential shared-memory reduction does not (ptx/reduce's `expect`), a missing kernel file is
/// an input error.
#[test]
fn equiv_race_and_broken_jobs() {
    let jobs = serde_json::json!([
        {"kind": "equiv", "kernel": repo("triton_ir/softmax/kernel.ttir"), "kernel2": repo("triton_ir/softmax/kernel.ptx"), "scope": "instance"},
        {"kind": "race", "kernel": repo("ptx/reduce/warp_unrolled_racy.ptx")},
        {"id": "tree", "kind": "race", "kernel": repo("ptx/reduce/sequential.ptx")},
        {"kind": "check", "kernel": repo("triton_ir/no_such_kernel.ttir"), "spec": "y = x"},
        {"kind": "check", "kernel": repo("triton_ir/softmax_bug/kernel.ttir"), "spec": "y = torch.softmax(x, dim=-1)", "scope": "instance"},
    ]);
    let (_d, path) = manifest("m.json", &jobs.to_string());
    let (code, out, err) = batch(&[path.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{err}");
    let r = records(&out);
    let got: Vec<(&str, &str, i64)> = r
        .iter()
        .map(|r| {
            (
                r["verdict"].as_str().unwrap(),
                r["word"].as_str().unwrap(),
                r["exit_code"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("verified", "VERIFIED", 0),
            ("refuted", "RACE", 1),
            ("verified", "SAFE", 0),
            ("error", "ERROR", 2),
            ("refuted", "REFUTED", 1),
        ],
        "{out}"
    );
    assert_eq!(r[2]["id"], "tree");
    assert!(
        r[1]["finding"].as_str().is_some_and(|f| f.contains("race")),
        "{}",
        r[1]
    );
    assert!(
        r[3]["error"]
            .as_str()
            .is_some_and(|e| e.contains("no_such_kernel.ttir")),
        "{}",
        r[3]
    );
    assert!(r[4]["counterexample"].is_object(), "{}", r[4]);
    assert_eq!(r[0]["kernels"].as_array().unwrap().len(), 2);
}

#[test]
fn a_bad_manifest_names_file_line_and_what_was_expected() {
    let cases = [
        ("m.toml", "[[job]]\nkind = \"check\"\nkernel = \"k.ttir\"\nspec = \"y = x\"\n\n[[job]]\nkind = \"prove\"\nkernel = \"k.ttir\"\n", "m.toml:7:", "lift"),
        ("m.toml", "[[job]]\nkind = \"check\"\nkernel = \"k.ttir\"\n", "m.toml:1:", "needs `spec"),
        ("m.toml", "[[job]]\nkind = \"lift\"\nkernel = \"k.ttir\"\ncolour = 3\n", "m.toml:4:", "colour"),
        ("m.toml", "[[job]]\nkind = \"equiv\"\nkernel = \"k.ttir\"\n", "m.toml:1:", "needs `kernel2`"),
        ("m.toml", "# nothing\n", "m.toml:", "no jobs"),
        ("m.json", "[\n {\"kind\": \"lift\", \"kernel\": \"a.ttir\"},\n {\"kind\": \"race\", \"kernel\": \"b.ptx\", \"spec\": \"y = x\"}\n]\n", "m.json:3:", "takes no `spec`"),
    ];
    for (name, text, at, what) in cases {
        let (_d, path) = manifest(name, text);
        let (code, out, err) = batch(&[path.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{text}: {err}");
        assert!(out.is_empty(), "no job runs on a bad manifest: {out}");
        let shown = format!("{}", path.display());
        let at = at.replacen(name, &shown, 1);
        assert!(
            err.contains(&at) && err.contains(what),
            "{text}\nwanted `{at}` and `{what}` in: {err}"
        );
    }
    for bad in ["2/2", "1", "a/b", "0/0"] {
        let (code, _, err) = batch(&["tests/batch/suite.toml", "--shard", bad]);
        assert_eq!(code, Some(2), "--shard {bad}: {err}");
        assert!(err.contains("i/n"), "{err}");
    }
}

#[test]
fn merge_refuses_duplicates_gaps_and_other_manifests() {
    let jobs = |n: usize| {
        (0..n)
            .map(|_| {
                format!(
                    "[[job]]\nkind = \"lift\"\nkernel = \"{}\"\nscope = \"instance\"\n",
                    repo("triton_ir/abs/kernel.ttir")
                )
            })
            .collect::<String>()
    };
    let (dir, path) = manifest("m.toml", &jobs(3));
    let run = |args: &[&str], out: &str| {
        let (code, text, err) = batch(args);
        assert_eq!(code, Some(0), "{err}");
        let p = dir.path().join(out);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let m = path.to_str().unwrap();
    let a = run(&[m, "--shard", "0/2"], "a.jsonl");
    let b = run(&[m, "--shard", "1/2"], "b.jsonl");
    let (code, out, err) = batch(&["--merge", &a, &b]);
    assert_eq!(code, Some(0), "{err}");
    let idx: Vec<u64> = records(&out)
        .iter()
        .map(|r| r["index"].as_u64().unwrap())
        .collect();
    assert_eq!(idx, [0, 1, 2]);

    let (code, _, err) = batch(&["--merge", &a, &b, &a]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("job 0 again") && err.contains(&format!("{a}:1")),
        "{err}"
    );
    let (code, _, err) = batch(&["--merge", &a]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("miss 1 of the manifest's 3 jobs: index 1"),
        "{err}"
    );
    let (_d2, other) = manifest("m.toml", &jobs(4));
    let c = run(&[other.to_str().unwrap(), "--shard", "1/2"], "c.jsonl");
    let (code, _, err) = batch(&["--merge", &a, &c]);
    assert_eq!(code, Some(2));
    assert!(err.contains("shards of different manifests"), "{err}");
    let junk = dir.path().join("junk.jsonl");
    std::fs::write(&junk, "{\"schema\": \"lift.check/1\"}\n").unwrap();
    let (code, _, err) = batch(&["--merge", junk.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("junk.jsonl:1: expected a lift.batch/1 record"),
        "{err}"
    );
}
