//! The op library: every PyTorch op is defined once, as a function over [`Tensor`]s, and
//! reached from `torch.f`, `F.f`, `torch.nn.functional.f` and the method form `x.f()`
//! through one op table (`table`: names, aliases, PyTorch's parameters, and how each op
//! is read for every size). A call is bound once, by `bind_call` (dtype check, then
//! `args::bind`), in whichever domain the spec is read; `apply` runs the bound call at an
//! instance. Each op's arm lives in the file of its concern: `elementwise` (the unary
//! table, broadcasting binary ops, comparisons, `where`, `clamp`, `pow`), `arith`
//! (Python's operators), `activations`, `reductions` (sums, max/min, var/std, softmax,
//! argmax/argmin), `scans` (cumsum/cumprod), `norms` (norm, vector_norm, normalize,
//! layer_norm, rms_norm), `linalg`, `pool`, `conv`, `losses`, `gather`, `shape` (layout,
//! flip/diag/tril/triu, creation); `args` binds a call's arguments and normalises dims.
//! Imports run one way: `table` and `args` are leaves, `arith` sits above `elementwise`
//! and `linalg`, and no op file uses this one.
//!
//! [`Tensor`]: super::tensor::Tensor

mod activations;
mod args;
mod arith;
mod conv;
mod elementwise;
mod gather;
mod linalg;
mod losses;
mod norms;
mod pool;
mod reductions;
mod scans;
mod shape;
mod table;

pub(crate) use arith::arith;
pub(crate) use args::{bind, one_dim_of, reduce_dims_of, Args};
pub(crate) use elementwise::is_bool;
pub(crate) use gather::advanced_index;
pub(crate) use table::{
    all_sizes, canonical, math_function, params, unsupported_reason, AllSizes, SUPPORTED,
};

use super::value::{Cx, Domain, Val, Value};
use super::FloatType;

type R<T> = Result<T, String>;

/// Checks that no dtype among the arguments narrows `float` (the kernel's float type): a
/// widening conversion is exact, a narrowing one rounds, which specs cannot express.
fn check_dtypes<D: Domain>(
    op: &str,
    float: FloatType,
    pos: &[Val<D>],
    kw: &[(String, Val<D>)],
) -> R<()> {
    for v in pos.iter().chain(kw.iter().map(|(_, v)| v)) {
        match v {
            Val::Dtype(d) => narrowing(op, float, *d)?,
            // Integer and bool results only where the values are exact: creation ops and
            // conversions, which check their values themselves (`shape::int_cast`).
            Val::IntDtype(d) if !shape::TAKES_INT_DTYPE.contains(&op) => {
                return Err(format!(
                    "{op}: dtype=torch.{d} is not supported here (only creation ops and \
                     `.to` take an integer or bool dtype)"
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

fn narrowing(op: &str, float: FloatType, to: FloatType) -> R<()> {
    if to.holds_all_of(float) {
        return Ok(());
    }
    Err(format!(
        "{op}: converting to {} rounds the kernel's {} values, which a spec cannot express \
         (lift reads spec tensors exactly); leave the conversion out or check the kernel \
         at that type",
        to.name(),
        float.name()
    ))
}

// ---- dispatch --------------------------------------------------------------------------

/// Binds a call of op `name` (canonical) to its parameters, after checking that no
/// dtype among its arguments narrows `float`; for a method call the receiver is the first
/// positional argument. Both readings of a spec bind their calls here.
pub(crate) fn bind_call<D: Domain>(
    float: FloatType,
    name: &'static str,
    pos: Vec<Val<D>>,
    kw: Vec<(String, Val<D>)>,
) -> R<Args<D>> {
    check_dtypes(name, float, &pos, &kw)?;
    bind(name, pos, kw)
}

/// Calls op `name` (canonical) at the instance: `bind_call`, then `apply`.
pub(crate) fn call(
    cx: &mut Cx,
    name: &'static str,
    pos: Vec<Value>,
    kw: Vec<(String, Value)>,
) -> R<Value> {
    let a = bind_call(cx.float, name, pos, kw)?;
    apply(cx, &a)
}

/// The instance definition of a bound call: the unary table, else the arms of the file
/// that defines the op.
pub(crate) fn apply(cx: &mut Cx, a: &Args) -> R<Value> {
    let op = a.op;
    if let Some(f) = elementwise::unary(op) {
        let x = a.tensor(cx, a.names[0])?;
        return Ok(Value::Tensor(x.map(cx.terms, f)));
    }
    // The dispatch table: each file's ops and its arms.
    type Arms = fn(&mut Cx, &Args) -> R<Value>;
    let table: &[(&[&str], Arms)] = &[
        (activations::OPS, activations::call),
        (elementwise::OPS, elementwise::call),
        (reductions::OPS, reductions::call),
        (norms::OPS, norms::call),
        (linalg::OPS, linalg::call),
        (shape::OPS, shape::call),
        (losses::OPS, losses::call),
        (scans::OPS, scans::call),
        (pool::OPS, pool::call),
        (conv::OPS, conv::call),
        (gather::OPS, gather::call),
    ];
    match table.iter().find(|(ops, _)| ops.contains(&op)) {
        Some((_, arms)) => arms(cx, a),
        None => Err(format!("{op}: not implemented")),
    }
}
