//! CUDA source in: a `.cu` file is compiled by NVRTC ([`crate::nvrtc`]) to PTX, and
//! the named kernel (`--kernel NAME`) is read by the PTX front end under the launch
//! beside the `.cu` file (`k.launch.toml`), a given one, or an inferred one.
//!
//! A PyTorch extension's source (`#include <torch/extension.h>`, host wrappers, a
//! `PYBIND11_MODULE`: what `load_inline` takes and language models write) is read as
//! its device part ([`crate::extension_source`]).
//!
//! Architecture invariant: a `.cu` kernel is exactly the PTX NVRTC gives for it (for an
//! extension's source, for its device part) with `ptx/generate.py`'s options, so every verdict on it is a verdict on that PTX; the
//! PTX keeps `-lineinfo`, so findings name `.cu` lines. Only the chosen entry is kept.
//! Messages name PTX lines under `<file>.cu.ptx` (the PTX is never written to disk).

use crate::error::Error;
use crate::kernel::{Code, Kernel, PtxKernel, Reading};
use crate::launch::Launch;
use std::path::{Path, PathBuf};

/// How a CUDA source file is compiled.
#[derive(Clone, Debug, Default)]
pub struct CudaOptions {
    /// `--kernel NAME`: the `__global__` function to check (its C++ name; NVRTC mangles
    /// it). Needed when the file defines more than one.
    pub kernel: Option<String>,
    /// `--nvrtc-option OPT`: options after the default ones (`-G`, `-use_fast_math`).
    pub nvrtc_options: Vec<String>,
}

impl CudaOptions {
    /// An error when these options are given for a kernel that is not CUDA source.
    pub(crate) fn unused(&self, kernel: &Path) -> Result<(), Error> {
        let flag = match (&self.kernel, self.nvrtc_options.is_empty()) {
            (Some(_), _) => "--kernel NAME",
            (None, false) => "--nvrtc-option",
            (None, true) => return Ok(()),
        };
        Err(Error::Usage(format!(
            "{}: {flag} applies to CUDA source (.cu) only",
            kernel.display()
        )))
    }
}

/// Whether `path` is CUDA source.
pub fn is_cuda(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "cu")
}

/// Compile `path` and load the chosen kernel with its launch (`launch`, else beside
/// the `.cu` file, else inferred and returned for the caller to print).
pub(crate) fn load(
    path: &Path,
    launch: Option<&Path>,
    reading: Reading,
    cuda: &CudaOptions,
) -> Result<(Kernel, Option<crate::infer_launch::Inferred>), Error> {
    let shown = path.display().to_string();
    let source = std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: shown.clone(),
        message: format!("cannot read CUDA source: {e}"),
    })?;
    // A PyTorch extension's source (a `load_inline` string) is compiled without its host
    // wrappers and torch headers, which NVRTC cannot read; lines stay where they were.
    let source = crate::extension_source::device_part(&source).unwrap_or(source);
    let compiled =
        crate::nvrtc::compile(&source, &shown, cuda.kernel.as_deref(), &cuda.nvrtc_options)
            .map_err(|e| Error::Usage(format!("{shown}: {e}")))?;
    let ptx_name = format!("{shown}.ptx");
    let mut module = crate::ptx::parse(&compiled.ptx).map_err(|e| Error::Parse {
        file: ptx_name.clone(),
        err: crate::triton_ir::ParseError {
            line: e.line,
            col: e.col,
            message: e.message,
        },
    })?;
    match &compiled.entry {
        Some(entry) => module.entries.retain(|e| &e.name == entry),
        None if module.entries.len() > 1 => {
            let names: Vec<&str> = module.entries.iter().map(|e| e.name.as_str()).collect();
            return Err(Error::Usage(format!(
                "{shown} defines {} kernels ({}); name one with --kernel NAME",
                names.len(),
                names.join(", ")
            )));
        }
        None => {}
    }
    if module.entries.is_empty() {
        return Err(Error::Usage(match &cuda.kernel {
            Some(k) => format!("{shown}: {k} is not a __global__ kernel"),
            None => format!("{shown}: no __global__ kernel"),
        }));
    }
    let beside = Kernel::launch_beside(path);
    let (launch, text, inferred) = match launch.map(Path::to_path_buf).or(beside) {
        Some(file) => {
            let launch = Launch::from_file(&file)?;
            (launch, read_launch(&file), None)
        }
        None => {
            let inferred = crate::infer_launch::infer_ptx(&module, &ptx_name)?;
            let launch = Launch::parse(&inferred.text, "<inferred launch>")?;
            (launch, inferred.text.clone(), Some(inferred))
        }
    };
    let kernel = Kernel {
        path: PathBuf::from(ptx_name),
        code: Code::Ptx(PtxKernel {
            module,
            arg_order: crate::ptx::launch_arg_order(&text),
        }),
        launch,
        precision: reading.precision,
        options: reading.options,
    };
    Ok((kernel, inferred))
}

fn read_launch(file: &Path) -> String {
    std::fs::read_to_string(file).unwrap_or_default()
}
