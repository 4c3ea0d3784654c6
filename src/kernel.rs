//! A kernel file together with its launch: what every command starts from.
//!
//! Architecture invariant: this is the library's front door for the CLI. It reads
//! files, picks the front end by extension, and runs the pipeline stages in order;
//! each stage's logic lives in its own module.

use crate::error::Error;
use crate::exec::{self, domain::Concrete, domain::Precision, domain::Symbolic};
use crate::launch::{ArgBinding, Instance, Launch, Role};
use crate::npy::Array;
use crate::ptx;
use crate::spec::Spec;
use crate::term::Terms;
use crate::triton_ir::{self, ast::Module};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A parsed kernel and its launch description.
pub struct Kernel {
    pub path: PathBuf,
    /// The kernel's code, in the language its file extension names.
    pub code: Code,
    pub launch: Launch,
    /// How narrowing conversions are read: exact (the reals of docs/semantics.md, the default) or
    /// rounded (`--precision ieee`). Every execution of this kernel uses it.
    pub precision: Precision,
    /// Executor semantics chosen on the command line (`--masked-load zero`).
    pub options: exec::Options,
}

/// How every execution of a kernel reads it: chosen on the command line and fixed when
/// the kernel is loaded ([`Kernel::load_with`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    pub precision: Precision,
    pub options: exec::Options,
}

/// A parsed kernel file, before its launch is known.
enum Parsed {
    Triton(Module),
    Ptx(ptx::ast::Module),
}

/// A kernel's code: one of the two front ends' modules.
pub enum Code {
    /// Triton IR (`.ttir`).
    Triton(Module),
    /// PTX (`.ptx`).
    Ptx(PtxKernel),
}

/// A parsed PTX kernel and how its launch names the parameters.
pub struct PtxKernel {
    pub module: ptx::ast::Module,
    /// The launch file's `[args]` keys in file order: Triton's launches bind PTX
    /// parameters by position under their Python names.
    pub arg_order: Vec<String>,
}

/// The outputs of a concrete run.
pub struct RunResult {
    /// Output tensors in launch order; elements never written are NaN.
    pub outputs: Vec<(String, Array)>,
    pub warnings: Vec<String>,
}

impl Kernel {
    /// The Triton IR module, for a Triton kernel.
    pub fn triton(&self) -> Option<&Module> {
        match &self.code {
            Code::Triton(m) => Some(m),
            Code::Ptx(_) => None,
        }
    }

    /// The PTX module and its parameter order, for a PTX kernel.
    pub fn ptx(&self) -> Option<&PtxKernel> {
        match &self.code {
            Code::Ptx(p) => Some(p),
            Code::Triton(_) => None,
        }
    }

    /// Whether the kernel is PTX.
    pub fn is_ptx(&self) -> bool {
        matches!(self.code, Code::Ptx(_))
    }

    /// The roundings below f32 that the real semantics (docs/semantics.md) reads as exact (f16/bf16
    /// casts and arithmetic, tf32 dots), each with its line: a verdict states them.
    /// Under `--precision ieee` only those the executors do not round (f8, tf32x3, PTX
    /// `mma` and f16 arithmetic).
    pub fn assumptions(&self) -> Vec<String> {
        let file = self.path.display();
        let mut out = self.narrowings();
        if let (exec::MaskedLoad::Zero, Code::Triton(module)) =
            (self.options.masked_load, &self.code)
        {
            let lines: Vec<String> = triton_ir::masked_loads_without_other(module)
                .into_iter()
                .map(|(line, loc)| match loc.file {
                    Some(_) => format!("{file}:{line} ({loc})"),
                    None => format!("{file}:{line}"),
                })
                .collect();
            if !lines.is_empty() {
                out.push(format!(
                    "masked-off lanes without other= read as 0 (--masked-load zero, the NVIDIA backend's zero fill) at {}",
                    lines.join(", ")
                ));
            }
        }
        if let Code::Triton(module) = &self.code {
            for (line, loc) in triton_ir::atomic_adds(module) {
                let src = match loc.file {
                    Some(_) => format!(" ({loc})"),
                    None => String::new(),
                };
                out.push(format!(
                    "float atomic adds (`tt.atomic_rmw fadd`) summed in the order the programs run: \
                     the GPU's order is not fixed, read as irrelevant (their sum is exact over \
                     the reals) at {file}:{line}{src}"
                ));
            }
            let others: Vec<String> = triton_ir::order_sensitive_atomics(module)
                .into_iter()
                .map(|(line, loc)| match loc.file {
                    Some(_) => format!("{file}:{line} ({loc})"),
                    None => format!("{file}:{line}"),
                })
                .collect();
            if !others.is_empty() {
                out.push(format!(
                    "atomics and locks' critical sections applied in the programs' order, and \
                     the same result with the programs in reverse order read as the same in \
                     every order (the GPU's order is not fixed) at {}",
                    others.join(", ")
                ));
            }
        }
        out
    }

