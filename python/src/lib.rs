//! `lift._lift`: the lift library in-process, for the Python package in `python/lift/`.
//!
//! Each function takes a kernel file and its launch file (the package writes both into
//! its cache: the TTIR Triton compiled for the call, or CUDA source with the name of its
//! kernel, which NVRTC compiles as the CLI does; and the launch read off the call's
//! arguments), runs one stage of the library with the GIL released, and returns the
//! report as JSON text: the CLI's own `--format json` document plus its text, so a
//! Python verdict is the CLI's verdict on the same two files. Errors raise
//! `lift._lift.LiftError(message, exit_code)` with lift's message and exit code.
//!
//! `batch_run` runs jobs of a `lift batch` manifest, one record each, for the
//! package's executors (`lift.batch`, one Ray task per job).
//!
//! Invariant: no logic of its own beyond [`tensor_roles`] (which tensors the kernel
//! writes, read off a concrete run); every verdict comes from `lift::check` and
//! `lift::commands::lift_report`.

use lift::check::CheckOptions;
use lift::commands::{CudaOptions, LaunchOptions};
use lift::exec::domain::Concrete;
use lift::launch::Role;
use lift::npy::Array;
use lift::verify::Limits;
use lift::{Error, Kernel};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;

create_exception!(_lift, LiftError, PyException);

/// Arrays as they cross from Python: name → (shape, row-major data as f64).
type Arrays = BTreeMap<String, (Vec<usize>, Vec<f64>)>;

fn py_err(e: Error) -> PyErr {
    LiftError::new_err((e.to_string(), e.exit_code()))
}

/// How CUDA source is compiled (`lift check k.cu --kernel NAME --nvrtc-option OPT`);
/// empty for a kernel file that is not CUDA source.
type Cuda = (Option<String>, Vec<String>);

/// The kernel at `kernel` under the launch at `launch`; CUDA source (`.cu`) is compiled
/// by NVRTC first, exactly as the CLI compiles it.
fn load(kernel: &str, launch: &str, (name, nvrtc_options): &Cuda) -> Result<Kernel, Error> {
    let options = LaunchOptions {
        launch: Some(launch.into()),
        cuda: CudaOptions {
            kernel: name.clone(),
            nvrtc_options: nvrtc_options.clone(),
        },
        ..Default::default()
    };
    options.load(Path::new(kernel))
}

fn arrays(given: Arrays) -> BTreeMap<String, Array> {
    given
        .into_iter()
        .map(|(k, (shape, data))| (k, Array { shape, data }))
        .collect()
}

/// The role of each tensor of the launch at `launch` (every tensor written there as
/// `inout`): written by the kernel on the call's inputs: `out`, or `inout` where it is
/// read before it is written; else `in`. A run that faults otherwise stops the
/// settling; the check that follows reports the fault.
#[pyfunction]
#[pyo3(signature = (kernel, launch, inputs, scalars, cuda_kernel=None, nvrtc_options=Vec::new()))]
fn tensor_roles(
    py: Python<'_>,
    kernel: &str,
    launch: &str,
    inputs: Arrays,
    scalars: BTreeMap<String, f64>,
    cuda_kernel: Option<String>,
    nvrtc_options: Vec<String>,
) -> PyResult<BTreeMap<String, String>> {
    let cuda = (cuda_kernel, nvrtc_options);
    py.allow_threads(|| settle_roles(load(kernel, launch, &cuda)?, inputs, scalars))
        .map_err(py_err)
}

fn settle_roles(
    k: Kernel,
    inputs: Arrays,
    scalars: BTreeMap<String, f64>,
) -> Result<BTreeMap<String, String>, Error> {
    let mut inst = k.instance(&BTreeMap::new())?;
    let data: Vec<Vec<f64>> = inst
        .tensors
        .iter()
        .map(|t| match inputs.get(&t.name) {
            Some((_, d)) if d.len() == t.numel() => d.clone(),
            _ => vec![0.0; t.numel()],
        })
        .collect();
    let run = |inst: &lift::launch::Instance| {
        let mut domain = Concrete {
            data: inst
                .tensors
                .iter()
                .zip(&data)
                .map(|(t, d)| (t.role != Role::Out).then(|| d.clone()))
                .collect(),
            scalars: scalars.clone(),
            precision: k.precision,
            values_only: true,
        };
        k.execute(inst, &mut domain)
    };
    let first = run(&inst)?;
    for t in inst.tensors.iter_mut() {
        t.role = Role::In;
    }
    for o in &first.outputs {
        if o.writers.iter().any(Option::is_some) {
            inst.tensors[o.tensor].role = Role::Out;
        }
    }
    // An output read before it is written stops the run naming it
    // (`ExecError::unwritten`): make it `inout`.
    for _ in 0..inst.tensors.len() {
        match run(&inst) {
            Err(Error::Exec { err, .. }) => {
                match err.unwritten.and_then(|i| inst.tensors.get_mut(i)) {
                    Some(t) if t.role == Role::Out => t.role = Role::Inout,
                    _ => break,
                }
            }
            _ => break,
        }
    }
    Ok(inst
        .tensors
        .iter()
        .map(|t| {
            let role = match t.role {
                Role::In => "in",
                Role::Out => "out",
                Role::Inout => "inout",
            };
            (t.name.clone(), role.to_string())
        })
        .collect())
}

