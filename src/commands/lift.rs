//! `lift KERNEL`: lift every output to a formula proved on the launch instance, then
//! (with `all_sizes`) for every size, and print it in the chosen format.
//!
//! Architecture invariant: the formulas and the verdict come from `synth` and
//! `verify`; this only runs them in order and renders.

use super::{output, LaunchOptions};
use crate::error::Error;
use crate::kernel::Kernel;
use crate::synth::Lift;
use crate::term::Terms;
use crate::verdict::Verdict;
use crate::verify::Limits;
use std::collections::BTreeMap;
use std::path::Path;

/// What `lift KERNEL` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LiftFormat {
    Text,
    Json,
    Latex,
    Torch,
    Numpy,
}

/// Lift `kernel`; with `all_sizes`, prove its formulas for every size within `limits`.
pub fn lift(
    kernel: &Path,
    launch: &LaunchOptions,
    format: LiftFormat,
    all_sizes: bool,
    limits: &Limits,
) -> Result<Verdict, Error> {
    let k = launch.load(kernel)?;
    let (lifted, terms) = lift_loaded(&k, &launch.sizes, all_sizes, limits)?;
    let rendered = match format {
        LiftFormat::Text => Some(Ok(lifted.to_text(&terms))),
        LiftFormat::Json => {
            output::json(&lifted.to_json());
            return Ok(lifted.verdict());
        }
        LiftFormat::Latex => lifted.to_latex(),
        LiftFormat::Torch => lifted.to_torch(),
        LiftFormat::Numpy => lifted.to_numpy(),
    };
    match rendered {
        Some(Ok(text)) => print!("{text}"),
        Some(Err(e)) => return Err(Error::Usage(format!("cannot render: {}", e.message))),
        // Not every output lifted: the text report says which and why.
        None => eprint!("{}", lifted.to_text(&terms)),
    }
    Ok(lifted.verdict())
}

/// `lift KERNEL` on a loaded kernel: the lift (proved for every size with
/// `all_sizes`) and the terms its report prints from.
pub(crate) fn lift_loaded(
    k: &Kernel,
    sizes: &BTreeMap<String, i64>,
    all_sizes: bool,
    limits: &Limits,
) -> Result<(Lift, Terms), Error> {
    let inst = k.instance(sizes)?;
    let mut terms = Terms::new();
    let mut lifted = crate::synth::lift(k, &inst, &mut terms)?;
    if all_sizes {
        lifted.verify_all_sizes_with(k, &inst, limits);
    }
    Ok((lifted, terms))
}
