//! Arithmetic in the kernel's own float types under `--precision ieee` (docs/semantics.md, "Values"):
//! the one place the TTIR interpreter puts a float result into its type.
//!
//! An f16 or bf16 result rounds to the nearest value of its type, ties to even
//! (`Func::RoundF16`/`RoundBf16`: the functions the refuter evaluates, so a
//! counterexample replays through `lift run --precision ieee`). An f32 result keeps
//! f32's exponent range in the domains that evaluate (overflow to ±inf,
//! [`Domain::f32_range`]); its mantissa stays exact (f32 rounding is not modelled).
//! Casts (`arith.truncf`) and tf32 dot inputs round in `ops.rs` as before.
//!
//! Architecture invariant: only ops that compute a new float value (arithmetic, math
//! functions, fma, dots, int → float conversions) are put in their type; loads,
//! selects, shape ops and extrema of in-type values need no rounding.

use super::domain::{Binary, Domain, Precision};
use super::table::{op_kind, OpKind};
use super::value::{Elem, Value};
use crate::term::Func;
use crate::triton_ir::ast::{FloatKind, Op, Type};

/// The float type an op's result is put in under `--precision ieee`, if the op computes
/// a new float value and the domain rounds.
pub(crate) fn result_kind<D: Domain>(domain: &D, op: &Op) -> Option<FloatKind> {
    if domain.precision() != Precision::Ieee || !computes_float(&op.name) {
        return None;
    }
    match op.result_types.first()?.elem() {
        Type::Float(k @ (FloatKind::F16 | FloatKind::BF16 | FloatKind::F32)) => Some(*k),
        _ => None,
    }
}

/// Ops whose float result is a new value computed in the result's type (extrema,
/// `abs`, `floor` and `ceil` of in-type values are in the type already).
pub(crate) fn computes_float(name: &str) -> bool {
    match op_kind(name) {
        Some(OpKind::Binary(b)) => !matches!(
            b,
            Binary::Max | Binary::Min | Binary::MaxNum | Binary::MinNum
        ),
        Some(OpKind::Unary(f)) => !matches!(f, Func::Abs | Func::Floor | Func::Ceil | Func::Rint),
        Some(OpKind::Fma | OpKind::Dot | OpKind::Extern | OpKind::IntToFloat { .. }) => true,
        _ => false,
    }
}

/// `v` put in the float type `kind` (see the module comment).
pub(crate) fn in_type<D: Domain>(domain: &mut D, kind: FloatKind, v: D::V) -> D::V {
    match kind {
        FloatKind::F16 => domain.func(Func::RoundF16, v),
        FloatKind::BF16 => domain.func(Func::RoundBf16, v),
        FloatKind::F32 => domain.f32_range(v),
        FloatKind::F64 | FloatKind::F8 => v,
    }
}

/// Every float element of `value` put in `kind`.
pub(crate) fn value_in_type<D: Domain>(
    domain: &mut D,
    kind: FloatKind,
    mut value: Value<D::V>,
) -> Value<D::V> {
    for e in value.elems.iter_mut() {
        if let Elem::Float(v) = *e {
            *e = Elem::Float(in_type(domain, kind, v));
        }
    }
    value
}

/// `vals` (at least one) combined by `b` in the float type `kind`, rounding after every
/// step, in the pairwise order of a GPU tree reduction (lane `i` with lane `i + h`):
/// the order with the smallest rounding error, so a rounding it shows is not an
/// artefact of a worse order than the GPU's.
pub(crate) fn combine_in_type<D: Domain>(
    domain: &mut D,
    b: Binary,
    kind: FloatKind,
    vals: &[D::V],
) -> D::V {
    let mut level = vals.to_vec();
    while level.len() > 1 {
        let h = level.len().div_ceil(2);
        let mut next = Vec::with_capacity(h);
        for i in 0..h {
            next.push(match level.get(i + h) {
                Some(&w) => {
                    let s = domain.binary(b, level[i], w);
                    in_type(domain, kind, s)
                }
                None => level[i],
            });
        }
        level = next;
    }
    level[0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::domain::f32_range;

    #[test]
    fn f32_overflow_is_infinite_and_nothing_else_changes() {
        assert_eq!(f32_range(1e39), f64::INFINITY);
        assert_eq!(f32_range(-1e39), f64::NEG_INFINITY);
        // f32::MAX and a value that rounds down to it stay.
        assert_eq!(f32_range(f32::MAX as f64), f32::MAX as f64);
        assert_eq!(f32_range(0.1), 0.1);
        assert!(f32_range(f64::NAN).is_nan());
    }

    /// An extremum returns one of its operands, already in their type: neither named nor
    /// rounded, whatever its NaN rule (`maxnumf` drops a NaN, `maximumf` propagates it).
    #[test]
    fn extrema_of_either_nan_rule_compute_no_new_value() {
        for name in [
            "arith.maxnumf",
            "arith.minnumf",
            "arith.maximumf",
            "arith.minimumf",
        ] {
            assert!(!computes_float(name), "{name}");
        }
        assert!(computes_float("arith.addf"));
    }
}
