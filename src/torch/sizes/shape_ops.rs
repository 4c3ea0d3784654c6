//! The ops that change shapes, read for every size: each a formula written after its
//! instance definition in `torch::ops` (reductions, softmax, var/std, logsumexp,
//! layer_norm, matmul/linear, `t`, unsqueeze, cat, reshape, zeros/ones, tril/triu,
//! cumsum/cumprod, masked_fill, and the gathers nll_loss, cross_entropy, embedding). The call arrives bound (`ops::bind_call`) and its dims
//! are normalised by the instance's own `ops::reduce_dims_of`/`ops::one_dim_of`; only
//! the computation is written here.

use super::super::float::FloatType;
use super::super::ops::{self, one_dim_of, reduce_dims_of, Args};
use super::super::value::{parse_decimal, Cx, Domain, Val};
use super::domain::{exact, EverySize, SymTensor, V};
use super::extent::{bin, inferred_extent, int};
use super::pointwise;
use crate::formula::{BinaryOp, Formula, ReduceOp, ScanOp, Size, TakeKind, UnaryOp};
use crate::launch::BinOp;
use crate::term::CmpOp;

type R<T> = Result<T, String>;
type A = Args<EverySize>;

fn tensor(a: &A, name: &str) -> R<SymTensor> {
    match a.req(name)? {
        Val::Tensor(t) => Ok(t.clone()),
        v => Err(a.bad(name, "a tensor", v)),
    }
}

/// A `dtype=` argument converts the result, which this reading does not follow.
fn no_dtype(a: &A) -> R<()> {
    if a.has("dtype") && a.get("dtype").is_some() {
        return Err(format!("{}(dtype=…) is not read for all sizes", a.op));
    }
    Ok(())
}

/// The reduced dims of `t` as the instance reading normalises them.
fn dims(a: &A, t: &SymTensor) -> R<Vec<usize>> {
    reduce_dims_of(
        a.op,
        t.shape.len(),
        || EverySize::shape_str(t),
        a.ints("dim")?,
    )
}

/// Dim `d` of a tensor of `ndim` axes, as the instance reading normalises it.
fn one_dim(a: &A, t: &SymTensor, ndim: usize, d: i64) -> R<usize> {
    one_dim_of(a.op, ndim, || EverySize::shape_str(t), d)
}

fn no_0d(a: &A, t: &SymTensor) -> R<()> {
    if t.shape.is_empty() {
        return Err(format!(
            "{} of a 0-d tensor is not read for all sizes",
            a.op
        ));
    }
    Ok(())
}

/// `op` over `dims` (each an axis of `f`), one axis at a time from the last, so axis
/// numbers stay valid; a mean over several axes is the mean of means (exact in reals).
fn reduce_f(op: ReduceOp, mut f: Formula, dims: &[usize], keepdim: bool) -> Formula {
    let mut dims = dims.to_vec();
    dims.sort_unstable();
    for &axis in dims.iter().rev() {
        f = Formula::Reduce {
            op,
            axis,
            keepdim,
            arg: Box::new(f),
        };
    }
    f
}

fn reduce(
    op: ReduceOp,
    f: Formula,
    mut shape: Vec<Size>,
    dims: &[usize],
    keepdim: bool,
) -> SymTensor {
    let f = reduce_f(op, f, dims, keepdim);
    let mut dims = dims.to_vec();
    dims.sort_unstable();
    for &axis in dims.iter().rev() {
        if keepdim {
            shape[axis] = int(1);
        } else {
            shape.remove(axis);
        }
    }
    SymTensor::new(f, shape)
}

/// `exp(x - max) / sum(exp(x - max))`, or `(x - max) - log(sum(exp(x - max)))`, along
/// `dim` (`ops::softmax`, `ops::log_softmax`).
fn softmax(log: bool, x: Formula, dim: usize) -> Formula {
    let m = reduce_f(ReduceOp::Max, x.clone(), &[dim], true);
    let d = Formula::binary(BinaryOp::Sub, x, m);
    let e = d.clone().exp();
    let s = reduce_f(ReduceOp::Sum, e.clone(), &[dim], true);
    if log {
        Formula::binary(BinaryOp::Sub, d, s.log())
    } else {
        Formula::binary(BinaryOp::Div, e, s)
    }
}

