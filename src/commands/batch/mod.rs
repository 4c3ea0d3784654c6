//! `lift batch MANIFEST`: many jobs (lift, check, equiv, race), run in parallel, one
//! `lift.batch/1` JSON line each on stdout (docs/batch.md); `--shard i/n` runs the jobs
//! whose index is `i` modulo `n`, and `--merge` joins shards' lines back into one run.
//!
//! Invariant: the output is a function of the manifest and the shard alone: lines come
//! in manifest order whatever order the jobs finish in (each is printed once every
//! earlier job of the shard is), and only their `seconds` fields read the clock. The
//! progress bar is drawn on stderr only when stderr is a terminal and stdout is not a
//! pipe.

mod job;
mod manifest;
mod merge;

pub use merge::merge;

use crate::error::Error;
use crate::verify::Limits;
use rayon::prelude::*;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

/// Which share of the jobs this run takes: those whose index is `index` modulo `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Default for Shard {
    fn default() -> Shard {
        Shard { index: 0, count: 1 }
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `i/n` with `0 <= i < n`.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("expected a shard as i/n with 0 <= i < n (e.g. 0/4), got '{s}'");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// The options of `lift batch`.
#[derive(Clone, Debug, Default)]
pub struct BatchOptions {
    pub shard: Shard,
    /// Jobs run at once (default: rayon's, one per core).
    pub threads: Option<usize>,
    /// `--no-progress`: never draw the bar.
    pub no_progress: bool,
    /// The all-sizes step's limits, for every job.
    pub limits: Limits,
}

/// Run the manifest's jobs of this shard and print their records. Ok(0) when every job
/// was proved, Ok(1) when any was not (each record says how); Err on a bad manifest or
/// option, before any job runs.
pub fn batch(manifest: &Path, opts: &BatchOptions) -> Result<i32, Error> {
    let m = manifest::read(manifest)?;
    let total = m.jobs.len();
    let mine: Vec<usize> = (0..total)
        .filter(|i| i % opts.shard.count == opts.shard.index)
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads.unwrap_or(0))
        .build()
        .map_err(|e| Error::Usage(format!("cannot start the job threads: {e}")))?;
    let bar = progress_bar(mine.len() as u64, opts.no_progress);
    let printer = Mutex::new(Printer::default());
    let all_proved = pool.install(|| {
        mine.par_iter()
            .enumerate()
            .map(|(pos, &i)| {
                let record = job::run(&m.jobs[i], i, total, &m.hash, &opts.limits);
                let proved = record["exit_code"] == 0;
                let line = serde_json::to_string(&record).unwrap_or_default();
                printer
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .put(pos, line, &bar);
                bar.inc(1);
                proved
            })
            .reduce(|| true, |a, b| a && b)
    });
    bar.finish_and_clear();
    Ok(if all_proved { 0 } else { 1 })
}

/// How many jobs the manifest at `path` holds.
pub fn job_count(manifest: &Path) -> Result<usize, Error> {
    Ok(manifest::read(manifest)?.jobs.len())
}

/// The records of the manifest's jobs `indices`, in that order, each the one `lift
/// batch` prints for it: for callers that spread the jobs themselves (the Python
/// package's Ray executor runs one index per task).
pub fn run_jobs(
    manifest: &Path,
    indices: &[usize],
    limits: &Limits,
) -> Result<Vec<serde_json::Value>, Error> {
    let m = manifest::read(manifest)?;
    let total = m.jobs.len();
    if let Some(bad) = indices.iter().find(|&&i| i >= total) {
        return Err(Error::Usage(format!(
            "{}: no job {bad} (the manifest has {total})",
            manifest.display()
        )));
    }
    Ok(indices
        .par_iter()
        .map(|&i| job::run(&m.jobs[i], i, total, &m.hash, limits))
        .collect())
}

/// Holds finished lines until every earlier one is printed.
#[derive(Default)]
struct Printer {
    next: usize,
    waiting: std::collections::BTreeMap<usize, String>,
}

impl Printer {
    fn put(&mut self, pos: usize, line: String, bar: &indicatif::ProgressBar) {
        self.waiting.insert(pos, line);
        while let Some(line) = self.waiting.remove(&self.next) {
            bar.suspend(|| {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
            });
            self.next += 1;
        }
    }
}

/// A bar on stderr when stderr is a terminal and stdout is not a pipe; else a hidden one.
fn progress_bar(len: u64, off: bool) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if off || !std::io::stderr().is_terminal() || stdout_is_pipe() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {pos}/{len} jobs, {elapsed} elapsed, about {eta} left",
    ) {
        bar.set_style(style);
    }
    bar
}

#[cfg(unix)]
fn stdout_is_pipe() -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata("/dev/stdout").is_ok_and(|m| m.file_type().is_fifo())
}

#[cfg(not(unix))]
fn stdout_is_pipe() -> bool {
    false
}
