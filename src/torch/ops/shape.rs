//! Layout and creation: transpose, permute, reshape, expand, flatten, (un)squeeze,
//! chunk/split, cat/stack, dtype conversions, size, zeros/ones/full and their `_like`.

use super::super::float::FloatType;
use super::super::tensor::{concat, fmt_shape, norm_dim, Tensor};
use super::super::value::{Cx, Value};
use super::args::Args;
use super::args::{one_dim, reduce_dims};
use super::dtype::narrowing;
use super::elementwise::{is_bool, to_float};
use crate::term::{CmpOp, TermId};
use num_traits::Zero;

type R<T> = Result<T, String>;

/// The ops whose arms are in this file.
pub(super) const OPS: &[&str] = &[
    "flip",
    "diag",
    "tril",
    "triu",
    "transpose",
    "t",
    "permute",
    "reshape",
    "expand",
    "flatten",
    "unsqueeze",
    "squeeze",
    "chunk",
    "split",
    "cat",
    "stack",
    "contiguous",
    "to",
    "bool",
    "long",
    "int",
    "float",
    "double",
    "half",
    "bfloat16",
    "size",
    "dim",
    "zeros",
    "ones",
    "full",
    "zeros_like",
    "ones_like",
    "full_like",
    "arange",
];

/// Resolves one `-1` in a requested shape against `numel`.
pub(super) fn infer_shape(op: &str, want: &[i64], total: usize, from: &[usize]) -> R<Vec<usize>> {
    let bad = || {
        format!(
            "{op}: shape {want:?} is invalid for input of shape {} ({total} elements)",
            fmt_shape(from)
        )
    };
    let mut hole = None;
    let mut known = 1usize;
    let mut out = Vec::with_capacity(want.len());
    for (i, &d) in want.iter().enumerate() {
        if d == -1 {
            if hole.is_some() {
                return Err(bad());
            }
            hole = Some(i);
            out.push(0);
        } else {
            let d = usize::try_from(d).map_err(|_| bad())?;
            known = known.checked_mul(d).ok_or_else(bad)?;
            out.push(d);
        }
    }
    match hole {
        Some(i) if known != 0 && total.is_multiple_of(known) => out[i] = total / known,
        None if known == total => {}
        _ => return Err(bad()),
    }
    Ok(out)
}

pub(super) fn chunk_sizes(n: usize, chunks: usize) -> Vec<usize> {
    let size = n.div_ceil(chunks.max(1)).max(1);
    let mut out = Vec::new();
    let mut start = 0;
    while start < n {
        out.push(size.min(n - start));
        start += size;
    }
    if out.is_empty() {
        out.push(0);
    }
    out
}

pub(super) fn split_at(x: &Tensor, dim: usize, sizes: &[usize]) -> Value {
    let mut start = 0;
    let mut parts = Vec::new();
    for &s in sizes {
        parts.push(Value::Tensor(x.slice(dim, start, s, 1)));
        start += s;
    }
    Value::Tuple(parts)
}

pub(super) fn cat(op: &str, parts: &[Tensor], dim: i64) -> R<Tensor> {
    let Some(first) = parts.first() else {
        return Err(format!("{op}: expected a non-empty list of tensors"));
    };
    let d = one_dim(op, first, dim)?;
    if first.ndim() == 0 {
        return Err(format!(
            "{op}: zero-dimensional tensors cannot be concatenated"
        ));
    }
    for p in &parts[1..] {
        let same = p.ndim() == first.ndim()
            && (0..p.ndim()).all(|i| i == d || p.shape[i] == first.shape[i]);
        if !same {
            return Err(format!(
                "{op}: tensors must have the same shape except in dimension {dim}, got {} and {}",
                first.shape_str(),
                p.shape_str()
            ));
        }
    }
    Ok(concat(parts, d))
}

pub(super) fn like(cx: &mut Cx, x: &Tensor, v: TermId) -> Tensor {
    let _ = cx;
    Tensor::full(&x.shape, v)
}

/// `torch.diag`: a 1-D input becomes the matrix with it on diagonal `k` (zeros elsewhere);
/// a 2-D input gives its diagonal `k` as a vector.
fn diag(cx: &mut Cx, x: &Tensor, k: i64) -> R<Tensor> {
    match x.ndim() {
        1 => {
            let m = x.shape[0] + k.unsigned_abs().min(1 << 32) as usize;
            if m.checked_mul(m).is_none_or(|n| n > 1 << 26) {
                return Err(format!(
                    "diag: the {m} x {m} result for diagonal {k} is too large"
                ));
            }
            let zero = cx.terms.zero();
            Ok(Tensor::from_fn(vec![m, m], |ij| {
                let (i, j) = (ij[0] as i64, ij[1] as i64);
                if j - i == k {
                    x.elems[i.min(j) as usize]
                } else {
                    zero
                }
            }))
        }
        2 => {
            let (r, c) = (x.shape[0] as i64, x.shape[1] as i64);
            let (r0, c0) = if k >= 0 { (0, k) } else { (-k, 0) };
            let len = (r - r0).min(c - c0).max(0) as usize;
            Ok(Tensor::from_fn(vec![len], |i| {
                let i = i[0] as i64;
                x.at(&[(r0 + i) as usize, (c0 + i) as usize])
            }))
        }
        _ => Err(format!(
            "diag: expects a 1-D or 2-D tensor, got shape {}",
            x.shape_str()
        )),
    }
}

