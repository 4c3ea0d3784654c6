//! Convolution: `F.conv1d`, `F.conv2d` (PyTorch's cross-correlation) with `stride`,
//! `padding` (ints, `'valid'` or `'same'`, zeros), `dilation`, `groups` and `bias`. Each
//! output element is one n-ary sum of products (the bias its first operand); positions in
//! the zero padding contribute nothing.

use super::super::tensor::Tensor;
use super::super::value::{Cx, Value};
use super::args::Args;
use super::pool::per_dim;
use crate::term::TermId;

type R<T> = Result<T, String>;

/// The ops whose arms are in this file.
pub(super) const OPS: &[&str] = &["conv1d", "conv2d"];

/// The arms of the convolutions.
pub(super) fn call(cx: &mut Cx, a: &Args) -> R<Value> {
    let op = a.op;
    let k = if op == "conv1d" { 1 } else { 2 };
    let x = a.tensor(cx, "input")?;
    let w = a.tensor(cx, "weight")?;
    let bias = a.opt_tensor(cx, "bias")?;
    if x.ndim() != k + 1 && x.ndim() != k + 2 {
        return Err(format!(
            "{op}: expects a {}-D or {}-D input, got shape {}",
            k + 1,
            k + 2,
            x.shape_str()
        ));
    }
    // Unbatched input: add the batch dim, drop it at the end.
    let batched = x.ndim() == k + 2;
    let x = if batched {
        x
    } else {
        let mut s = vec![1];
        s.extend(&x.shape);
        x.reshape(s)
    };
    let (nb, cin) = (x.shape[0], x.shape[1]);
    if w.ndim() != k + 2 {
        return Err(format!(
            "{op}: weight must be {}-D [out_channels, in_channels/groups, kernel...], got shape {}",
            k + 2,
            w.shape_str()
        ));
    }
    let groups = a.int("groups")?.unwrap_or(1);
    let cout = w.shape[0];
    if groups <= 0 || cin % groups as usize != 0 || cout % groups as usize != 0 {
        return Err(format!(
            "{op}: groups = {groups} must be positive and divide both in_channels ({cin}) \
             and out_channels ({cout})"
        ));
    }
    let g = groups as usize;
    let (cin_g, cout_g) = (cin / g, cout / g);
    if w.shape[1] != cin_g {
        return Err(format!(
            "{op}: weight of shape {} expects {} input channels, the input has {cin} \
             (groups = {g})",
            w.shape_str(),
            w.shape[1] * g
        ));
    }
    if let Some(b) = &bias {
        if b.shape != [cout] {
            return Err(format!(
                "{op}: bias must have shape [{cout}], got {}",
                b.shape_str()
            ));
        }
    }
    let stride = per_dim(a, "stride", k)?.unwrap_or(vec![1; k]);
    let dil = per_dim(a, "dilation", k)?.unwrap_or(vec![1; k]);
    if stride.iter().chain(&dil).any(|&v| v <= 0) {
        return Err(format!(
            "{op}: stride {stride:?} and dilation {dil:?} must be positive"
        ));
    }
    let kern: Vec<i64> = w.shape[2..].iter().map(|&v| v as i64).collect();
    // (left, right) zero padding per spatial dim.
    let pads: Vec<(i64, i64)> = match a.get("padding") {
        Some(Value::Str(s)) if s == "valid" => vec![(0, 0); k],
        Some(Value::Str(s)) if s == "same" => {
            if stride.iter().any(|&s| s != 1) {
                return Err(format!(
                    "{op}: padding='same' is not supported for strided convolutions"
                ));
            }
            (0..k)
                .map(|i| {
                    let total = dil[i] * (kern[i] - 1);
                    (total / 2, total - total / 2)
                })
                .collect()
        }
        Some(Value::Str(s)) => {
            return Err(format!(
                "{op}: argument `padding` must be 'valid', 'same' or ints, got '{s}'"
            ))
        }
        _ => {
            let p = per_dim(a, "padding", k)?.unwrap_or(vec![0; k]);
            if p.iter().any(|&v| v < 0) {
                return Err(format!("{op}: negative padding {p:?}"));
            }
            p.iter().map(|&v| (v, v)).collect()
        }
    };
    let mut outs = Vec::with_capacity(k);
    for i in 0..k {
        let len = x.shape[2 + i] as i64;
        let span = len + pads[i].0 + pads[i].1 - dil[i] * (kern[i] - 1) - 1;
        if span < 0 {
            return Err(format!(
                "{op}: kernel size {} (dilated: {}) is larger than the padded input size {}",
                kern[i],
                dil[i] * (kern[i] - 1) + 1,
                len + pads[i].0 + pads[i].1
            ));
        }
        outs.push((span / stride[i] + 1) as usize);
    }
    let mut shape = vec![nb, cout];
    shape.extend(&outs);
    let ksize: usize = kern.iter().map(|&v| v as usize).product();
    let mut terms: Vec<TermId> = Vec::new();
    let y = Tensor::from_fn(shape, |idx| {
        let (n, oc) = (idx[0], idx[1]);
        let grp = oc / cout_g;
        terms.clear();
        if let Some(b) = &bias {
            terms.push(b.elems[oc]);
        }
        for ic in 0..cin_g {
            for kk in 0..ksize {
                // The kernel offset per spatial dim, row-major.
                let mut rest = kk;
                let mut xi = vec![n, grp * cin_g + ic];
                let mut wi = vec![oc, ic];
                let mut koff = vec![0usize; k];
                for i in (0..k).rev() {
                    koff[i] = rest % kern[i] as usize;
                    rest /= kern[i] as usize;
                }
                let mut inside = true;
                for i in 0..k {
                    let q = idx[2 + i] as i64 * stride[i] - pads[i].0 + koff[i] as i64 * dil[i];
                    inside &= (0..x.shape[2 + i] as i64).contains(&q);
                    xi.push(q.max(0) as usize);
                    wi.push(koff[i]);
                }
                if inside {
                    let p = cx.terms.mul(x.at(&xi), w.at(&wi));
                    terms.push(p);
                }
            }
        }
        cx.terms.sum(&terms)
    });
    Ok(Value::Tensor(if batched {
        y
    } else {
        let s = y.shape[1..].to_vec();
        y.reshape(s)
    }))
}
