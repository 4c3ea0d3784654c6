//! Where command reports go: JSON documents and text on stdout, notes on stderr,
//! counterexample inputs as `.npy` files.
//!
//! Architecture invariant: the only writer of command output besides the reports'
//! own `to_text`; JSON is printed pretty with one trailing newline everywhere.

use crate::error::Error;
use crate::launch::Instance;
use crate::npy::{self, Array};
use std::collections::BTreeMap;
use std::path::Path;

/// Print a JSON document (pretty, one trailing newline).
pub fn json(value: &serde_json::Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).unwrap_or_default()
    );
}

/// Create `dir` (and its parents), saying what it is for in the error.
pub fn create_dir(dir: &Path, what: &str) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Io {
        path: dir.display().to_string(),
        message: format!("{what}: {e}"),
    })
}

/// Write a counterexample's whole input tensors as `DIR/<tensor>.npy` and its scalar
/// values as `DIR/scalars.txt` (`--scalar NAME=VALUE` lines), ready for `lift run`.
/// Nothing is written when there are no arrays.
pub fn counterexample(
    dir: &Path,
    inst: &Instance,
    arrays: &[(String, Array)],
    scalars: &BTreeMap<String, f64>,
) -> Result<(), Error> {
    if arrays.is_empty() {
        return Ok(());
    }
    create_dir(dir, "cannot create directory")?;
    for (name, array) in arrays {
        npy::write_as(
            &dir.join(format!("{name}.npy")),
            array,
            inst.npy_dtype(name),
        )?;
    }
    if !scalars.is_empty() {
        let text: String = scalars
            .iter()
            .map(|(k, v)| format!("--scalar {k}={v}\n"))
            .collect();
        let path = dir.join("scalars.txt");
        std::fs::write(&path, text).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
    }
    eprintln!("counterexample inputs written to {}", dir.display());
    Ok(())
}