/// `torch.tril`/`triu`: element `[.., i, j]` kept where `j - i <= k` (tril) or
/// `j - i >= k` (triu), else 0 (a NaN or inf there becomes 0 too, as in PyTorch).
fn triangle(cx: &mut Cx, op: &str, x: &Tensor, k: i64) -> R<Tensor> {
    let n = x.ndim();
    if n < 2 {
        return Err(format!(
            "{op}: expects a tensor with at least 2 dimensions, got shape {}",
            x.shape_str()
        ));
    }
    let zero = cx.terms.zero();
    Ok(Tensor::from_fn(x.shape.clone(), |idx| {
        let d = idx[n - 1] as i64 - idx[n - 2] as i64;
        let keep = if op == "tril" { d <= k } else { d >= k };
        if keep {
            x.at(idx)
        } else {
            zero
        }
    }))
}

/// The integer or bool dtype among a call's arguments, if any.
fn int_dtype(a: &Args) -> Option<&'static str> {
    let is = |v: &Value| match v {
        Value::IntDtype(d) => Some(*d),
        _ => None,
    };
    a.vals.iter().flatten().find_map(|v| match v {
        Value::Tuple(items) => items.iter().find_map(is),
        v => is(v),
    })
}

/// `x` converted to torch.`dtype` (bool or an integer type). To bool: true where
/// non-zero (NaN and ±inf included), as PyTorch converts. To an integer type: exact
/// for bools and integer constants; any other float would be truncated and could wrap,
/// which a spec cannot state, so it is an error.
fn int_cast(cx: &mut Cx, op: &str, dtype: &str, x: Tensor) -> R<Tensor> {
    if dtype == "bool" {
        if is_bool(cx.terms, &x) {
            return Ok(x);
        }
        return Ok(x.map(cx.terms, |t, e| {
            if let Some(c) = t.as_const(e) {
                let nz = !c.is_zero();
                return t.int(i64::from(nz));
            }
            if t.is_nan(e) || t.as_inf(e).is_some() {
                return t.one();
            }
            let z = t.zero();
            t.cmp(CmpOp::Ne, e, z)
        }));
    }
    if is_bool(cx.terms, &x) {
        return Ok(to_float(cx, x));
    }
    if let Some(&e) = x
        .elems
        .iter()
        .find(|&&e| !cx.terms.as_const(e).is_some_and(|c| c.is_integer()))
    {
        let what = if cx.terms.as_const(e).is_some() {
            "a constant that is not an integer"
        } else {
            "a float that is not a known integer"
        };
        return Err(format!(
            "{op}: converting {what} to torch.{dtype} truncates (and can wrap), which a \
             spec cannot express; convert bool tensors or integer constants only"
        ));
    }
    Ok(x)
}