    fn narrowings(&self) -> Vec<String> {
        let file = self.path.display();
        let ieee = self.precision == Precision::Ieee;
        let mut lines: Vec<String> = match &self.code {
            Code::Ptx(p) => ptx::narrowings(&p.module)
                .into_iter()
                .filter(|(_, _, modelled)| !(ieee && *modelled))
                .map(|(what, line, _)| format!("{what} at {file}:{line}"))
                .collect(),
            Code::Triton(module) => triton_ir::narrowings(module)
                .into_iter()
                .filter(|n| !(ieee && n.ieee_modelled))
                .map(|n| {
                    let src = if n.loc.file.is_some() {
                        format!(" ({})", n.loc)
                    } else {
                        String::new()
                    };
                    format!("{} at .ttir line {}{src}", n.what, n.line)
                })
                .collect(),
        };
        // One entry per step and line (`(1 + e) * (1 + e)` is two ops on one line).
        let mut seen = std::collections::HashSet::new();
        lines.retain(|l| seen.insert(l.clone()));
        lines
    }

    /// Whether the kernel accumulates in a float type below f32 (a running f16 sum, an
    /// f16 `tt.reduce` or dot accumulator): the rounding that grows with a size, which
    /// `check` looks for by default (see `check::precision`).
    pub fn accumulates_below_f32(&self) -> bool {
        self.triton().is_some_and(|module| {
            triton_ir::narrowings(module)
                .iter()
                .any(|n| n.kind == triton_ir::NarrowingKind::Accumulation && n.ieee_modelled)
        })
    }

    /// What a verdict says of the precision when it is not the reals of docs/semantics.md.
    pub fn precision_note(&self) -> Option<String> {
        (self.precision == Precision::Ieee)
            .then(|| "ieee (f16/bf16/tf32 roundings and f32 overflow modelled)".to_string())
    }

