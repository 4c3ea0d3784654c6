//! `lift race`: is every memory access of a kernel safe on one launch instance?

use super::{output, Format, LaunchOptions};
use crate::error::Error;
use crate::verdict::Verdict;
use std::path::Path;

/// Check `kernel` for races, deadlocks and bad accesses and print the report.
pub fn race(
    kernel: &Path,
    launch: &LaunchOptions,
    format: Format,
    strict_races: bool,
) -> Result<Verdict, Error> {
    let k = launch.load(kernel)?;
    let inst = k.instance(&launch.sizes)?;
    let report = match (crate::race::race_with(&k, &inst, strict_races), format) {
        (Ok(r), _) => r,
        // An answer lift cannot give (unsupported code, limits) is still a JSON
        // report: verdict "unknown" with the reason.
        (Err(e), Format::Json) if e.verdict() == Some(Verdict::Unknown) => {
            output::json(&crate::race::unknown_json(&k, &inst, &e.to_string()));
            return Ok(Verdict::Unknown);
        }
        (Err(e), _) => return Err(e),
    };
    match format {
        Format::Text => print!("{}", report.to_text()),
        Format::Json => output::json(&report.to_json()),
    }
    Ok(report.verdict())
}
