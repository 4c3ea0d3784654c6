//! Bounded execution of a Triton kernel: every program of the grid, in order, over a
//! value domain that is either symbolic (terms) or concrete (f64).
//!
//! Architecture invariant: execution depends only on the parsed module (`triton_ir::ast`),
//! a concrete launch [`Instance`] and a [`Domain`]; it does no I/O. Control flow,
//! indices, pointers and masks are concrete (the launch fixes every size), so both
//! domains follow exactly the same path. Errors name the op's .ttir line, its Python
//! source line, the program id and, for memory errors, the lane and element.

pub mod addresses;
pub mod domain;
mod error;
mod execution;
pub mod extrema;
pub(crate) mod ints;
pub(crate) mod ops;
pub mod precision;
pub(crate) mod shape;
pub(crate) mod table;
pub mod value;
pub(crate) mod values;
pub(crate) mod walk;

pub use error::{Clash, ErrorKind, ExecError};
pub use execution::{collect_outputs, Execution, MaskedLoad, Options, Output, StoreSite, MAX_OPS};

use crate::launch::{ArgValue, Instance, Role};
use crate::triton_ir::ast::{Loc, Module, Type};
use domain::Domain;
use value::{Elem, Value};

/// Run every program of the launch's grid over `domain`.
///
/// The domain must be able to read every `in`/`inout` tensor (the concrete domain
/// needs their data) and every `{ scalar = ... }` argument.
pub fn execute<D: Domain>(
    module: &Module,
    inst: &Instance,
    domain: &mut D,
) -> Result<Execution<D::V>, ExecError> {
    execute_with(module, inst, Options::default(), domain)
}

