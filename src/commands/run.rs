//! `lift run`: execute a kernel on NumPy inputs and write its outputs as `.npy` files.

use super::{output, LaunchOptions};
use crate::error::Error;
use crate::npy;
use crate::verdict::Verdict;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Run `kernel` on the `inputs` arrays (NAME, FILE) and `scalars`; write every output
/// to `out/<tensor>.npy`. Sizes come from the arrays' shapes, then `launch.sizes`.
pub fn run(
    kernel: &Path,
    launch: &LaunchOptions,
    inputs: &[(String, PathBuf)],
    scalars: &BTreeMap<String, f64>,
    out: &Path,
) -> Result<Verdict, Error> {
    let k = launch.load(kernel)?;
    let mut arrays = BTreeMap::new();
    for (name, path) in inputs {
        arrays.insert(name.clone(), npy::read(path)?);
    }
    let sizes = k.sizes_from_inputs(&arrays, &launch.sizes)?;
    let inst = k.instance(&sizes)?;
    let result = k.run(&inst, &arrays, scalars)?;
    for w in &result.warnings {
        eprintln!("warning: {w}");
    }
    output::create_dir(out, "cannot create output directory")?;
    for (name, array) in &result.outputs {
        let path = out.join(format!("{name}.npy"));
        npy::write_as(&path, array, inst.npy_dtype(name))?;
        println!("wrote {} {:?}", path.display(), array.shape);
    }
    Ok(Verdict::Verified)
}
