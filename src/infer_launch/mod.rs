//! Launch inference: a launch for a kernel that comes without one (docs/launch.md,
//! "Inference": pointer args are tensors, stride and size ints are bound to the shapes
//! that make every access in bounds).
//!
//! Each front end reads its kernel's parameters (`triton`: names and TTIR types; `ptx`:
//! PTX types and how the body uses each one) and tries a small ordered list of
//! *skeletons*, one per common kernel family, that fix the grid, the block (PTX) and the
//! integer bindings. A probe run over large flat buffers records which elements of each
//! tensor the kernel reads and writes: that gives each tensor's role (written: out,
//! read before written: inout, else in) and the smallest shape holding every access.
//! This module holds what both share: the probe domain, role settling, the TOML
//! helpers and the failure message. Data flows one way: `triton` and `ptx` use this
//! module, never each other.
//!
//! Architecture invariant: nothing is guessed silently. A skeleton is accepted only
//! after the executor ran the launch it proposes on an even and a ragged instance with
//! every access in bounds, every element of every `out` tensor written, and no element
//! written by two programs (Triton) or threads (PTX). The result is TOML text in the
//! launch-file format; callers parse it like any launch file (so a verdict depends only
//! on the printed text) and print it. This module never writes a file unless asked
//! (`write_beside`), and never overwrites one.

mod ptx;
mod triton;

pub use ptx::infer as infer_ptx;
pub use triton::{element_dtypes, infer};

use crate::error::Error;
use crate::exec::{domain::Binary, domain::Concrete, domain::Domain, domain::Truth};
use crate::launch::{Launch, Role};
use crate::term::{CmpOp, Func};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// An inferred launch: the TOML text (the launch-file format) and which family of
/// kernels it was read as.
#[derive(Clone, Debug)]
pub struct Inferred {
    pub text: String,
    pub family: &'static str,
}

/// Elements of each tensor in a probe run: large enough for the small instances
/// inference runs at.
const PROBE_ELEMS: usize = 1 << 14;

/// Write `inferred` as the launch file beside `kernel`; refuses to overwrite one.
pub fn write_beside(kernel: &Path, inferred: &Inferred) -> Result<PathBuf, Error> {
    let path = Launch::beside(kernel);
    if path.exists() {
        return Err(Error::Usage(format!(
            "--write-launch: {} already exists; not overwriting it (delete it, or pass it with --launch)",
            path.display()
        )));
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: format!("cannot write launch file: {e}"),
        })?;
    use std::io::Write as _;
    f.write_all(inferred.text.as_bytes())
        .map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: format!("cannot write launch file: {e}"),
        })?;
    Ok(path)
}

#[derive(Clone, Debug)]
struct TensorGuess {
    shape: Vec<String>,
    role: Role,
}

/// What a probe saw of one tensor.
#[derive(Clone, Debug, Default)]
struct Seen {
    read: BTreeSet<usize>,
    written: BTreeSet<usize>,
    role: Role,
}

fn eval_in(e: &str, sizes: &BTreeMap<String, i64>) -> i64 {
    crate::launch::Expr::parse(e)
        .ok()
        .and_then(|x| x.eval(sizes).ok())
        .unwrap_or(0)
}

fn toml_dim(d: &str) -> String {
    if d.parse::<i64>().is_ok() {
        d.to_string()
    } else {
        format!("\"{d}\"")
    }
}

fn toml_key(name: &str) -> String {
    if name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        name.to_string()
    } else {
        format!("\"{name}\"")
    }
}

/// Per tensor argument of `launch` (by its key), what a run at `inst` read (`reads`,
/// by tensor) and wrote (`outputs`' writers).
fn seen_by_arg(
    launch: &Launch,
    inst: &crate::launch::Instance,
    reads: &[BTreeSet<usize>],
    outputs: &[crate::exec::Output<f64>],
) -> BTreeMap<String, Seen> {
    let mut seen = BTreeMap::new();
    for (key, binding) in &launch.args {
        if let crate::launch::ArgBinding::Tensor { tensor, .. } = binding {
            let i = inst
                .tensors
                .iter()
                .position(|t| &t.name == tensor)
                .unwrap_or(0);
            let mut s = Seen {
                read: reads[i].clone(),
                ..Seen::default()
            };
            if let Some(o) = outputs.iter().find(|o| o.tensor == i) {
                s.written = o
                    .writers
                    .iter()
                    .enumerate()
                    .filter(|(_, w)| w.is_some())
                    .map(|(k, _)| k)
                    .collect();
            }
            seen.insert(key.clone(), s);
        }
    }
    seen
}