/// [`execute`] with explicit [`Options`].
pub fn execute_with<D: Domain>(
    module: &Module,
    inst: &Instance,
    options: Options,
    domain: &mut D,
) -> Result<Execution<D::V>, ExecError> {
    let func = module.entry().ok_or_else(|| ExecError {
        kind: ErrorKind::Malformed,
        message: "the module has no tt.func".into(),
        line: 0,
        loc: Loc::default(),
        program: [0; 3],
        clash: None,
        unwritten: None,
    })?;
    let launch_err = |message: String| ExecError {
        kind: ErrorKind::Launch,
        message,
        line: func.line,
        loc: func.loc.clone(),
        program: [0; 3],
        clash: None,
        unwritten: None,
    };

    // Bind kernel parameters to launch values. Struct fields (`p+<offset>` keys) are
    // PTX's structs passed by value; a TTIR kernel has none.
    if let Some((p, _)) = inst.args.keys().find_map(|k| crate::launch::field_of(k)) {
        return Err(launch_err(format!(
            "the launch binds `{p}` with `fields`, which only a PTX struct parameter has; bind a Triton argument directly"
        )));
    }
    let mut args = Vec::with_capacity(func.args.len());
    for arg in &func.args {
        let bound = inst.args.get(&arg.name).ok_or_else(|| {
            launch_err(format!(
                "kernel parameter `{}` ({}) is not bound by the launch; add it under [args]",
                arg.name, arg.ty
            ))
        })?;
        let elem = match (&arg.ty, bound) {
            (Type::Ptr(_), ArgValue::Tensor(t)) => Elem::Ptr {
                tensor: *t,
                offset: 0,
            },
            (Type::Int(1), ArgValue::Int(i)) => match table::flag_value(*i as i128) {
                Some(b) => Elem::Bool(b),
                None => {
                    return Err(launch_err(format!(
                        "kernel parameter `{}` (i1) is bound to {i}; a bool takes true, false, 0 or 1",
                        arg.name
                    )))
                }
            },
            (Type::Int(bits), ArgValue::Int(i))
                if *bits < 64 && !(-(1i64 << (bits - 1))..(1i64 << (bits - 1))).contains(i) =>
            {
                // Triton passes the value as a signed integer of the parameter's width:
                // one that does not fit would wrap on the GPU.
                return Err(launch_err(format!(
                    "kernel parameter `{}` ({}) is bound to {i}, outside its range {}..={}",
                    arg.name,
                    arg.ty,
                    -(1i64 << (bits - 1)),
                    (1i64 << (bits - 1)) - 1
                )));
            }
            (Type::Int(_) | Type::Index, ArgValue::Int(i)) => Elem::Int(*i),
            (Type::Float(kind), ArgValue::Value(v)) => {
                // The host passes the value in the parameter's type (`{ value = 1e-5 }`
                // for an f32 is 1e-5 rounded to f32, as a spec's constant is).
                Elem::Float(domain.constant(typed_value(*kind, *v)))
            }
            (Type::Float(_), ArgValue::Scalar(name)) => {
                Elem::Float(domain.param(name).ok_or_else(|| {
                    launch_err(format!(
                        "no value for scalar `{name}` (parameter `{}`); give it with --scalar {name}=VALUE",
                        arg.name
                    ))
                })?)
            }
            (ty, bound) => {
                let what = match bound {
                    ArgValue::Tensor(_) => "a tensor",
                    ArgValue::Int(_) => "an integer",
                    ArgValue::Scalar(_) | ArgValue::Value(_) => "a real scalar",
                };
                return Err(launch_err(format!(
                    "kernel parameter `{}` has type {ty} but the launch binds it to {what}",
                    arg.name
                )));
            }
        };
        args.push(Value::scalar(elem));
    }
    for name in inst.args.keys() {
        if !func.args.iter().any(|a| &a.name == name) {
            let params: Vec<&str> = func.args.iter().map(|a| a.name.as_str()).collect();
            return Err(launch_err(format!(
                "the launch binds `{name}`, which is not a parameter of @{} (parameters: {}; constexpr parameters are folded into the IR and must not be listed)",
                func.name,
                params.join(", ")
            )));
        }
    }

    // Elements of integer input tensors (class labels) are integers in their dtype's
    // range, as in the PTX executor: the refuter draws them so, `decide` reads them so.
    for (i, t) in inst.tensors.iter().enumerate() {
        if let (Some((lo, hi)), true) = (t.dtype.int_range(), t.role != Role::Out) {
            domain.declare_int_input(i, lo, hi);
            if let Some(v) = &t.values {
                domain.declare_int_values(i, v);
            }
        }
    }
    let programs: Vec<[i64; 3]> = (0..inst.grid[2])
        .flat_map(|z| {
            (0..inst.grid[1]).flat_map(move |y| (0..inst.grid[0]).map(move |x| [x, y, z]))
        })
        .collect();
    let mut interp = ops::Interp::new(module, inst, options, domain);
    for &p in &programs {
        interp.run_program(p, func, args.clone())?;
    }
    let run = interp.finish();
    // Atomics other than float adds (a max, an exchange, a lock's critical sections)
    // may make the result depend on the order the GPU runs the programs in: where the
    // domain's sums are exact, the programs run again in reverse and must give the
    // same terms (docs/semantics.md, "Atomics and locks").
    if run.order_sensitive && D::EXACT_SUMS && !domain.values_only() {
        let mut again = ops::Interp::new(module, inst, options, domain);
        for &p in programs.iter().rev() {
            again.run_program(p, func, args.clone())?;
        }
        let reversed = again.finish();
        for (a, b) in run.outputs.iter().zip(&reversed.outputs) {
            if let Some(k) = (0..a.elems.len()).find(|&k| a.elems[k] != b.elems[k]) {
                let t = &inst.tensors[a.tensor];
                return Err(ExecError {
                    kind: ErrorKind::Unsupported,
                    message: format!(
                        "{}{:?} depends on the order the programs run in (their atomics or critical sections give another value when the programs run in reverse); lift reads only results the same in every order",
                        t.name,
                        t.unravel(k)
                    ),
                    line: func.line,
                    loc: func.loc.clone(),
                    program: [0; 3],
                    clash: None,
                    unwritten: None,
                });
            }
        }
    }
    Ok(run)
}

/// A launch's real value as the host passes it to a parameter of float type `kind`:
/// rounded to that type (from its shortest decimal form, as the user wrote it).
pub fn typed_value(kind: crate::triton_ir::ast::FloatKind, v: f64) -> f64 {
    use crate::triton_ir::ast::FloatKind;
    use crate::triton_ir::floats::{round_decimal, FloatFormat};
    let fmt = match kind {
        FloatKind::F16 => FloatFormat::F16,
        FloatKind::BF16 => FloatFormat::BF16,
        FloatKind::F32 => FloatFormat::F32,
        FloatKind::F64 | FloatKind::F8 => return v,
    };
    round_decimal(fmt, &format!("{v:?}")).unwrap_or(v)
}

/// Whether a tensor role starts with data the domain must provide.
pub fn role_reads_input(role: Role) -> bool {
    matches!(role, Role::In | Role::Inout)
}
