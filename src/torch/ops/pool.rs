//! Pooling: `F.max_pool1d/2d`, `F.avg_pool1d/2d`, over the last one or two dims, with
//! PyTorch's output sizes (`ceil_mode` included), implicit padding (-inf for max, left
//! out or counted as zeros for avg per `count_include_pad`), `dilation` (max) and
//! `divisor_override` (avg_pool2d). `return_indices=True` is refused: its second output
//! is an index tensor.

use super::super::tensor::Tensor;
use super::super::value::{Cx, Value};
use super::args::Args;
use crate::term::TermId;

type R<T> = Result<T, String>;

/// The ops whose arms are in this file.
pub(super) const OPS: &[&str] = &["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d"];

/// An int-or-tuple argument of a `k`-D op as `k` values (`None` when absent).
pub(super) fn per_dim(a: &Args, name: &str, k: usize) -> R<Option<Vec<i64>>> {
    let v = a.ints(name)?;
    if let Some(big) = v.iter().flatten().find(|v| v.unsigned_abs() > 1 << 31) {
        return Err(format!("{}: argument `{name}` = {big} is too large", a.op));
    }
    match v {
        None => Ok(None),
        Some(v) if v.is_empty() => Ok(None),
        Some(v) if v.len() == 1 => Ok(Some(vec![v[0]; k])),
        Some(v) if v.len() == k => Ok(Some(v)),
        Some(v) => Err(format!(
            "{}: argument `{name}` must be an int or a tuple of {k} ints, got {v:?}",
            a.op
        )),
    }
}

/// PyTorch's pooling output size along one dim.
fn out_size(op: &str, len: i64, k: i64, s: i64, p: i64, d: i64, ceil: bool) -> R<usize> {
    let span = len + 2 * p - d * (k - 1) - 1 + if ceil { s - 1 } else { 0 };
    let mut out = span.div_euclid(s) + 1;
    if ceil && (out - 1) * s >= len + p {
        out -= 1;
    }
    if out < 1 {
        return Err(format!(
            "{op}: output size is {out} for an input of size {len} (kernel {k}, stride {s}, \
             padding {p}, dilation {d}): too small"
        ));
    }
    Ok(out as usize)
}

/// The arms of the pooling ops.
pub(super) fn call(cx: &mut Cx, a: &Args) -> R<Value> {
    let op = a.op;
    let k = if op.ends_with("1d") { 1 } else { 2 };
    let max = op.starts_with("max");
    let x = a.tensor(cx, "input")?;
    let n = x.ndim();
    if n != k + 1 && n != k + 2 {
        return Err(format!(
            "{op}: expects a {}-D or {}-D input, got shape {}",
            k + 1,
            k + 2,
            x.shape_str()
        ));
    }
    let kernel = per_dim(a, "kernel_size", k)?.ok_or_else(|| a.missing("kernel_size"))?;
    let stride = per_dim(a, "stride", k)?.unwrap_or_else(|| kernel.clone());
    let pad = per_dim(a, "padding", k)?.unwrap_or(vec![0; k]);
    let ceil = a.bool("ceil_mode", false)?;
    let (dil, include_pad, divisor) = if max {
        if a.bool("return_indices", false)? {
            return Err(format!(
                "{op}: `return_indices=True` is not supported (its indices are an integer tensor)"
            ));
        }
        (per_dim(a, "dilation", k)?.unwrap_or(vec![1; k]), true, None)
    } else {
        let divisor = if op == "avg_pool2d" {
            a.int("divisor_override")?
        } else {
            None
        };
        if divisor.is_some_and(|d| d == 0) {
            return Err(format!("{op}: divisor_override must be non-zero"));
        }
        (vec![1; k], a.bool("count_include_pad", true)?, divisor)
    };
    let lead = n - k;
    let mut outs = Vec::with_capacity(k);
    for i in 0..k {
        let (kk, s, p, d) = (kernel[i], stride[i], pad[i], dil[i]);
        if kk <= 0 || s <= 0 || d <= 0 || p < 0 {
            return Err(format!(
                "{op}: kernel_size, stride and dilation must be positive and padding \
                 non-negative, got {kernel:?}, {stride:?}, {dil:?}, {pad:?}"
            ));
        }
        let half = if max { ((kk - 1) * d + 1) / 2 } else { kk / 2 };
        if p > half {
            return Err(format!(
                "{op}: pad should be at most half of effective kernel size, got padding \
                 {p} for kernel size {kk}"
            ));
        }
        let len = x.shape[lead + i] as i64;
        outs.push(out_size(op, len, kk, s, p, d, ceil)?);
    }
    let mut shape = x.shape[..lead].to_vec();
    shape.extend(&outs);
    let mut window: Vec<TermId> = Vec::new();
    let y = Tensor::from_fn(shape, |idx| {
        // Per spatial dim: the input positions of the window and the padded extent.
        let mut axes: Vec<Vec<usize>> = Vec::with_capacity(k);
        let mut padded = 1i64;
        let mut inside = 1i64;
        for i in 0..k {
            let len = x.shape[lead + i] as i64;
            let start = idx[lead + i] as i64 * stride[i] - pad[i];
            let positions: Vec<usize> = if max {
                (0..kernel[i])
                    .map(|j| start + j * dil[i])
                    .filter(|&q| (0..len).contains(&q))
                    .map(|q| q as usize)
                    .collect()
            } else {
                let end = (start + kernel[i]).min(len + pad[i]);
                padded *= end - start;
                (start.max(0)..end.min(len)).map(|q| q as usize).collect()
            };
            inside *= positions.len() as i64;
            axes.push(positions);
        }
        window.clear();
        let mut src = idx.to_vec();
        let total: usize = axes.iter().map(|v| v.len()).product();
        for w in 0..total {
            let mut rest = w;
            for i in (0..k).rev() {
                src[lead + i] = axes[i][rest % axes[i].len()];
                rest /= axes[i].len();
            }
            window.push(x.at(&src));
        }
        if max {
            return cx.terms.maxn(&window);
        }
        let s = cx.terms.sum(&window);
        let div = divisor.unwrap_or(if include_pad { padded } else { inside });
        let div = cx.terms.int(div);
        cx.terms.div(s, div)
    });
    Ok(Value::Tensor(y))
}