/// `Err` naming the first output with an element no thread or program wrote.
fn every_element_written(outputs: &[crate::exec::Output<f64>], at: &str) -> Result<(), String> {
    for o in outputs {
        let missing = o.writers.iter().filter(|w| w.is_none()).count();
        if missing > 0 {
            return Err(format!(
                "at {at}: {missing} of the {} elements of `{}` are never written",
                o.writers.len(),
                o.name
            ));
        }
    }
    Ok(())
}

/// The smallest of the candidate shapes whose element count at `sizes` holds `extent`
/// elements.
fn smallest_holding(
    cands: impl IntoIterator<Item = Vec<String>>,
    sizes: &BTreeMap<String, i64>,
    extent: usize,
) -> Option<Vec<String>> {
    cands
        .into_iter()
        .map(|s| (s.iter().map(|d| eval_in(d, sizes)).product::<i64>(), s))
        .filter(|(n, _)| *n >= extent as i64)
        .min_by_key(|(n, _)| *n)
        .map(|(_, s)| s)
}

/// The launch-file line of a tensor argument.
fn tensor_line(key: &str, name: &str, g: &TensorGuess, dtype: crate::launch::Dtype) -> String {
    let shape: Vec<String> = g.shape.iter().map(|d| toml_dim(d)).collect();
    let role = match g.role {
        Role::In => "in",
        Role::Out => "out",
        Role::Inout => "inout",
    };
    let dt = if dtype == crate::launch::Dtype::F32 {
        String::new()
    } else {
        format!(", dtype = \"{}\"", dtype.name())
    };
    format!(
        "{key} = {{ tensor = \"{name}\", shape = [{}], role = \"{role}\"{dt} }}",
        shape.join(", ")
    )
}

/// Why a probe or validation run stopped.
enum Fault {
    /// An output read before any write: the tensor's name, if the message gives it.
    NeverWritten(Option<String>),
    /// PTX: two threads' unordered accesses to one place, and what they were.
    Race(String, crate::exec::Clash),
    Other(String),
}

/// The concrete domain over made-up inputs, recording which elements are read.
struct Recording {
    inner: Concrete,
    reads: Vec<BTreeSet<usize>>,
    /// Log accesses for races (PTX: two threads writing one element is a race).
    races: bool,
}

impl Recording {
    fn new(inst: &crate::launch::Instance) -> Recording {
        let data = inst
            .tensors
            .iter()
            .map(|t| {
                crate::exec::role_reads_input(t.role).then(|| {
                    (0..t.numel())
                        .map(|k| {
                            if t.dtype.is_float() {
                                0.25 + (k % 7) as f64 * 0.125
                            } else {
                                0.0
                            }
                        })
                        .collect()
                })
            })
            .collect();
        let scalars = inst
            .args
            .values()
            .filter_map(|a| match a {
                crate::launch::ArgValue::Scalar(s) => Some((s.clone(), 0.5)),
                _ => None,
            })
            .collect();
        Recording {
            inner: Concrete {
                data,
                scalars,
                precision: Default::default(),
                values_only: true,
            },
            reads: vec![BTreeSet::new(); inst.tensors.len()],
            races: false,
        }
    }
}

impl Domain for Recording {
    type V = f64;
    fn constant(&mut self, x: f64) -> f64 {
        x
    }
    fn input(&mut self, tensor: usize, index: &[i64], flat: usize) -> f64 {
        if let Some(r) = self.reads.get_mut(tensor) {
            r.insert(flat);
        }
        self.inner.input(tensor, index, flat)
    }
    fn param(&mut self, name: &str) -> Option<f64> {
        self.inner.param(name)
    }
    fn neg(&mut self, a: f64) -> f64 {
        -a
    }
    fn func(&mut self, f: Func, a: f64) -> f64 {
        self.inner.func(f, a)
    }
    fn powi(&mut self, a: f64, n: i32) -> f64 {
        a.powi(n)
    }
    fn binary(&mut self, op: Binary, a: f64, b: f64) -> f64 {
        self.inner.binary(op, a, b)
    }
    fn cmp(&mut self, op: CmpOp, a: f64, b: f64) -> Truth<f64> {
        self.inner.cmp(op, a, b)
    }
    fn select(&mut self, c: f64, a: f64, b: f64) -> f64 {
        self.inner.select(c, a, b)
    }
    fn not(&mut self, a: f64) -> Truth<f64> {
        self.inner.not(a)
    }
    fn and(&mut self, a: f64, b: f64) -> Truth<f64> {
        self.inner.and(a, b)
    }
    fn or(&mut self, a: f64, b: f64) -> Truth<f64> {
        self.inner.or(a, b)
    }
    fn as_number(&self, a: f64) -> Option<f64> {
        Some(a)
    }
    fn values_only(&self) -> bool {
        !self.races
    }
}