    /// The kernel's IR: "ptx" or "ttir".
    pub fn ir(&self) -> &'static str {
        if self.is_ptx() {
            "ptx"
        } else {
            "ttir"
        }
    }

    /// The kernel's entry name (`softmax_kernel`), or the file stem if it has none.
    /// The tensors the kernel writes, in the order of its pointer parameters.
    pub fn output_order(&self) -> Vec<String> {
        self.bindings_in_order(|b| match b {
            ArgBinding::Tensor { tensor, role, .. } if *role != Role::In => Some(tensor),
            _ => None,
        })
    }

    /// The tensors the kernel reads and its symbolic scalars, in the order of its
    /// parameters.
    pub fn input_order(&self) -> Vec<String> {
        self.bindings_in_order(|b| match b {
            ArgBinding::Tensor { tensor, role, .. } if *role != Role::Out => Some(tensor),
            ArgBinding::Scalar(name) => Some(name),
            _ => None,
        })
    }

    /// The names `pick` takes from the launch's bindings, in parameter order, once each.
    fn bindings_in_order(&self, pick: impl Fn(&ArgBinding) -> Option<&String>) -> Vec<String> {
        let params: Vec<String> = match &self.code {
            Code::Ptx(p) => p.arg_order.clone(),
            Code::Triton(module) => module
                .entry()
                .map(|f| f.args.iter().map(|a| a.name.clone()).collect())
                .unwrap_or_default(),
        };
        let mut out: Vec<String> = Vec::new();
        for p in params {
            if let Some(name) = self.launch.args.get(&p).and_then(&pick) {
                if !out.contains(name) {
                    out.push(name.clone());
                }
            }
        }
        out
    }

    pub fn name(&self) -> String {
        let entry = match &self.code {
            Code::Ptx(p) => p.module.entries.first().map(|e| e.name.clone()),
            Code::Triton(module) => module.entry().map(|f| f.name.clone()),
        };
        entry.unwrap_or_else(|| {
            self.path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "kernel".into())
        })
    }

    /// Read a kernel (`.ttir` or `.ptx`) and its launch (`launch`, else
    /// `<kernel>.launch.toml`, else `<stem>.launch.toml` in the same folder).
    pub fn load(path: &Path, launch: Option<&Path>) -> Result<Kernel, Error> {
        Kernel::load_with(path, launch, Reading::default())
    }

    /// [`Kernel::load`] read as `reading` says.
    pub fn load_with(
        path: &Path,
        launch: Option<&Path>,
        reading: Reading,
    ) -> Result<Kernel, Error> {
        let parsed = Kernel::parse_file(path)?;
        let launch_path = match launch {
            Some(p) => p.to_path_buf(),
            None => Kernel::launch_beside(path).ok_or_else(|| {
                Error::Usage(format!(
                    "{}: no launch description: expected {} beside the kernel, or --launch FILE (see docs/launch.md)",
                    path.display(),
                    Launch::beside(path).display()
                ))
            })?,
        };
        let launch = Launch::from_file(&launch_path)?;
        let text = std::fs::read_to_string(&launch_path).unwrap_or_default();
        Kernel::assemble(path, parsed, launch, &text, reading)
    }

    /// [`Kernel::load`], but where no launch is given or found beside the kernel, one
    /// is inferred (`infer_launch`) and returned with the kernel: the caller prints it.
    /// The kernel's launch is the inferred text parsed like a file, nothing else.
    pub fn load_or_infer(
        path: &Path,
        launch: Option<&Path>,
    ) -> Result<(Kernel, Option<crate::infer_launch::Inferred>), Error> {
        Kernel::load_or_infer_with(path, launch, Reading::default())
    }

    /// [`Kernel::load_or_infer`] read as `reading` says.
    pub fn load_or_infer_with(
        path: &Path,
        launch: Option<&Path>,
        reading: Reading,
    ) -> Result<(Kernel, Option<crate::infer_launch::Inferred>), Error> {
        if launch.is_some() || Kernel::launch_beside(path).is_some() {
            return Ok((Kernel::load_with(path, launch, reading)?, None));
        }
        let parsed = Kernel::parse_file(path)?;
        let file = path.display().to_string();
        let inferred = match &parsed {
            Parsed::Ptx(m) => crate::infer_launch::infer_ptx(m, &file)?,
            Parsed::Triton(m) => crate::infer_launch::infer(m, &file)?,
        };
        let launch = Launch::parse(&inferred.text, "<inferred launch>")?;
        let k = Kernel::assemble(path, parsed, launch, &inferred.text, reading)?;
        Ok((k, Some(inferred)))
    }

    /// The launch file found beside a kernel, if any: `<kernel>.launch.toml`, or for a
    /// PTX file the folder's `kernel.launch.toml`.
    pub fn launch_beside(path: &Path) -> Option<PathBuf> {
        let beside = Launch::beside(path);
        if beside.exists() {
            return Some(beside);
        }
        // `dir/kernel.launch.toml` for `dir/kernel.ptx` is the same rule; a PTX file
        // may also share the folder's `kernel.launch.toml`.
        let shared = path.with_file_name("kernel.launch.toml");
        (path.extension().is_some_and(|e| e == "ptx") && shared.exists()).then_some(shared)
    }

    /// Parse a kernel file with the front end its extension names.
    fn parse_file(path: &Path) -> Result<Parsed, Error> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
            path: shown.clone(),
            message: format!("cannot read kernel: {e}"),
        })?;
        match path.extension().and_then(|e| e.to_str()) {
            Some("ttir") | Some("mlir") => {
                let m = triton_ir::parse(&text).map_err(|err| Error::Parse {
                    file: shown.clone(),
                    err,
                })?;
                Ok(Parsed::Triton(m))
            }
            Some("ptx") => {
                let m = ptx::parse(&text).map_err(|e| Error::Parse {
                    file: shown.clone(),
                    err: triton_ir::ParseError {
                        line: e.line,
                        col: e.col,
                        message: e.message,
                    },
                })?;
                if m.entries.is_empty() {
                    return Err(Error::Usage(format!("{shown}: the PTX file has no .entry")));
                }
                Ok(Parsed::Ptx(m))
            }
            _ => Err(Error::Usage(format!(
                "{shown}: unknown kernel kind; expected Triton IR (.ttir) or PTX (.ptx)"
            ))),
        }
    }

    /// The kernel of `parsed` under `launch`. A Triton kernel's pointer types decide its
    /// tensors' dtypes; a launch `dtype` they contradict is an input error.
    fn assemble(
        path: &Path,
        parsed: Parsed,
        mut launch: Launch,
        launch_text: &str,
        reading: Reading,
    ) -> Result<Kernel, Error> {
        let code = match parsed {
            Parsed::Triton(m) => {
                if let Some(func) = m.entry() {
                    let at = format!("{}:{}", path.display(), func.line);
                    launch.type_tensors(&crate::infer_launch::element_dtypes(func), &at)?;
                }
                Code::Triton(m)
            }
            Parsed::Ptx(module) => Code::Ptx(PtxKernel {
                module,
                arg_order: ptx::launch_arg_order(launch_text),
            }),
        };
        Ok(Kernel {
            path: path.to_path_buf(),
            code,
            launch,
            precision: reading.precision,
            options: reading.options,
        })
    }

    fn file(&self) -> String {
        self.path.display().to_string()
    }

    /// An execution error of this kernel.
    fn fault(&self, err: exec::ExecError) -> Error {
        Error::Exec {
            file: self.file(),
            err: Box::new(err),
        }
    }

    /// The launch's default sizes with `overrides` on top.
    pub fn instance(&self, overrides: &BTreeMap<String, i64>) -> Result<Instance, Error> {
        Ok(self.launch.instantiate(overrides)?)
    }

    /// Run the kernel's front end's executor over `domain`.
    pub fn execute<D: exec::domain::Domain>(
        &self,
        inst: &Instance,
        domain: &mut D,
    ) -> Result<exec::Execution<D::V>, Error> {
        let res = match &self.code {
            Code::Ptx(p) => ptx::execute(&p.module, inst, &p.arg_order, domain),
            Code::Triton(module) => exec::execute_with(module, inst, self.options, domain),
        };
        res.map_err(|err| self.fault(err))
    }

    /// The run `lift race` makes of a PTX kernel (`ptx::execute_for_races`: value types
    /// never stop it) and the benign races it saw; a Triton kernel's plain run.
    pub fn execute_for_races<D: exec::domain::Domain>(
        &self,
        inst: &Instance,
        domain: &mut D,
    ) -> Result<(exec::Execution<D::V>, Vec<ptx::BenignRace>), Error> {
        match &self.code {
            Code::Ptx(p) => ptx::execute_for_races(&p.module, inst, &p.arg_order, domain)
                .map_err(|err| self.fault(err)),
            Code::Triton(_) => Ok((self.execute(inst, domain)?, Vec::new())),
        }
    }

    /// The symbolic domain of this kernel on `inst`.
    pub fn symbolic<'t>(&self, inst: &Instance, terms: &'t mut Terms) -> Symbolic<'t> {
        let tensor_names = inst
            .tensors
            .iter()
            .map(|t| Arc::from(t.name.as_str()))
            .collect();
        Symbolic {
            terms,
            tensor_names,
            precision: self.precision,
        }
    }

    /// Symbolic execution: the term of every output element.
    pub fn spec(&self, inst: &Instance, terms: &mut Terms) -> Result<Spec, Error> {
        let mut domain = self.symbolic(inst, terms);
        let mut run = self.execute(inst, &mut domain)?;
        let mut notes = Vec::new();
        if self.is_ptx() {
            // Inlined libm expansions read as the functions they compute.
            let r = ptx::libm::recognise(terms, &mut run.outputs);
            for (o, flat, note) in r.unrecognised {
                notes.push((run.outputs[o].name.clone(), flat, note));
            }
        }
        // Running extrema (`if (v > m) m = v`, argmax pairs) read as max/min/argmax.
        let assumptions = exec::extrema::normalise(terms, &mut run.outputs, inst);
        let mut spec = Spec::from_execution(run, inst.sizes.clone(), inst.grid);
        spec.notes = notes;
        spec.assumptions = assumptions;
        Ok(spec)
    }

    /// Sizes read off the input arrays (a size named as a whole extent of an input
    /// tensor), then `overrides`, then the launch's defaults.
    pub fn sizes_from_inputs(
        &self,
        inputs: &BTreeMap<String, Array>,
        overrides: &BTreeMap<String, i64>,
    ) -> Result<BTreeMap<String, i64>, Error> {
        let mut sizes: BTreeMap<String, (i64, String)> = BTreeMap::new();
        for (size, tensor, axis) in self.launch.size_axes() {
            let Some(array) = inputs.get(&tensor) else {
                continue;
            };
            let Some(&extent) = array.shape.get(axis) else {
                continue;
            };
            let extent = extent as i64;
            let from = format!("axis {axis} of {tensor}");
            if let Some((prev, prev_from)) = sizes.get(&size) {
                if *prev != extent {
                    return Err(Error::Usage(format!(
                        "inconsistent inputs: size {size} is {prev} ({prev_from}) but {extent} ({from})"
                    )));
                }
            }
            sizes.insert(size, (extent, from));
        }
        let mut out = self.launch.sizes.clone();
        out.extend(sizes.into_iter().map(|(k, (v, _))| (k, v)));
        out.extend(overrides.iter().map(|(k, v)| (k.clone(), *v)));
        Ok(out)
    }

    /// Concrete execution on NumPy arrays.
    pub fn run(
        &self,
        inst: &Instance,
        inputs: &BTreeMap<String, Array>,
        scalars: &BTreeMap<String, f64>,
    ) -> Result<RunResult, Error> {
        self.run_with(inst, inputs, scalars, false)
    }

    /// [`Kernel::run`] for the values alone: races and other synchronisation faults are
    /// not looked for (the cross-check's runs, beside a symbolic run that does).
    pub fn run_values(
        &self,
        inst: &Instance,
        inputs: &BTreeMap<String, Array>,
        scalars: &BTreeMap<String, f64>,
    ) -> Result<RunResult, Error> {
        self.run_with(inst, inputs, scalars, true)
    }

    fn run_with(
        &self,
        inst: &Instance,
        inputs: &BTreeMap<String, Array>,
        scalars: &BTreeMap<String, f64>,
        values_only: bool,
    ) -> Result<RunResult, Error> {
        for name in inputs.keys() {
            if !inst.tensors.iter().any(|t| &t.name == name) {
                let known: Vec<&str> = inst.tensors.iter().map(|t| t.name.as_str()).collect();
                return Err(Error::Usage(format!(
                    "--input {name}: the launch has no tensor `{name}` (tensors: {})",
                    known.join(", ")
                )));
            }
        }
        let mut data = Vec::with_capacity(inst.tensors.len());
        for t in &inst.tensors {
            match inputs.get(&t.name) {
                Some(a) if a.shape != t.shape => {
                    return Err(Error::Usage(format!(
                        "--input {}: array has shape {:?} but the launch's instance needs {:?} (sizes {:?})",
                        t.name, a.shape, t.shape, inst.sizes
                    )))
                }
                Some(a) => {
                    // An integer tensor holds integers of its dtype: anything else is a
                    // wrong input, not a value to round silently.
                    if let Some((lo, hi)) = t.dtype.int_range() {
                        let bad = a.data.iter().position(|&x| {
                            !(x.fract() == 0.0 && x >= lo as f64 && x <= hi as f64)
                        });
                        if let Some(k) = bad {
                            return Err(Error::Usage(format!(
                                "--input {}: element {:?} is {}, which the launch's dtype {} cannot hold",
                                t.name,
                                t.unravel(k),
                                a.data[k],
                                t.dtype
                            )));
                        }
                    }
                    data.push(Some(a.data.clone()))
                }
                None if exec::role_reads_input(t.role) => {
                    return Err(Error::Usage(format!(
                        "missing --input {}=FILE.npy (tensor `{}`, shape {:?}, role {:?})",
                        t.name, t.name, t.shape, t.role
                    )))
                }
                None => data.push(None),
            }
        }
        let mut domain = Concrete {
            data,
            scalars: scalars.clone(),
            precision: self.precision,
            values_only,
        };
        let run = self.execute(inst, &mut domain)?;
        let mut warnings = run.warnings;
        let outputs = run
            .outputs
            .into_iter()
            .map(|o| {
                let missing = o.elems.iter().filter(|e| e.is_none()).count();
                if missing > 0 && inst.tensors[o.tensor].role == Role::Out {
                    warnings.push(format!(
                        "{missing} elements of `{}` were never written (NaN in the output)",
                        o.name
                    ));
                }
                let data = o.elems.iter().map(|e| e.unwrap_or(f64::NAN)).collect();
                (
                    o.name,
                    Array {
                        shape: o.shape,
                        data,
                    },
                )
            })
            .collect();
        Ok(RunResult { outputs, warnings })
    }
}
