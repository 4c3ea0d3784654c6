//! The dtype rules of a call: a float dtype may only widen the kernel's float type (a
//! narrowing conversion rounds, which specs cannot express), and only creation ops and
//! `.to` take an integer or bool dtype.

use super::super::float::FloatType;
use super::super::value::{Domain, Val};

type R<T> = Result<T, String>;

/// The ops that take an integer or bool dtype (`torch.ones(n, n, dtype=torch.bool)`).
pub(super) const TAKES_INT_DTYPE: &[&str] = &[
    "zeros",
    "ones",
    "full",
    "zeros_like",
    "ones_like",
    "full_like",
    "arange",
    "to",
];

/// Checks that no dtype among the arguments narrows `float` (the kernel's float type): a
/// widening conversion is exact, a narrowing one rounds, which specs cannot express.
pub(super) fn check_dtypes<D: Domain>(
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
            Val::IntDtype(d) if !TAKES_INT_DTYPE.contains(&op) => {
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

pub(super) fn narrowing(op: &str, float: FloatType, to: FloatType) -> R<()> {
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
