//! The spec's side of `lift check`: a PyTorch program evaluated at one launch instance
//! into terms over the kernel's inputs.
//!
//! Architecture invariant: the spec is read by `torch` alone; this only supplies the
//! instance (input shapes, scalar names, bound values, sizes) and the kernel's float
//! type for the spec's decimal constants.

use crate::error::Error;
use crate::kernel::Kernel;
use crate::launch::{ArgValue, Instance, Role};
use crate::spec::Spec;
use crate::term::Terms;
use crate::torch;
use std::collections::{BTreeMap, BTreeSet};

/// The float type of a kernel's tensors, for rounding the spec's decimal constants: the
/// element type of the first float tensor parameter of a TTIR kernel; for a PTX kernel
/// (whose pointers are untyped) the launch's dtype of its first float tensor.
pub(super) fn float_type(kernel: &Kernel, inst: &Instance) -> torch::FloatType {
    use crate::triton_ir::ast::{FloatKind, Type};
    let entry = kernel.triton().and_then(|m| m.entry());
    // The element type of the first float tensor parameter.
    let kind = entry
        .into_iter()
        .flat_map(|f| f.args.iter())
        .find_map(|a| match &a.ty {
            Type::Ptr(t) => match t.elem() {
                Type::Float(k) => Some(*k),
                _ => None,
            },
            _ => None,
        });
    let kind = kind.or_else(|| {
        kernel.ptx()?;
        inst.tensors.iter().find_map(|t| match t.dtype {
            crate::launch::Dtype::F64 => Some(FloatKind::F64),
            crate::launch::Dtype::F16 => Some(FloatKind::F16),
            crate::launch::Dtype::Bf16 => Some(FloatKind::BF16),
            crate::launch::Dtype::F32 => Some(FloatKind::F32),
            _ => None,
        })
    });
    match kind {
        Some(FloatKind::F64) => torch::FloatType::F64,
        Some(FloatKind::F16) => torch::FloatType::F16,
        Some(FloatKind::BF16) => torch::FloatType::BF16,
        _ => torch::FloatType::F32,
    }
}

/// The two sides `check` compares: the kernel's symbolic run on `inst`, and the PyTorch
/// spec's outputs as terms over the same inputs (decimal constants rounded to the
/// kernel's float type).
pub fn spec_terms(
    kernel: &Kernel,
    inst: &Instance,
    spec_src: &str,
    terms: &mut Terms,
) -> Result<(Spec, Vec<torch::SpecOutput>), Error> {
    let program = torch::parse(spec_src).map_err(|e| Error::Usage(format!("--spec: {e}")))?;
    let spec = kernel.spec(inst, terms)?;
    let expected = spec_outputs(kernel, inst, &program, terms)?;
    Ok((spec, expected))
}

/// The launch's symbolic scalar arguments, and its scalars bound to values (by parameter),
/// as a spec's environment names them.
pub(super) fn scalar_args(inst: &Instance) -> (BTreeSet<String>, BTreeMap<String, f64>) {
    let mut scalars = BTreeSet::new();
    let mut values = BTreeMap::new();
    for (param, v) in &inst.args {
        match v {
            ArgValue::Scalar(s) => {
                scalars.insert(s.clone());
            }
            ArgValue::Value(x) => {
                values.insert(param.clone(), *x);
            }
            _ => {}
        }
    }
    (scalars, values)
}

/// The launch's integer arguments by parameter (a seed): ints to the spec, as sizes
/// are; never under a name the spec language gives a meaning (a parameter `F` must not
/// hide `F.relu`).
pub(super) fn int_args(inst: &Instance) -> BTreeMap<String, i64> {
    const BUILTINS: &[&str] = &[
        "torch",
        "F",
        "functional",
        "nn",
        "math",
        "tl",
        "float",
        "None",
        "True",
        "False",
    ];
    let mut ints = BTreeMap::new();
    for (param, v) in &inst.args {
        if let ArgValue::Int(i) = v {
            if !BUILTINS.contains(&param.as_str()) {
                ints.insert(param.clone(), *i);
            }
        }
    }
    ints
}

/// The PyTorch spec's outputs on `inst` as terms over its inputs (decimal constants
/// rounded to the kernel's float type).
pub fn spec_outputs(
    kernel: &Kernel,
    inst: &Instance,
    program: &torch::SpecProgram,
    terms: &mut Terms,
) -> Result<Vec<torch::SpecOutput>, Error> {
    let mut tensors = BTreeMap::new();
    let (scalars, values) = scalar_args(inst);
    for t in &inst.tensors {
        if t.role != Role::Out {
            tensors.insert(t.name.clone(), t.shape.clone());
        }
    }
    let mut ints = inst.sizes.clone();
    for (param, i) in int_args(inst) {
        ints.entry(param).or_insert(i);
    }
    let env = torch::Env {
        tensors: &tensors,
        scalars: &scalars,
        values: &values,
        sizes: &ints,
        float: float_type(kernel, inst),
    };
    program
        .instantiate(terms, &env)
        .map_err(|e| Error::Usage(format!("--spec: {e}")))
}
