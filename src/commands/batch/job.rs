//! One `lift batch` job: run its command through the same functions the CLI calls
//! (`commands::{lift, check, equiv}`'s `*_loaded`, `race::race_with`) and say the
//! outcome as one `lift.batch/1` record (docs/batch.md).
//!
//! Invariant: the record's verdict and exit code are the command's own (`Verdict`,
//! `Error::exit_code`), never read from text; every field but `seconds` is a function
//! of the job alone, so a record is the same whichever shard or thread ran it.

use super::manifest::{Job, Kind, MaskedLoad, Precision, Scope};
use crate::commands::cuda::CudaOptions;
use crate::commands::{DecideOptions, EquivOptions, LaunchOptions};
use crate::error::Error;
use crate::exec::domain;
use crate::kernel::Reading;
use crate::verdict::Verdict;
use crate::verify::Limits;
use serde_json::{json, Map, Value};
use std::time::Instant;

/// What a job found, before it becomes a record.
#[derive(Default)]
struct Found {
    verdict: Option<Verdict>,
    /// The verdict line's first words: `VERIFIED`, `REFUTED`, `STALLED`, `RACE`, …
    word: String,
    /// The fields the command adds (scope, constraints, formula, finding, …).
    fields: Map<String, Value>,
}

/// Run `job` (number `index` of `total` in manifest `hash`) and return its record.
pub fn run(job: &Job, index: usize, total: usize, hash: &str, limits: &Limits) -> Value {
    let start = Instant::now();
    let mut notes = Vec::new();
    let result = execute(job, limits, &mut notes);
    let seconds = start.elapsed().as_secs_f64();
    let (verdict, exit_code, found, error) = match result {
        Ok(f) => {
            let v = f.verdict.unwrap_or(Verdict::Unknown);
            (verdict_word(Some(v)), v.exit_code(), f, None)
        }
        Err(e) => {
            // A kernel that faults is refuted with the fault's verdict word, as the CLI
            // prints it; what lift does not read is unknown; the rest is an input error.
            let word = match (&e, e.verdict()) {
                (Error::Exec { err, .. }, Some(Verdict::Refuted)) => {
                    crate::race::verdict_word(err.kind).to_string()
                }
                (_, Some(Verdict::Unknown)) => "UNKNOWN".to_string(),
                _ => "ERROR".to_string(),
            };
            let found = Found {
                word,
                ..Found::default()
            };
            (
                verdict_word(e.verdict()),
                e.exit_code(),
                found,
                Some(e.to_string()),
            )
        }
    };
    let mut record = json!({
        "schema": "lift.batch/1",
        "index": index,
        "jobs": total,
        "manifest": hash,
        "id": job.id.clone().unwrap_or_else(|| default_id(job)),
        "kind": job.kind.word(),
        "kernels": job.kernels.iter().map(|k| k.display().to_string()).collect::<Vec<_>>(),
        "spec": job.spec,
        "verdict": verdict,
        "word": found.word,
        "exit_code": exit_code,
        "error": error,
        "notes": notes,
    });
    let obj = record.as_object_mut().expect("a record is an object");
    obj.extend(found.fields);
    obj.insert("seconds".into(), json!(seconds));
    record
}

/// `lift check triton_ir/softmax/kernel.ttir`.
fn default_id(job: &Job) -> String {
    let kernels: Vec<String> = job
        .kernels
        .iter()
        .map(|k| k.display().to_string())
        .collect();
    format!("{} {}", job.kind.word(), kernels.join(" "))
}

/// The record's `verdict`: a command's verdict, or `error` for an input error.
fn verdict_word(v: Option<Verdict>) -> &'static str {
    match v {
        Some(Verdict::Verified) => "verified",
        Some(Verdict::Refuted) => "refuted",
        Some(Verdict::Unknown) => "unknown",
        None => "error",
    }
}

fn reading(job: &Job) -> Reading {
    let precision = match job.precision {
        Precision::Real => domain::Precision::Real,
        Precision::Ieee => domain::Precision::Ieee,
    };
    let masked_load = match job.masked_load {
        MaskedLoad::Undefined => crate::exec::MaskedLoad::Undefined,
        MaskedLoad::Zero => crate::exec::MaskedLoad::Zero,
    };
    Reading {
        precision,
        options: crate::exec::Options { masked_load },
    }
}

fn cuda(job: &Job, side: usize) -> CudaOptions {
    CudaOptions {
        kernel: job.names[side].clone(),
        nvrtc_options: job.nvrtc_options.clone(),
    }
}

fn decide(job: &Job, limits: &Limits) -> DecideOptions {
    DecideOptions {
        max_case_splits: job
            .max_case_splits
            .unwrap_or(crate::decide::Options::default().max_case_splits),
        all_sizes: job.scope == Scope::All,
        limits: limits.clone(),
        ..DecideOptions::default()
    }
}