/// `lift check KERNEL --launch LAUNCH --spec SPEC --format json`, the caller's arrays
/// tried first as the refutation point. Returns `{"report", "text", "exit_code",
/// "counterexample": {"arrays": {name: [shape, data]}, "scalars"}}`.
#[pyfunction]
#[pyo3(signature = (kernel, launch, spec, all_sizes=true, inputs=Arrays::new(), scalars=BTreeMap::new(), max_case_splits=0, cuda_kernel=None, nvrtc_options=Vec::new()))]
#[allow(clippy::too_many_arguments)] // one per keyword argument of the Python function
fn check(
    py: Python<'_>,
    kernel: &str,
    launch: &str,
    spec: &str,
    all_sizes: bool,
    inputs: Arrays,
    scalars: BTreeMap<String, f64>,
    max_case_splits: usize,
    cuda_kernel: Option<String>,
    nvrtc_options: Vec<String>,
) -> PyResult<String> {
    let cuda = (cuda_kernel, nvrtc_options);
    py.allow_threads(|| -> Result<String, Error> {
        let k = load(kernel, launch, &cuda)?;
        let inst = k.instance(&BTreeMap::new())?;
        let mut opts = CheckOptions {
            inputs: arrays(inputs),
            scalars,
            all_sizes,
            limits: Limits::default(),
            ..Default::default()
        };
        opts.decide.max_case_splits = max_case_splits.min(20);
        let report = lift::check::check(&k, &inst, spec, &opts)?;
        let (cx_arrays, cx_scalars) = report.counterexample_inputs(&inst, &opts.inputs);
        let cx: serde_json::Map<String, serde_json::Value> = cx_arrays
            .into_iter()
            .map(|(name, a)| (name, json!([a.shape, a.data])))
            .collect();
        let doc = json!({
            "report": report.to_json(),
            "text": report.to_text(),
            "exit_code": report.outcome.exit_code(),
            "counterexample": {"arrays": cx, "scalars": cx_scalars},
        });
        Ok(doc.to_string())
    })
    .map_err(py_err)
}

/// `lift KERNEL --launch LAUNCH` in every format: `{"report", "text", "latex",
/// "numpy", "exit_code"}` (`latex`/`numpy` null where not every output lifted).
#[pyfunction]
#[pyo3(name = "lift", signature = (kernel, launch, all_sizes=true, cuda_kernel=None, nvrtc_options=Vec::new()))]
fn lift_kernel(
    py: Python<'_>,
    kernel: &str,
    launch: &str,
    all_sizes: bool,
    cuda_kernel: Option<String>,
    nvrtc_options: Vec<String>,
) -> PyResult<String> {
    let cuda = (cuda_kernel, nvrtc_options);
    py.allow_threads(|| -> Result<String, Error> {
        let k = load(kernel, launch, &cuda)?;
        let r = lift::commands::lift_report(&k, &BTreeMap::new(), all_sizes, &Limits::default())?;
        let doc = json!({
            "report": r.json,
            "text": r.text,
            "latex": r.latex,
            "numpy": r.numpy,
            "exit_code": r.verdict.exit_code(),
        });
        Ok(doc.to_string())
    })
    .map_err(py_err)
}

/// How many jobs a `lift batch` manifest holds.
#[pyfunction]
fn batch_job_count(manifest: &str) -> PyResult<usize> {
    lift::commands::batch::job_count(Path::new(manifest)).map_err(py_err)
}

/// The `lift.batch/1` records of a manifest's jobs `indices`, as a JSON list: the
/// records `lift batch` prints for them (`seconds` aside).
#[pyfunction]
fn batch_run(py: Python<'_>, manifest: &str, indices: Vec<usize>) -> PyResult<String> {
    py.allow_threads(|| {
        lift::commands::batch::run_jobs(Path::new(manifest), &indices, &Limits::default())
    })
    .map(|records| serde_json::Value::from(records).to_string())
    .map_err(py_err)
}

#[pymodule]
fn _lift(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("LiftError", m.py().get_type::<LiftError>())?;
    m.add_function(wrap_pyfunction!(tensor_roles, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(lift_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(batch_job_count, m)?)?;
    m.add_function(wrap_pyfunction!(batch_run, m)?)?;
    Ok(())
}
