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
//! flip/diag/tril/triu, creation), `random` (Triton's `tl.rand`, an extension); `args`
//! binds a call's arguments and normalises dims.
//! Imports run one way: `table` and `args` are leaves, `arith` sits above `elementwise`
//! and `linalg`, and no op file uses this one.
//!
//! [`Tensor`]: super::tensor::Tensor

mod activations;
mod args;
mod arith;
mod conv;
mod dtype;
mod elementwise;
mod gather;
mod linalg;
mod losses;
mod norms;
mod pool;
mod random;
mod reductions;
mod scans;
mod shape;
mod table;

pub(crate) use args::{bind, one_dim_of, reduce_dims_of, Args};
pub(crate) use arith::{arith, unary};
pub(crate) use gather::advanced_index;
pub(crate) use table::{
    all_sizes, canonical, math_function, params, unsupported_reason, AllSizes, SUPPORTED,
};

use super::float::FloatType;
use super::value::{Cx, Domain, Val, Value};
use dtype::check_dtypes;

type R<T> = Result<T, String>;

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

/// The arms of the file that defines op `op` at an instance.
type Arms = fn(&mut Cx, &Args) -> R<Value>;

/// Where op `op` (canonical) is defined at an instance: the unary table, else the arms
/// of one op file. `None` for a name the op library does not define.
pub(crate) fn definition(op: &str) -> Option<Definition> {
    if let Some(f) = elementwise::unary(op) {
        return Some(Definition::Unary(f));
    }
    let files: &[(&[&str], Arms)] = &[
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
        (random::OPS, random::call),
    ];
    let (_, arms) = files.iter().find(|(ops, _)| ops.contains(&op))?;
    Some(Definition::Arms(*arms))
}

/// An op's instance definition.
pub(crate) enum Definition {
    /// A function of one element (`exp`, `sigmoid`).
    Unary(fn(&mut crate::term::Terms, crate::term::TermId) -> crate::term::TermId),
    Arms(Arms),
}

/// The instance definition of a bound call.
pub(crate) fn apply(cx: &mut Cx, a: &Args) -> R<Value> {
    match definition(a.op) {
        Some(Definition::Unary(f)) => {
            let x = a.tensor(cx, a.names[0])?;
            Ok(Value::Tensor(x.map(cx.terms, f)))
        }
        Some(Definition::Arms(arms)) => arms(cx, a),
        None => Err(format!("{}: not implemented", a.op)),
    }
}
