//! `lift check` and `lift equiv`: prove a kernel equal to a PyTorch spec or to a
//! second kernel, print the report, and write the counterexample's inputs if asked.
//!
//! Architecture invariant: the verdict is the report's (`check::check`,
//! `check::equiv`); this only loads, passes options and writes.

use super::load::load;
use super::{output, Format, LaunchOptions};
use crate::check::{self, CheckOptions, Report};
use crate::error::Error;
use crate::kernel::{Kernel, Reading};
use crate::launch::Instance;
use crate::npy;
use crate::verdict::Verdict;
use crate::verify::Limits;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The options of the decision shared by `check` and `equiv`.
#[derive(Clone, Debug, Default)]
pub struct DecideOptions {
    /// `--input NAME=FILE.npy`: arrays to try first as the refutation point.
    pub inputs: Vec<(String, PathBuf)>,
    /// `--scalar NAME=VALUE` for that first point.
    pub scalars: BTreeMap<String, f64>,
    /// `--counterexample DIR`: where to write a refutation's inputs.
    pub counterexample: Option<PathBuf>,
    /// `--max-case-splits N`.
    pub max_case_splits: usize,
    /// `--scope all`: after a verified instance, prove for every size.
    pub all_sizes: bool,
    /// The work limits of that all-sizes step.
    pub limits: Limits,
}

impl DecideOptions {
    /// The library's options: the given arrays read, the case-split limit checked.
    fn check_options(&self) -> Result<CheckOptions, Error> {
        let mut opts = CheckOptions {
            limits: self.limits.clone(),
            all_sizes: self.all_sizes,
            scalars: self.scalars.clone(),
            ..Default::default()
        };
        for (name, path) in &self.inputs {
            opts.inputs.insert(name.clone(), npy::read(path)?);
        }
        if self.max_case_splits > 20 {
            return Err(Error::Usage(format!(
                "--max-case-splits {} is more than 20 (2^20 cases per element)",
                self.max_case_splits
            )));
        }
        opts.decide.max_case_splits = self.max_case_splits;
        Ok(opts)
    }
}

/// `lift check KERNEL --spec SPEC`.
pub fn check(
    kernel: &Path,
    spec: &str,
    launch: &LaunchOptions,
    decide: &DecideOptions,
    format: Format,
) -> Result<Verdict, Error> {
    let k = launch.load(kernel)?;
    let inst = k.instance(&launch.sizes)?;
    let opts = decide.check_options()?;
    let report = check::check(&k, &inst, spec, &opts)?;
    finish(&report, &inst, &opts, decide, format)
}

/// The kernels and launches `lift equiv` compares.
#[derive(Clone, Debug, Default)]
pub struct EquivOptions {
    /// `--launch FILE` of the first kernel.
    pub launch: Option<PathBuf>,
    /// `--launch2 FILE` of the second.
    pub launch2: Option<PathBuf>,
    /// `--size NAME=VALUE` for both.
    pub sizes: BTreeMap<String, i64>,
    pub reading: Reading,
}

/// `lift equiv LEFT RIGHT`: the second kernel uses its own launch, else the first
/// one's `--launch` (said on stderr), else an inferred one.
pub fn equiv(
    left: &Path,
    right: &Path,
    launches: &EquivOptions,
    decide: &DecideOptions,
    format: Format,
) -> Result<Verdict, Error> {
    let a = load(left, launches.launch.as_deref(), launches.reading, false)?;
    let borrowed = launches.launch2.is_none() && Kernel::launch_beside(right).is_none();
    let launch_b = if borrowed {
        launches.launch.clone()
    } else {
        launches.launch2.clone()
    };
    if let (true, Some(l)) = (borrowed, &launch_b) {
        eprintln!(
            "note: {} has no launch file; using {} for it too",
            right.display(),
            l.display()
        );
    }
    let b = load(right, launch_b.as_deref(), launches.reading, false)?;
    let opts = decide.check_options()?;
    let report = check::equiv(&a, &b, &launches.sizes, &opts)?;
    let inst = a.instance(&report.sizes)?;
    finish(&report, &inst, &opts, decide, format)
}

/// Print the report and write its counterexample's inputs where asked.
fn finish(
    report: &Report,
    inst: &Instance,
    opts: &CheckOptions,
    decide: &DecideOptions,
    format: Format,
) -> Result<Verdict, Error> {
    match format {
        Format::Text => print!("{}", report.to_text()),
        Format::Json => output::json(&report.to_json()),
    }
    if let Some(dir) = &decide.counterexample {
        let (arrays, scalars) = report.counterexample_inputs(inst, &opts.inputs);
        output::counterexample(dir, inst, &arrays, &scalars)?;
    }
    Ok(report.outcome)
}
