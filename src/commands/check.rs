//! `lift check` and `lift equiv`: prove a kernel equal to a PyTorch spec or to a
//! second kernel, print the report, and write the counterexample's inputs if asked.
//!
//! Architecture invariant: the verdict is the report's (`check::check`,
//! `check::equiv`); this only loads, passes options and writes.

use super::cuda::CudaOptions;
use super::load::{load_noting, Source};
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
    pub(crate) fn check_options(&self) -> Result<CheckOptions, Error> {
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
    let (report, inst, opts) = check_loaded(&k, spec, &launch.sizes, decide)?;
    finish(&report, &inst, &opts, decide, format)
}

/// `lift check` on a loaded kernel: its report, the instance it ran on and the options
/// it was decided with (for the counterexample's files).
pub(crate) fn check_loaded(
    k: &Kernel,
    spec: &str,
    sizes: &BTreeMap<String, i64>,
    decide: &DecideOptions,
) -> Result<(Report, Instance, CheckOptions), Error> {
    let inst = k.instance(sizes)?;
    let opts = decide.check_options()?;
    let report = check::check(k, &inst, spec, &opts)?;
    Ok((report, inst, opts))
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
    /// How each side is compiled when it is CUDA source (`--kernel`, `--kernel2`).
    pub cuda: CudaOptions,
    pub cuda2: CudaOptions,
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
    let mut notes = Vec::new();
    let pair = load_pair(left, right, launches, &mut notes);
    for n in notes {
        eprintln!("{n}");
    }
    let (a, b) = pair?;
    let (report, inst, opts) = equiv_loaded(&a, &b, &launches.sizes, decide)?;
    finish(&report, &inst, &opts, decide, format)
}

/// The two kernels of `lift equiv`, the notes on their launches pushed onto `notes`.
pub(crate) fn load_pair(
    left: &Path,
    right: &Path,
    launches: &EquivOptions,
    notes: &mut Vec<String>,
) -> Result<(Kernel, Kernel), Error> {
    let source = Source {
        launch: launches.launch.as_deref(),
        reading: launches.reading,
        cuda: &launches.cuda,
    };
    let a = load_noting(left, &source, false, notes)?;
    let borrowed = launches.launch2.is_none() && Kernel::launch_beside(right).is_none();
    let launch_b = if borrowed {
        launches.launch.clone()
    } else {
        launches.launch2.clone()
    };
    if let (true, Some(l)) = (borrowed, &launch_b) {
        notes.push(format!(
            "note: {} has no launch file; using {} for it too",
            right.display(),
            l.display()
        ));
    }
    let source = Source {
        launch: launch_b.as_deref(),
        reading: launches.reading,
        cuda: &launches.cuda2,
    };
    let b = load_noting(right, &source, false, notes)?;
    Ok((a, b))
}

/// `lift equiv` on two loaded kernels: the report, the first kernel's instance and the
/// options it was decided with.
pub(crate) fn equiv_loaded(
    a: &Kernel,
    b: &Kernel,
    sizes: &BTreeMap<String, i64>,
    decide: &DecideOptions,
) -> Result<(Report, Instance, CheckOptions), Error> {
    let opts = decide.check_options()?;
    let report = check::equiv(a, b, sizes, &opts)?;
    let inst = a.instance(&report.sizes)?;
    Ok((report, inst, opts))
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
