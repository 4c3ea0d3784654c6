//! `lift spec`: print the term of every output element on one launch instance.

use super::{output, Format, LaunchOptions};
use crate::error::Error;
use crate::term::Terms;
use crate::verdict::Verdict;
use std::path::Path;

/// Execute `kernel` symbolically and print its spec.
pub fn spec(kernel: &Path, launch: &LaunchOptions, format: Format) -> Result<Verdict, Error> {
    let k = launch.load(kernel)?;
    let inst = k.instance(&launch.sizes)?;
    let mut terms = Terms::new();
    let spec = k.spec(&inst, &mut terms)?;
    match format {
        Format::Text => print!("{}", spec.to_text(&terms)),
        Format::Json => output::json(&spec.to_json(&terms)),
    }
    Ok(Verdict::Verified)
}