fn execute(job: &Job, limits: &Limits, notes: &mut Vec<String>) -> Result<Found, Error> {
    let launch = LaunchOptions {
        launch: job.launch.clone(),
        write_launch: false,
        sizes: job.sizes.clone(),
        reading: reading(job),
        cuda: cuda(job, 0),
    };
    let kernel = &job.kernels[0];
    match job.kind {
        Kind::Lift => {
            let k = launch.load_noting(kernel, notes)?;
            let all = job.scope == Scope::All;
            let (lifted, _, _) =
                crate::commands::lift::lift_loaded(&k, &job.sizes, all, limits, true)?;
            Ok(lift_found(&lifted))
        }
        Kind::Check => {
            let k = launch.load_noting(kernel, notes)?;
            let spec = job.spec.as_deref().unwrap_or_default();
            let (report, _, _) =
                crate::commands::check::check_loaded(&k, spec, &job.sizes, &decide(job, limits))?;
            Ok(check_found(&report))
        }
        Kind::Equiv => {
            let launches = EquivOptions {
                launch: job.launch.clone(),
                launch2: job.launch2.clone(),
                sizes: job.sizes.clone(),
                reading: reading(job),
                cuda: cuda(job, 0),
                cuda2: cuda(job, 1),
            };
            let (a, b) =
                crate::commands::check::load_pair(kernel, &job.kernels[1], &launches, notes)?;
            let (report, _, _) =
                crate::commands::check::equiv_loaded(&a, &b, &job.sizes, &decide(job, limits))?;
            Ok(check_found(&report))
        }
        Kind::Race => {
            let k = launch.load_noting(kernel, notes)?;
            let inst = k.instance(&job.sizes)?;
            let report = crate::race::race_with(&k, &inst, job.strict_races)?;
            Ok(race_found(&report))
        }
    }
}

/// Fields shared by `lift` and `check`: the all-sizes outcome without its timing.
fn scope_fields(fields: &mut Map<String, Value>, all_sizes: Option<&crate::verify::Outcome>) {
    let (scope, constraints) = crate::verify::Outcome::scope_json(all_sizes);
    fields.insert("scope".into(), json!(scope));
    fields.insert("constraints".into(), json!(constraints));
    fields.insert("all_sizes".into(), json!(all_sizes.map(|o| o.describe())));
}

fn lift_found(lifted: &crate::synth::Lift) -> Found {
    let formula: Vec<String> = lifted
        .outputs
        .iter()
        .map(|o| match (&o.formula, &o.undefined) {
            (Some(f), _) => {
                let heading = match f.dims(&lifted.env) {
                    Ok(d) => crate::render::heading(&o.name, &d),
                    Err(_) => o.name.clone(),
                };
                format!(
                    "{heading} = {}",
                    crate::render::text::expr_in(f, &lifted.env)
                )
            }
            (None, Some(why)) => format!("{}: UNDEFINED: {why}", o.name),
            (None, None) => format!(
                "{}: STALLED: {}",
                o.name,
                o.stalled.as_deref().unwrap_or("")
            ),
        })
        .collect();
    let verdict = lifted.verdict();
    let word = if lifted.outputs.iter().any(|o| o.undefined.is_some()) {
        "UNDEFINED"
    } else if verdict == Verdict::Unknown {
        "STALLED"
    } else {
        word_of(verdict)
    };
    let mut fields = Map::new();
    scope_fields(&mut fields, lifted.all_sizes.as_ref());
    fields.insert("formula".into(), json!(formula));
    fields.insert("assumptions".into(), json!(lifted.assumptions));
    Found {
        verdict: Some(verdict),
        word: word.into(),
        fields,
    }
}

fn check_found(report: &crate::check::Report) -> Found {
    let full = report.to_json();
    let mut fields = Map::new();
    scope_fields(&mut fields, report.all_sizes.as_ref());
    for key in ["preconditions", "assumptions", "counterexample", "unknown"] {
        fields.insert(key.into(), full.get(key).cloned().unwrap_or(Value::Null));
    }
    Found {
        verdict: Some(report.outcome),
        word: word_of(report.outcome).into(),
        fields,
    }
}

fn race_found(report: &crate::race::RaceReport) -> Found {
    let mut fields = Map::new();
    fields.insert("scope".into(), json!("instance"));
    let finding = match &report.safety {
        crate::race::Safety::Safe => Value::Null,
        crate::race::Safety::Unsafe { message, .. } => json!(message),
    };
    fields.insert("finding".into(), finding);
    let benign: Vec<Value> = report
        .benign
        .iter()
        .map(|b| json!({"line": b.line, "message": b.message, "count": b.count}))
        .collect();
    fields.insert("benign_races".into(), json!(benign));
    Found {
        verdict: Some(report.verdict()),
        word: report.safety.verdict().into(),
        fields,
    }
}

fn word_of(v: Verdict) -> &'static str {
    match v {
        Verdict::Verified => "VERIFIED",
        Verdict::Refuted => "REFUTED",
        Verdict::Unknown => "UNKNOWN",
    }
}
