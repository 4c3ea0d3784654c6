//! Triton's random stream, an extension beyond PyTorch: `tl.rand(seed, offsets)` means
//! exactly `triton.language.rand`, the named function `rand(seed, offset)` of
//! `term::rand` (Philox 4x32-10, the first word folded to non-negative, converted to
//! f32 and scaled, every step rounded as the GPU rounds).
//!
//! Read at an instance only: the seed and every offset must be known integers there, and
//! each element of the result is the exact f32 value Triton computes (a constant term).
//! A seed is read as a 64-bit integer (an `i32` seed sign-extended, as `seed.to(uint64)`
//! does), an offset as an int64 (`torch.arange`'s dtype): its high word is the counter's
//! second word, which is 0 for the non-negative int32 offsets kernels use.

use super::super::tensor::Tensor;
use super::super::value::{Cx, Value};
use super::args::Args;
use crate::term::rand::triton_rand;
use num_traits::ToPrimitive;

type R<T> = Result<T, String>;

/// The ops whose arms are in this file.
pub(super) const OPS: &[&str] = &["tl.rand"];

/// The arm of `tl.rand`.
pub(super) fn call(cx: &mut Cx, a: &Args) -> R<Value> {
    let seed = a.req_int("seed")?;
    let offsets = a.tensor(cx, "offset")?;
    let mut elems = Vec::with_capacity(offsets.elems.len());
    for &o in &offsets.elems {
        let offset = cx
            .terms
            .as_const(o)
            .filter(|c| c.is_integer())
            .and_then(|c| c.to_integer().to_i64())
            .ok_or_else(|| {
                "tl.rand: every offset must be an integer known at the instance \
                 (e.g. `torch.arange(n)`)"
                    .to_string()
            })?;
        elems.push(cx.terms.float(f64::from(triton_rand(seed, offset))));
    }
    Ok(Value::Tensor(Tensor::new(offsets.shape.clone(), elems)))
}
