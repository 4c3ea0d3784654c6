//! Loading a command's kernel: the launch beside it, given, or inferred (and then
//! printed on stderr, or for `lift batch` kept in the job's record, so a verdict rests
//! only on printed text). A CUDA source file (`.cu`) is compiled to PTX first
//! ([`super::cuda`]).
//!
//! Architecture invariant: a kernel leaves here fully configured (its [`Reading`] is
//! fixed at load, never set after).

use crate::error::Error;
use crate::kernel::{Kernel, Reading};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Which launch a kernel runs under, and how it is read.
#[derive(Clone, Debug, Default)]
pub struct LaunchOptions {
    /// `--launch FILE` (default: beside the kernel, else inferred).
    pub launch: Option<PathBuf>,
    /// `--write-launch`: write an inferred launch beside the kernel.
    pub write_launch: bool,
    /// `--size NAME=VALUE` overrides.
    pub sizes: BTreeMap<String, i64>,
    pub reading: Reading,
    /// How a CUDA source file is compiled (`--kernel NAME`, `--nvrtc-option OPT`).
    pub cuda: super::cuda::CudaOptions,
}

impl LaunchOptions {
    /// The kernel at `path` with these options (an inferred launch printed on stderr).
    pub fn load(&self, path: &Path) -> Result<Kernel, Error> {
        let mut notes = Vec::new();
        let k = self.load_noting(path, &mut notes);
        for n in notes {
            eprintln!("{n}");
        }
        k
    }

    /// [`LaunchOptions::load`], the notes (an inferred launch) pushed onto `notes`.
    pub(crate) fn load_noting(
        &self,
        path: &Path,
        notes: &mut Vec<String>,
    ) -> Result<Kernel, Error> {
        let source = Source {
            launch: self.launch.as_deref(),
            reading: self.reading,
            cuda: &self.cuda,
        };
        load_noting(path, &source, self.write_launch, notes)
    }
}

/// How one kernel file is read: its launch, its reading, and for CUDA source how it
/// is compiled.
pub(crate) struct Source<'a> {
    pub launch: Option<&'a Path>,
    pub reading: Reading,
    pub cuda: &'a super::cuda::CudaOptions,
}

/// Read a kernel and its launch (inferred, and said in `notes`, where none is given or
/// found beside it).
pub(crate) fn load_noting(
    kernel: &Path,
    source: &Source,
    write_launch: bool,
    notes: &mut Vec<String>,
) -> Result<Kernel, Error> {
    let launch = source.launch;
    if write_launch && launch.is_some() {
        return Err(Error::Usage(
            "--write-launch writes an inferred launch; with --launch FILE there is nothing to infer".into(),
        ));
    }
    let (k, inferred) = if super::cuda::is_cuda(kernel) {
        super::cuda::load(kernel, launch, source.reading, source.cuda)?
    } else {
        source.cuda.unused(kernel)?;
        Kernel::load_or_infer_with(kernel, launch, source.reading)?
    };
    match inferred {
        Some(inf) => {
            let mut note = format!(
                "note: {} has no launch file; lift inferred this launch ({}; every access in bounds and every output element written on two instances). The verdict assumes it; pass --launch FILE to use another:",
                kernel.display(),
                inf.family
            );
            for line in inf.text.lines() {
                note += &format!("\n  {line}");
            }
            notes.push(note);
            if write_launch {
                let path = crate::infer_launch::write_beside(kernel, &inf)?;
                notes.push(format!(
                    "note: wrote the inferred launch to {}",
                    path.display()
                ));
            }
        }
        None if write_launch => {
            return Err(Error::Usage(format!(
                "--write-launch: {} already has a launch file ({}); not overwriting it",
                kernel.display(),
                Kernel::launch_beside(kernel)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            )))
        }
        None => {}
    }
    Ok(k)
}