/// `x @ y` of two matrices (the only products read for every size).
pub(super) fn matmul(x: V, y: V) -> R<SymTensor> {
    match (x, y) {
        (Val::Tensor(a), Val::Tensor(b)) if a.shape.len() == 2 && b.shape.len() == 2 => {
            Ok(SymTensor::new(
                Formula::MatMul(Box::new(a.f), Box::new(b.f)),
                vec![a.shape[0].clone(), b.shape[1].clone()],
            ))
        }
        _ => Err("only 2-D matrix products are read for all sizes".into()),
    }
}

fn transpose(t: SymTensor) -> SymTensor {
    let shape = vec![t.shape[1].clone(), t.shape[0].clone()];
    SymTensor::new(Formula::Transpose(Box::new(t.f)), shape)
}

/// A bound call of a shape-changing op (`AllSizes::Formula` in the op table).
pub(super) fn call(cx: &mut Cx, a: A) -> R<V> {
    let op = a.op;
    let t = match op {
        "masked_fill" => {
            // Elementwise, but the result keeps the input's shape: the mask may not
            // widen it.
            let input = tensor(&a, "input")?.shape;
            let y = pointwise::apply(cx, a)?;
            if y.shape != input {
                return Err("masked_fill: the mask widens the input's shape".into());
            }
            y
        }
        "contiguous" if a.get("args").is_none() => tensor(&a, "input")?,
        "contiguous" => return Err(format!("`{op}` with arguments is not read for all sizes")),
        "sum" | "mean" | "amax" | "amin" | "prod" | "argmax" | "argmin" => {
            let x = tensor(&a, "input")?;
            no_dtype(&a)?;
            let rop = match op {
                "sum" => ReduceOp::Sum,
                "mean" => ReduceOp::Mean,
                "amax" => ReduceOp::Max,
                "amin" => ReduceOp::Min,
                "prod" => ReduceOp::Prod,
                "argmax" => ReduceOp::ArgMax,
                _ => ReduceOp::ArgMin,
            };
            if matches!(op, "prod" | "argmax" | "argmin") {
                no_0d(&a, &x)?;
            }
            let keepdim = a.bool("keepdim", false)?;
            let dims = dims(&a, &x)?;
            // argmax over several axes indexes the flattened tensor: not a nest of
            // one-axis argmaxes.
            if matches!(rop, ReduceOp::ArgMax | ReduceOp::ArgMin) && dims.len() != 1 {
                return Err(format!(
                    "{op} without one `dim` (the flattened index) is not read for all sizes"
                ));
            }
            reduce(rop, x.f, x.shape, &dims, keepdim)
        }
        "cumsum" | "cumprod" => {
            let x = tensor(&a, "input")?;
            no_dtype(&a)?;
            no_0d(&a, &x)?;
            let Some(d) = a.int("dim")? else {
                return Err(format!("{op} needs `dim`"));
            };
            let axis = one_dim(&a, &x, x.shape.len(), d)?;
            let sop = if op == "cumsum" {
                ScanOp::Sum
            } else {
                ScanOp::Prod
            };
            SymTensor::new(Formula::scan(sop, x.f, axis), x.shape)
        }
        "tril" | "triu" => {
            let x = tensor(&a, "input")?;
            if x.shape.len() < 2 {
                return Err(format!("{op} needs a tensor of at least 2 dims"));
            }
            let diagonal = a.int("diagonal")?.unwrap_or(0);
            SymTensor::new(x.f.tri(op == "triu", diagonal), x.shape)
        }
        "softmax" | "softmin" | "log_softmax" => {
            let x = tensor(&a, "input")?;
            no_dtype(&a)?;
            no_0d(&a, &x)?;
            let d = a.int("dim")?.ok_or_else(|| a.missing("dim"))?;
            let d = one_dim(&a, &x, x.shape.len(), d)?;
            // softmin is softmax of the negated input, as PyTorch defines it.
            let input = if op == "softmin" { -x.f } else { x.f };
            SymTensor::new(softmax(op == "log_softmax", input, d), x.shape)
        }
        "var" | "std" => {
            let x = tensor(&a, "input")?;
            let population = matches!(a.get("unbiased"), Some(Val::Bool(false)))
                || matches!(a.get("correction"), Some(Val::Int(Size::Int(0))));
            if !population {
                return Err(format!(
                    "{op} with Bessel's correction divides by N - 1, which is not read for \
                     all sizes (write unbiased=False)"
                ));
            }
            let keepdim = a.bool("keepdim", false)?;
            let dims = dims(&a, &x)?;
            let m = reduce_f(ReduceOp::Mean, x.f.clone(), &dims, true);
            let d = Formula::binary(BinaryOp::Sub, x.f, m);
            let sq = Formula::Powi(Box::new(d), 2);
            let v = reduce(ReduceOp::Mean, sq, x.shape, &dims, keepdim);
            if op == "std" {
                SymTensor::new(v.f.sqrt(), v.shape)
            } else {
                v
            }
        }
        "logsumexp" => {
            // `m + log(sum(exp(x - m)))`, m the max kept as a unit axis
            // (`ops::reductions::logsumexp`).
            let x = tensor(&a, "input")?;
            let keepdim = a.bool("keepdim", false)?;
            let dims = dims(&a, &x)?;
            let m = reduce_f(ReduceOp::Max, x.f.clone(), &dims, true);
            let e = Formula::binary(BinaryOp::Sub, x.f, m.clone()).exp();
            let s = reduce_f(ReduceOp::Sum, e, &dims, true);
            let y = Formula::binary(BinaryOp::Add, m, s.log());
            let mut kept = x.shape;
            for &d in &dims {
                kept[d] = int(1);
            }
            // Without keepdim, the reduced axes (now of length 1) are dropped: a sum
            // over a unit axis is its one element.
            if keepdim {
                SymTensor::new(y, kept)
            } else {
                reduce(ReduceOp::Sum, y, kept, &dims, false)
            }
        }
        "linear" => {
            let x = a.req("input")?.clone();
            let w = tensor(&a, "weight")?;
            if w.shape.len() != 2 {
                return Err("linear with a 1-D weight is not read for all sizes".into());
            }
            let y = matmul(x, Val::Tensor(transpose(w)))?;
            match a.get("bias").cloned() {
                None => y,
                Some(b) => pointwise::operator(cx, vec![Val::Tensor(y), b], |cx, v| {
                    ops::arith(cx, "+", &v[0], &v[1])
                })?,
            }
        }
        "layer_norm" => layer_norm(cx.float, &a)?,
        "nll_loss" | "cross_entropy" => class_loss(&a)?,
        "embedding" => {
            // `w[ids]`; the other arguments change only the gradient, but `max_norm`
            // renormalises rows (refused at the instance too).
            let (ids, w) = (tensor(&a, "input")?, tensor(&a, "weight")?);
            if a.get("max_norm").is_some_and(|v| !matches!(v, Val::None)) || w.shape.len() != 2 {
                return Err("embedding with max_norm or a weight not 2-D".into());
            }
            let mut shape = ids.shape.clone();
            shape.push(w.shape[1].clone());
            SymTensor::new(Formula::take(TakeKind::Index, w.f, ids.f, 0), shape)
        }
        "matmul" | "mm" => matmul(a.req("input")?.clone(), a.req("other")?.clone())?,
        "t" => {
            let x = tensor(&a, "input")?;
            if x.shape.len() != 2 {
                return Err("t() of a tensor that is not 2-D".into());
            }
            transpose(x)
        }
        "unsqueeze" => {
            let mut x = tensor(&a, "input")?;
            let d = a.int("dim")?.ok_or_else(|| a.missing("dim"))?;
            let d = one_dim(&a, &x, x.shape.len() + 1, d)?;
            x.shape.insert(d, int(1));
            SymTensor::new(x.f.unsqueeze(d), x.shape)
        }
        "cat" => cat(&a)?,
        "reshape" => {
            let x = tensor(&a, "input")?;
            let want: Vec<V> = match a.req("shape")?.clone() {
                Val::Tuple(items) => items,
                v => vec![v],
            };
            let mut to = Vec::new();
            let mut inferred = None;
            for (k, v) in want.into_iter().enumerate() {
                match v {
                    Val::Int(Size::Int(-1)) if inferred.is_none() => {
                        inferred = Some(k);
                        to.push(int(1));
                    }
                    Val::Int(s) => to.push(s),
                    _ => return Err("reshape: a size that is not an int".into()),
                }
            }
            if let Some(k) = inferred {
                to[k] = inferred_extent(&x.shape, &to);
            }
            SymTensor::new(x.f.reshape(to.clone()), to)
        }
        "zeros" | "ones" => {
            let shape = match a.get("size") {
                Some(Val::Tuple(items)) => items
                    .iter()
                    .map(|v| match v {
                        Val::Int(s) => Ok(s.clone()),
                        _ => Err(format!("{op}: a size that is not an int")),
                    })
                    .collect::<R<Vec<_>>>()?,
                _ => return Err(format!("{op} needs sizes")),
            };
            let c = Formula::int(i64::from(op == "ones"));
            let f = Formula::Broadcast {
                arg: Box::new(c),
                shape: shape.clone(),
            };
            SymTensor::new(f, shape)
        }
        // `arange(n)` (PyTorch's int64), read as the integers it holds.
        "arange" => {
            let n = match (a.get("start"), a.get("end"), a.get("step")) {
                (Some(Val::Int(n)), None | Some(Val::None), None | Some(Val::None)) => n.clone(),
                _ => return Err("arange is read for every size only as arange(n)".into()),
            };
            if !matches!(a.get("dtype"), None | Some(Val::None | Val::IntDtype(_))) {
                return Err("arange(dtype=…) is not read for all sizes".into());
            }
            SymTensor::new(Formula::Arange(n.clone()), vec![n])
        }
        // Triton's random stream at integer offsets (`term::rand`), the seed an int the
        // launch fixes.
        "tl.rand" => {
            let seed =
                match a.req("seed")? {
                    Val::Int(Size::Int(s)) => *s,
                    v => return Err(a.bad(
                        "seed",
                        "an int the launch fixes (a seed that varies with the sizes is not read)",
                        v,
                    )),
                };
            let offset = tensor(&a, "offset")?;
            SymTensor::new(
                Formula::Rand {
                    seed,
                    offset: Box::new(offset.f),
                },
                offset.shape,
            )
        }
        _ => return Err(format!("`{op}` has no formula over sizes")),
    };
    Ok(Val::Tensor(t))
}

