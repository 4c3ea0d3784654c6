//! `lift batch --merge A.jsonl B.jsonl ...`: the shards' records as one run's, in
//! manifest order.
//!
//! Invariant: the merge prints each record line unchanged, ordered by `index`, and only
//! when the files hold exactly the indices `0..jobs` of one manifest once each; a
//! duplicate, a gap, a foreign or malformed line is an error naming file and line.

use crate::error::Error;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// Where a record came from, for messages.
struct Seen {
    at: String,
    line: String,
}

/// Merge `files` and print the records in manifest order.
pub fn merge(files: &[std::path::PathBuf]) -> Result<i32, Error> {
    if files.is_empty() {
        return Err(Error::Usage(
            "--merge needs the shards' output files (lift batch --merge A.jsonl B.jsonl ...)"
                .into(),
        ));
    }
    let mut records: BTreeMap<u64, Seen> = BTreeMap::new();
    // The manifest hash and job count every record must share, and where they were first read.
    let mut run: Option<(String, u64, String)> = None;
    let mut all_proved = true;
    for file in files {
        let text = read(file)?;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = format!("{}:{}", file.display(), n + 1);
            let bad = |what: &str| Error::Usage(format!("{at}: {what}"));
            let v: serde_json::Value = serde_json::from_str(line).map_err(|e| {
                bad(&format!(
                    "not a JSON record ({e}); expected one lift.batch/1 record per line"
                ))
            })?;
            if v["schema"] != "lift.batch/1" {
                return Err(bad(
                    "expected a lift.batch/1 record (\"schema\": \"lift.batch/1\")",
                ));
            }
            let (Some(index), Some(jobs), Some(hash)) = (
                v["index"].as_u64(),
                v["jobs"].as_u64(),
                v["manifest"].as_str(),
            ) else {
                return Err(bad(
                    "a lift.batch/1 record needs `index`, `jobs` and `manifest`",
                ));
            };
            match &run {
                None => run = Some((hash.to_string(), jobs, at.clone())),
                Some((h, j, first)) if h != hash || *j != jobs => {
                    return Err(bad(&format!(
                        "this record is of manifest {hash} with {jobs} jobs, but {first} is of manifest {h} with {j} jobs: shards of different manifests"
                    )))
                }
                Some(_) => {}
            }
            if index >= jobs {
                return Err(bad(&format!(
                    "index {index} is past the manifest's {jobs} jobs"
                )));
            }
            if let Some(prev) = records.get(&index) {
                return Err(bad(&format!(
                    "job {index} again (first at {}): a shard given twice, or shards that overlap",
                    prev.at
                )));
            }
            all_proved &= v["exit_code"] == 0;
            records.insert(
                index,
                Seen {
                    at,
                    line: line.to_string(),
                },
            );
        }
    }
    let Some((_, jobs, _)) = run else {
        return Err(Error::Usage(format!(
            "no records in {}",
            files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    };
    let missing: Vec<String> = (0..jobs)
        .filter(|i| !records.contains_key(i))
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        let shown = if missing.len() > 20 {
            format!("{}, … ({} in all)", missing[..20].join(", "), missing.len())
        } else {
            missing.join(", ")
        };
        return Err(Error::Usage(format!(
            "the shards miss {} of the manifest's {jobs} jobs: index {shown} (a shard not given, or one that did not finish)",
            missing.len()
        )));
    }
    let mut out = std::io::stdout().lock();
    for seen in records.values() {
        let _ = writeln!(out, "{}", seen.line);
    }
    Ok(if all_proved { 0 } else { 1 })
}

fn read(file: &Path) -> Result<String, Error> {
    std::fs::read_to_string(file).map_err(|e| Error::Io {
        path: file.display().to_string(),
        message: format!("cannot read a shard's output: {e}"),
    })
}
