//! Scans along one dim: `cumsum`, `cumprod`. Element `i` of the result is the n-ary sum
//! (product) of elements `0..=i`, which equals PyTorch's running accumulation over the
//! reals.

use super::super::tensor::Tensor;
use super::super::value::{Cx, Value};
use super::args::one_dim;
use super::args::Args;

type R<T> = Result<T, String>;

/// The ops whose arms are in this file.
pub(super) const OPS: &[&str] = &["cumsum", "cumprod"];

/// The arms of the scans.
pub(super) fn call(cx: &mut Cx, a: &Args) -> R<Value> {
    let op = a.op;
    let x = a.tensor(cx, "input")?;
    let d = one_dim(op, &x, a.req_int("dim")?)?;
    if x.ndim() == 0 {
        return Ok(Value::Tensor(x));
    }
    let mut prefix = Vec::new();
    let y = Tensor::from_fn(x.shape.clone(), |idx| {
        let mut src = idx.to_vec();
        prefix.clear();
        for i in 0..=idx[d] {
            src[d] = i;
            prefix.push(x.at(&src));
        }
        if op == "cumsum" {
            cx.terms.sum(&prefix)
        } else {
            cx.terms.product(&prefix)
        }
    });
    Ok(Value::Tensor(y))
}
