//! Linear algebra: `matmul` (and `@`), `mm`, `bmm`, `linear`.

use super::super::tensor::{broadcast_shapes, numel, Tensor};
use super::super::value::{Cx, Value};
use super::args::Args;
use super::elementwise::binary;

type R<T> = Result<T, String>;

/// The ops whose arms are in this file.
pub(super) const OPS: &[&str] = &["matmul", "mm", "bmm", "linear"];

/// `torch.matmul`: 1-D operands are promoted (and the added dim removed), batch dims
/// broadcast; each element is one n-ary sum of products.
pub(super) fn matmul(cx: &mut Cx, op: &str, a: &Tensor, b: &Tensor) -> R<Tensor> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(format!(
            "{op}: both arguments need at least 1 dimension, got shapes {} and {}",
            a.shape_str(),
            b.shape_str()
        ));
    }
    let a2 = if a.ndim() == 1 {
        a.reshape(vec![1, a.shape[0]])
    } else {
        a.clone()
    };
    let b2 = if b.ndim() == 1 {
        b.reshape(vec![b.shape[0], 1])
    } else {
        b.clone()
    };
    let (n, k) = (a2.shape[a2.ndim() - 2], a2.shape[a2.ndim() - 1]);
    let (k2, m) = (b2.shape[b2.ndim() - 2], b2.shape[b2.ndim() - 1]);
    if k != k2 {
        return Err(format!(
            "{op}: shapes {} and {} cannot be multiplied ({k} != {k2})",
            a.shape_str(),
            b.shape_str()
        ));
    }
    let batch = broadcast_shapes(&a2.shape[..a2.ndim() - 2], &b2.shape[..b2.ndim() - 2])
        .ok_or_else(|| {
            format!(
                "{op}: batch dims of shapes {} and {} cannot be broadcast together",
                a.shape_str(),
                b.shape_str()
            )
        })?;
    let full = |s: &[usize]| -> Vec<usize> { batch.iter().chain(s).copied().collect() };
    let a3 = a2.broadcast_to(&full(&[n, k]))?;
    let b3 = b2.broadcast_to(&full(&[k, m]))?;
    let nb = numel(&batch);
    let mut elems = Vec::with_capacity(nb * n * m);
    let mut prods = Vec::with_capacity(k);
    for bi in 0..nb {
        for i in 0..n {
            for j in 0..m {
                prods.clear();
                for kk in 0..k {
                    let x = a3.elems[bi * n * k + i * k + kk];
                    let y = b3.elems[bi * k * m + kk * m + j];
                    prods.push(cx.terms.mul(x, y));
                }
                elems.push(cx.terms.sum(&prods));
            }
        }
    }
    let mut shape = batch.clone();
    if a.ndim() > 1 {
        shape.push(n);
    }
    if b.ndim() > 1 {
        shape.push(m);
    }
    Ok(Tensor::new(shape, elems))
}

/// The arms of the linear algebra ops.
pub(super) fn call(cx: &mut Cx, a: &Args) -> R<Value> {
    let op = a.op;
    let t = |v: Tensor| Ok(Value::Tensor(v));
    match op {
        "matmul" | "mm" | "bmm" => {
            let x = a.tensor(cx, "input")?;
            let y = a.tensor(cx, "other")?;
            let want = match op {
                "mm" => Some(2),
                "bmm" => Some(3),
                _ => None,
            };
            if let Some(n) = want {
                if x.ndim() != n || y.ndim() != n {
                    return Err(format!(
                        "{op}: expects two {n}-D tensors, got shapes {} and {}",
                        x.shape_str(),
                        y.shape_str()
                    ));
                }
                if n == 3 && x.shape[0] != y.shape[0] {
                    return Err(format!(
                        "bmm: batch sizes differ in shapes {} and {}",
                        x.shape_str(),
                        y.shape_str()
                    ));
                }
            }
            t(matmul(cx, op, &x, &y)?)
        }
        "linear" => {
            let x = a.tensor(cx, "input")?;
            let w = a.tensor(cx, "weight")?;
            if w.ndim() > 2 || w.ndim() == 0 {
                return Err(format!(
                    "linear: weight must be 1-D or 2-D, got shape {}",
                    w.shape_str()
                ));
            }
            let wt = if w.ndim() == 2 { w.transpose(0, 1) } else { w };
            let mut y = matmul(cx, op, &x, &wt)?;
            if let Some(b) = a.opt_tensor(cx, "bias")? {
                y = binary(cx, op, &y, &b, |t, a, b| t.add(a, b))?;
            }
            t(y)
        }
        _ => unreachable!("{op} is not in this file's OPS"),
    }
}