/// `F.nll_loss`/`F.cross_entropy` over class indices with `reduction='none'`, as
/// `ops::gather`/`ops::losses` define them: per row 0 where the target is
/// `ignore_index`, else `-input[i, t[i]]` (NLL) or `logsumexp(input[i]) - input[i, t[i]]`.
fn class_loss(a: &A) -> R<SymTensor> {
    let (x, t) = (tensor(a, "input")?, tensor(a, "target")?);
    for arg in ["weight", "size_average", "reduce", "label_smoothing"] {
        if a.has(arg) && a.get(arg).is_some_and(|v| !matches!(v, Val::None)) {
            return Err(format!("{}(`{arg}`) is not read for all sizes", a.op));
        }
    }
    let reduction = a.str("reduction", "mean")?;
    if reduction != "none" || x.shape.len() != 2 || t.shape.len() != 1 {
        return Err(format!(
            "{} is read for all sizes with reduction='none' over [N, C] and [N] only",
            a.op
        ));
    }
    let ignore = a.int("ignore_index")?.unwrap_or(-100);
    let picked = Formula::take(TakeKind::Along, x.f.clone(), t.f.clone(), 1);
    let loss = if a.op == "nll_loss" {
        -picked
    } else {
        // `m + log(sum(exp(x - m)))` with the max kept as a unit axis, then dropped.
        let m = reduce_f(ReduceOp::Max, x.f.clone(), &[1], true);
        let e = Formula::binary(BinaryOp::Sub, x.f, m.clone()).exp();
        let s = reduce_f(ReduceOp::Sum, e, &[1], true);
        let y = Formula::binary(BinaryOp::Add, m, s.log());
        let lse = reduce(
            ReduceOp::Sum,
            y,
            vec![x.shape[0].clone(), int(1)],
            &[1],
            false,
        );
        Formula::binary(BinaryOp::Sub, lse.f, picked)
    };
    let keep = Formula::cmp(CmpOp::Ne, t.f, Formula::int(ignore));
    Ok(SymTensor::new(
        Formula::select(keep, loss, Formula::int(0)),
        vec![x.shape[0].clone()],
    ))
}

