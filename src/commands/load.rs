//! Loading a command's kernel: the launch beside it, given, or inferred (and then
//! printed on stderr, so a verdict rests only on printed text).
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
}

impl LaunchOptions {
    /// The kernel at `path` with these options.
    pub fn load(&self, path: &Path) -> Result<Kernel, Error> {
        load(
            path,
            self.launch.as_deref(),
            self.reading,
            self.write_launch,
        )
    }
}

/// Read a kernel and its launch (inferred, and printed on stderr, where none is given
/// or found beside it).
pub fn load(
    kernel: &Path,
    launch: Option<&Path>,
    reading: Reading,
    write_launch: bool,
) -> Result<Kernel, Error> {
    if write_launch && launch.is_some() {
        return Err(Error::Usage(
            "--write-launch writes an inferred launch; with --launch FILE there is nothing to infer".into(),
        ));
    }
    let (k, inferred) = Kernel::load_or_infer_with(kernel, launch, reading)?;
    match inferred {
        Some(inf) => {
            eprintln!(
                "note: {} has no launch file; lift inferred this launch ({}; every access in bounds and every output element written on two instances). The verdict assumes it; pass --launch FILE to use another:",
                kernel.display(),
                inf.family
            );
            for line in inf.text.lines() {
                eprintln!("  {line}");
            }
            if write_launch {
                let path = crate::infer_launch::write_beside(kernel, &inf)?;
                eprintln!("note: wrote the inferred launch to {}", path.display());
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