/// The tensor a never-written read names: the first backquoted word of the
/// executor's message (both executors quote the tensor's name).
fn quoted_tensor(message: &str) -> Option<String> {
    message
        .split('`')
        .nth(1)
        .map(|s| s.split('[').next().unwrap_or(s).to_string())
}

/// Settle the tensors' roles by probe runs: first every tensor `inout`, to learn which
/// are written; then the written ones `out` and the rest `in`, so that reads are the
/// kernel's own; an `out` the kernel reads before writing becomes `inout`. `run` runs
/// the kernel with the given roles (by parameter key); `tensor_of` names a key's tensor.
fn settle_roles(
    keys: &[String],
    tensor_of: impl Fn(&str) -> String,
    mut run: impl FnMut(&BTreeMap<String, Role>) -> Result<BTreeMap<String, Seen>, Fault>,
) -> Result<BTreeMap<String, Seen>, String> {
    let mut roles: BTreeMap<String, Role> = keys.iter().map(|k| (k.clone(), Role::Inout)).collect();
    let first = run(&roles).map_err(|f| match f {
        Fault::NeverWritten(_) => "an output is read before it is written".to_string(),
        Fault::Race(m, _) => format!("the kernel races: {m}"),
        Fault::Other(m) => m,
    })?;
    for (name, s) in &first {
        let role = if s.written.is_empty() {
            Role::In
        } else {
            Role::Out
        };
        roles.insert(name.clone(), role);
    }
    for _ in 0..=roles.len() {
        match run(&roles) {
            Ok(mut seen) => {
                for (name, s) in seen.iter_mut() {
                    s.written = first[name].written.clone();
                    s.role = roles[name];
                    if s.role == Role::Inout {
                        s.read = first[name].read.intersection(&s.written).copied().collect();
                    }
                }
                return Ok(seen);
            }
            Err(Fault::NeverWritten(name)) => match name.and_then(|t| {
                roles
                    .keys()
                    .find(|k| tensor_of(k) == t && roles[*k] == Role::Out)
                    .cloned()
            }) {
                Some(k) => {
                    roles.insert(k, Role::Inout);
                }
                None => return Err("an output is read before it is written".into()),
            },
            Err(Fault::Race(m, _)) => return Err(format!("the kernel races: {m}")),
            Err(Fault::Other(m)) => return Err(m),
        }
    }
    Err("the probe runs did not settle the tensors' roles".into())
}

/// The message when no skeleton fits: what was tried and why each family failed, then
/// how to write a launch. `unbound` names the integer parameters left unexplained.
fn no_launch_message(
    file: &str,
    families: &str,
    unbound: &[String],
    failures: &[(String, String)],
    example: &str,
) -> String {
    let mut msg = format!(
        "{file}: no launch description, and none could be inferred: no {families} launch runs the kernel with every access in bounds and every output element written."
    );
    if !unbound.is_empty() {
        let _ = write!(
            msg,
            "\n  integer parameters whose size or stride could not be inferred: {}",
            unbound.join(", ")
        );
    }
    // The first failure of each family says the most.
    let mut seen = BTreeSet::new();
    for (what, why) in failures {
        let fam = what.split(" (").next().unwrap_or(what).to_string();
        if seen.insert(fam) {
            let _ = write!(msg, "\n  tried {what}: {why}");
        }
    }
    let _ = write!(
        msg,
        "\n  write a launch file (kernel.launch.toml beside the kernel, or --launch FILE; format in docs/launch.md, e.g. {example})"
    );
    msg
}