/// `torch.cat` along one axis: the parts' shapes equal off it, its extent their sum.
fn cat(a: &A) -> R<SymTensor> {
    let Val::Tuple(parts) = a.req("tensors")? else {
        return Err("cat needs a list of tensors".into());
    };
    let mut args = Vec::new();
    let mut shapes = Vec::new();
    for p in parts {
        let Val::Tensor(t) = p else {
            return Err("cat of something not a tensor".into());
        };
        args.push(t.f.clone());
        shapes.push(t.shape.clone());
    }
    let Some(first) = shapes.first().cloned() else {
        return Err("cat of no tensors".into());
    };
    if first.is_empty() {
        return Err("cat of 0-d tensors".into());
    }
    let d = a.int("dim")?.unwrap_or(0);
    let axis = one_dim_of(a.op, first.len(), || format!("{} parts", shapes.len()), d)?;
    let mut shape = first.clone();
    for s in &shapes[1..] {
        if s.len() != first.len() || (0..s.len()).any(|k| k != axis && s[k] != first[k]) {
            return Err("cat of shapes not equal off its axis".into());
        }
        shape[axis] = bin(BinOp::Add, &shape[axis], &s[axis]);
    }
    Ok(SymTensor::new(Formula::Cat { axis, args }, shape))
}