/// The arms of the layout and creation ops.
pub(super) fn call(cx: &mut Cx, a: &Args) -> R<Value> {
    let op = a.op;
    let t = |v: Tensor| Ok(Value::Tensor(v));
    match op {
        "transpose" => {
            let x = a.tensor(cx, "input")?;
            let d0 = one_dim(op, &x, a.req_int("dim0")?)?;
            let d1 = one_dim(op, &x, a.req_int("dim1")?)?;
            if x.ndim() == 0 {
                return t(x);
            }
            t(x.transpose(d0, d1))
        }
        "t" => {
            let x = a.tensor(cx, "input")?;
            match x.ndim() {
                0 | 1 => t(x),
                2 => t(x.transpose(0, 1)),
                _ => Err(format!(
                    "t: expects a tensor with <= 2 dimensions, got shape {}",
                    x.shape_str()
                )),
            }
        }
        "permute" => {
            let x = a.tensor(cx, "input")?;
            let dims = a.ints("dims")?.ok_or_else(|| a.missing("dims"))?;
            let mut perm = Vec::new();
            for d in &dims {
                perm.push(one_dim(op, &x, *d)?);
            }
            let mut sorted = perm.clone();
            sorted.sort_unstable();
            if sorted != (0..x.ndim()).collect::<Vec<_>>() {
                return Err(format!(
                    "permute: {dims:?} is not a permutation of the dims of shape {}",
                    x.shape_str()
                ));
            }
            t(x.permute(&perm))
        }
        "reshape" => {
            let x = a.tensor(cx, "input")?;
            let want = a.ints("shape")?.unwrap_or_default();
            let shape = infer_shape(op, &want, x.elems.len(), &x.shape)?;
            t(x.reshape(shape))
        }
        "expand" => {
            let x = a.tensor(cx, "input")?;
            let want = a.ints("size")?.unwrap_or_default();
            let lead = want.len().checked_sub(x.ndim()).ok_or_else(|| {
                format!(
                    "expand: size {want:?} has fewer dims than shape {}",
                    x.shape_str()
                )
            })?;
            let mut shape = Vec::new();
            for (i, &w) in want.iter().enumerate() {
                shape.push(if w == -1 && i >= lead {
                    x.shape[i - lead]
                } else {
                    usize::try_from(w).map_err(|_| format!("expand: invalid size {want:?}"))?
                });
            }
            t(x.broadcast_to(&shape).map_err(|m| format!("expand: {m}"))?)
        }
        "flatten" => {
            let x = a.tensor(cx, "input")?;
            if x.ndim() == 0 {
                return t(x.reshape(vec![1]));
            }
            let s = one_dim(op, &x, a.int("start_dim")?.unwrap_or(0))?;
            let e = one_dim(op, &x, a.int("end_dim")?.unwrap_or(-1))?;
            if s > e {
                return Err("flatten: start_dim cannot come after end_dim".into());
            }
            let mut shape = x.shape[..s].to_vec();
            shape.push(x.shape[s..=e].iter().product());
            shape.extend_from_slice(&x.shape[e + 1..]);
            t(x.reshape(shape))
        }
        "unsqueeze" => {
            let x = a.tensor(cx, "input")?;
            let d = a.req_int("dim")?;
            let d = norm_dim(d, x.ndim() + 1)
                .map_err(|m| format!("unsqueeze: {m} for input of shape {}", x.shape_str()))?;
            let mut shape = x.shape.clone();
            shape.insert(d, 1);
            t(x.reshape(shape))
        }
        "squeeze" => {
            let x = a.tensor(cx, "input")?;
            let dims = match a.ints("dim")? {
                None => (0..x.ndim()).collect(),
                Some(ds) => reduce_dims(op, &x, Some(ds))?,
            };
            let shape = (0..x.ndim())
                .filter(|d| !(dims.contains(d) && x.shape[*d] == 1))
                .map(|d| x.shape[d])
                .collect();
            t(x.reshape(shape))
        }
        "chunk" | "split" => {
            let x = a.tensor(cx, "input")?;
            if x.ndim() == 0 {
                return Err(format!(
                    "{op}: expects a tensor with at least one dimension"
                ));
            }
            let d = one_dim(op, &x, a.int("dim")?.unwrap_or(0))?;
            let n = x.shape[d];
            let sizes = if op == "chunk" {
                let c = a.req_int("chunks")?;
                if c <= 0 {
                    return Err(format!("chunk: number of chunks must be positive, got {c}"));
                }
                chunk_sizes(n, c as usize)
            } else {
                match a.req("split_size_or_sections")? {
                    Value::Int(s) if *s > 0 => {
                        let s = *s as usize;
                        (0..n.div_ceil(s)).map(|i| s.min(n - i * s)).collect()
                    }
                    Value::Tuple(_) => {
                        let sizes = a.shape("split_size_or_sections")?;
                        if sizes.iter().sum::<usize>() != n {
                            return Err(format!(
                                "split: sections {sizes:?} do not add up to {n}, the size of dim {d} of shape {}",
                                x.shape_str()
                            ));
                        }
                        sizes
                    }
                    v => {
                        return Err(a.bad(
                            "split_size_or_sections",
                            "a positive int or a list of ints",
                            v,
                        ))
                    }
                }
            };
            Ok(split_at(&x, d, &sizes))
        }
        "cat" | "stack" => {
            let parts = a.tensors(cx, "tensors")?;
            let dim = a.int("dim")?.unwrap_or(0);
            if op == "cat" {
                return t(cat(op, &parts, dim)?);
            }
            let Some(first) = parts.first() else {
                return Err("stack: expected a non-empty list of tensors".into());
            };
            if let Some(p) = parts.iter().find(|p| p.shape != first.shape) {
                return Err(format!(
                    "stack: all tensors must have the same shape, got {} and {}",
                    first.shape_str(),
                    p.shape_str()
                ));
            }
            let d = norm_dim(dim, first.ndim() + 1)
                .map_err(|m| format!("stack: {m} for inputs of shape {}", first.shape_str()))?;
            let ups: Vec<Tensor> = parts
                .iter()
                .map(|p| {
                    let mut s = p.shape.clone();
                    s.insert(d, 1);
                    p.reshape(s)
                })
                .collect();
            t(concat(&ups, d))
        }
        "contiguous" => t(a.tensor(cx, "input")?),
        "to" => {
            let x = a.tensor(cx, "input")?;
            let dtype = a
                .vals
                .iter()
                .flatten()
                .any(|v| matches!(v, Value::Dtype(_)))
                || matches!(a.get("args"), Some(Value::Tuple(v)) if v.iter().any(|v| matches!(v, Value::Dtype(_))));
            match int_dtype(a) {
                Some(d) => t(int_cast(cx, op, d, x)?),
                None => t(if dtype { to_float(cx, x) } else { x }),
            }
        }
        "bool" | "long" | "int" => {
            let x = a.tensor(cx, "input")?;
            let d = match op {
                "bool" => "bool",
                "long" => "int64",
                _ => "int32",
            };
            t(int_cast(cx, op, d, x)?)
        }
        "float" | "double" | "half" | "bfloat16" => {
            let to = match op {
                "float" => FloatType::F32,
                "double" => FloatType::F64,
                "half" => FloatType::F16,
                _ => FloatType::BF16,
            };
            narrowing(op, cx.float, to)?;
            let x = a.tensor(cx, "input")?;
            t(to_float(cx, x))
        }
        "flip" => {
            let x = a.tensor(cx, "input")?;
            let dims = a.ints("dims")?.ok_or_else(|| a.missing("dims"))?;
            let dims = reduce_dims(op, &x, Some(dims))?;
            t(Tensor::from_fn(x.shape.clone(), |idx| {
                let mut src = idx.to_vec();
                for &d in &dims {
                    src[d] = x.shape[d] - 1 - idx[d];
                }
                x.at(&src)
            }))
        }
        "diag" => {
            let x = a.tensor(cx, "input")?;
            t(diag(cx, &x, a.int("diagonal")?.unwrap_or(0))?)
        }
        "tril" | "triu" => {
            let x = a.tensor(cx, "input")?;
            t(triangle(cx, op, &x, a.int("diagonal")?.unwrap_or(0))?)
        }
        "size" => {
            let x = a.tensor(cx, "input")?;
            match a.int("dim")? {
                Some(d) => {
                    let d = one_dim(op, &x, d)?;
                    Ok(Value::Int(x.shape.get(d).copied().unwrap_or(1) as i64))
                }
                None => Ok(Value::Tuple(
                    x.shape.iter().map(|&s| Value::Int(s as i64)).collect(),
                )),
            }
        }
        "dim" => Ok(Value::Int(a.tensor(cx, "input")?.ndim() as i64)),
        "zeros" | "ones" => {
            let shape = a.shape("size")?;
            let v = cx.int((op == "ones") as i64);
            t(Tensor::full(&shape, v))
        }
        "full" => {
            let shape = a.shape("size")?;
            let v = a.number(cx, "fill_value", None)?;
            let v = match int_dtype(a) {
                Some(d) => int_cast(cx, op, d, Tensor::scalar(v))?.elems[0],
                None => v,
            };
            t(Tensor::full(&shape, v))
        }
        "zeros_like" | "ones_like" => {
            let x = a.tensor(cx, "input")?;
            let v = cx.int((op == "ones_like") as i64);
            t(like(cx, &x, v))
        }
        "full_like" => {
            let x = a.tensor(cx, "input")?;
            let v = a.number(cx, "fill_value", None)?;
            let v = match int_dtype(a) {
                Some(d) => int_cast(cx, op, d, Tensor::scalar(v))?.elems[0],
                None => v,
            };
            t(like(cx, &x, v))
        }
        "arange" => {
            // arange(end) or arange(start, end[, step]), integers (PyTorch's int64).
            let first = a
                .int("start")?
                .ok_or_else(|| "arange: missing `end`".to_string())?;
            let (start, end) = match a.int("end")? {
                Some(e) => (first, e),
                None => (0, first),
            };
            let step = a.int("step")?.unwrap_or(1);
            if step == 0 {
                return Err("arange: step must be nonzero".into());
            }
            if a.get("dtype")
                .is_some_and(|d| !matches!(d, Value::None | Value::IntDtype(_)))
            {
                return Err("arange: a float `dtype` is not supported (write `.float()`)".into());
            }
            if int_dtype(a) == Some("bool") {
                return Err("arange: dtype=torch.bool is not supported by PyTorch".into());
            }
            let mut elems = Vec::new();
            let mut v = start;
            while (step > 0 && v < end) || (step < 0 && v > end) {
                elems.push(cx.int(v));
                v += step;
            }
            t(Tensor::new(vec![elems.len()], elems))
        }
        _ => unreachable!("{op} is not in this file's OPS"),
    }
}