/// `(x - mean) * rsqrt(var + eps) * weight + bias` over the trailing axes
/// `normalized_shape` names (`ops::layer_norm`).
fn layer_norm(float: FloatType, a: &A) -> R<SymTensor> {
    let x = tensor(a, "input")?;
    let shape = &x.shape;
    let ns = match a.get("normalized_shape") {
        Some(Val::Tuple(items)) => items.clone(),
        Some(v @ Val::Int(_)) => vec![v.clone()],
        _ => return Err("layer_norm needs normalized_shape".into()),
    };
    if ns.is_empty() || ns.len() > shape.len() {
        return Err("layer_norm: normalized_shape does not fit".into());
    }
    let first = shape.len() - ns.len();
    for (k, v) in ns.iter().enumerate() {
        match v {
            Val::Int(s) if *s == shape[first + k] => {}
            _ => {
                return Err(format!(
                    "layer_norm: normalized_shape must be the input's trailing sizes ({}) at \
                     every size",
                    shape[first..]
                        .iter()
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        }
    }
    let dims: Vec<usize> = (first..shape.len()).collect();
    let eps = match a.get("eps") {
        None => {
            let e = parse_decimal("1e-5").expect("a decimal");
            Formula::Const(exact(float.round(&e))?)
        }
        Some(Val::Tensor(t)) if t.shape.is_empty() => t.f.clone(),
        _ => return Err("layer_norm: eps must be a real".into()),
    };
    let m = reduce_f(ReduceOp::Mean, x.f.clone(), &dims, true);
    let d = Formula::binary(BinaryOp::Sub, x.f.clone(), m);
    let sq = Formula::Powi(Box::new(d.clone()), 2);
    let v = reduce_f(ReduceOp::Mean, sq, &dims, true);
    let rs = Formula::unary(UnaryOp::Rsqrt, Formula::binary(BinaryOp::Add, v, eps));
    let mut y = Formula::binary(BinaryOp::Mul, d, rs);
    for (name, op) in [("weight", BinaryOp::Mul), ("bias", BinaryOp::Add)] {
        match a.get(name) {
            None => {}
            Some(Val::Tensor(t)) if t.shape[..] == shape[first..] => {
                y = Formula::binary(op, y, t.f.clone());
            }
            Some(_) => return Err(format!("layer_norm: {name} must have normalized_shape")),
        }
    }
    Ok(SymTensor::new(y, x.shape.clone()))
}
