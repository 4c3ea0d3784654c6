//! A formula at concrete sizes: a dense row-major tensor of terms per sub-formula.
//! Callers type-check with `Formula::dims` first; shapes here are then consistent.

use super::expr::{BinaryOp, Formula, ReduceOp, ScanOp, TakeKind};
use super::shape::{FormulaError, ShapeEnv};
use super::window::{Geometry, WindowOp};
use crate::term::{TermId, Terms};
use num_bigint::BigInt;
use num_rational::BigRational;

#[derive(Clone)]
pub(super) struct Dense {
    pub shape: Vec<usize>,
    pub elems: Vec<TermId>,
}

pub(super) fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// Row-major multi-index of `flat` in `shape`.
pub(super) fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for (slot, &d) in idx.iter_mut().zip(shape).rev() {
        if d > 0 {
            *slot = flat % d;
            flat /= d;
        }
    }
    idx
}

impl Dense {
    fn scalar(t: TermId) -> Dense {
        Dense {
            shape: vec![],
            elems: vec![t],
        }
    }

    /// The element at multi-index `idx` of the broadcast shape `out` (trailing-aligned).
    fn at_broadcast(&self, idx: &[usize]) -> TermId {
        let off = idx.len() - self.shape.len();
        let st = strides(&self.shape);
        let mut flat = 0;
        for (k, (&d, &s)) in self.shape.iter().zip(&st).enumerate() {
            let i = if d == 1 { 0 } else { idx[off + k] };
            flat += i * s;
        }
        self.elems[flat]
    }

    fn map(&self, terms: &mut Terms, mut f: impl FnMut(&mut Terms, TermId) -> TermId) -> Dense {
        Dense {
            shape: self.shape.clone(),
            elems: self.elems.iter().map(|&e| f(terms, e)).collect(),
        }
    }
}

fn broadcast_shape(shapes: &[&[usize]]) -> Vec<usize> {
    let n = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    (0..n)
        .map(|i| {
            shapes
                .iter()
                .filter_map(|s| (i + s.len()).checked_sub(n).map(|k| s[k]))
                .find(|&d| d != 1)
                .unwrap_or(1)
        })
        .collect()
}

/// Applies `f` element-wise over the broadcast of `args`.
fn zip(
    terms: &mut Terms,
    args: &[&Dense],
    mut f: impl FnMut(&mut Terms, &[TermId]) -> TermId,
) -> Dense {
    let shapes: Vec<&[usize]> = args.iter().map(|a| a.shape.as_slice()).collect();
    let shape = broadcast_shape(&shapes);
    let n: usize = shape.iter().product();
    let mut elems = Vec::with_capacity(n);
    let mut ops = Vec::with_capacity(args.len());
    for flat in 0..n {
        let idx = unravel(flat, &shape);
        ops.clear();
        ops.extend(args.iter().map(|a| a.at_broadcast(&idx)));
        elems.push(f(terms, &ops));
    }
    Dense { shape, elems }
}

fn reduce(terms: &mut Terms, x: &Dense, op: ReduceOp, axis: usize, keepdim: bool) -> Dense {
    let n = x.shape[axis];
    let mut out_shape = x.shape.clone();
    out_shape[axis] = 1;
    let st = strides(&x.shape);
    let count: usize = out_shape.iter().product();
    let inv = BigRational::new(BigInt::from(1), BigInt::from(n.max(1)));
    let mut elems = Vec::with_capacity(count);
    let mut ops = Vec::with_capacity(n);
    for flat in 0..count {
        let idx = unravel(flat, &out_shape);
        let base: usize = idx.iter().zip(&st).map(|(i, s)| i * s).sum();
        ops.clear();
        ops.extend((0..n).map(|k| x.elems[base + k * st[axis]]));
        let e = match op {
            ReduceOp::Sum => terms.sum(&ops),
            ReduceOp::Max => terms.maxn(&ops),
            ReduceOp::Min => terms.minn(&ops),
            ReduceOp::Mean => {
                let s = terms.sum(&ops);
                let c = terms.constant(inv.clone());
                terms.mul(s, c)
            }
            ReduceOp::Prod => terms.product(&ops),
            ReduceOp::ArgMax => terms.arg_extreme(&ops, true),
            ReduceOp::ArgMin => terms.arg_extreme(&ops, false),
        };
        elems.push(e);
    }
    if !keepdim {
        out_shape.remove(axis);
    }
    Dense {
        shape: out_shape,
        elems,
    }
}

/// Element `i` along `axis`: the n-ary sum (product) of elements `0..=i`, as the spec
/// library's `cumsum`/`cumprod` build it.
fn scan(terms: &mut Terms, x: &Dense, op: ScanOp, axis: usize) -> Dense {
    let st = strides(&x.shape);
    let mut prefix = Vec::new();
    let elems = (0..x.elems.len())
        .map(|flat| {
            let idx = unravel(flat, &x.shape);
            let base = flat - idx[axis] * st[axis];
            prefix.clear();
            prefix.extend((0..=idx[axis]).map(|k| x.elems[base + k * st[axis]]));
            match op {
                ScanOp::Sum => terms.sum(&prefix),
                ScanOp::Prod => terms.product(&prefix),
            }
        })
        .collect();
    Dense {
        shape: x.shape.clone(),
        elems,
    }
}

/// `h[t] = a[t]·h[t-1] + x[t]` along `axis` from `h[0] = x[0]`, built as a kernel's
/// loop builds it (`a·h + x` through the same constructors).
fn recurrence(terms: &mut Terms, a: &Dense, x: &Dense, axis: usize) -> Dense {
    let st = strides(&x.shape);
    let mut elems = x.elems.clone();
    for flat in 0..x.elems.len() {
        let t = unravel(flat, &x.shape)[axis];
        if t > 0 {
            let prev = elems[flat - st[axis]];
            let ah = terms.mul(a.elems[flat], prev);
            elems[flat] = terms.add(ah, x.elems[flat]);
        }
    }
    Dense {
        shape: x.shape.clone(),
        elems,
    }
}

/// `tril`/`triu` of the last two axes: elements off the kept triangle are 0.
fn tri(terms: &mut Terms, x: &Dense, upper: bool, diagonal: i64) -> Dense {
    let n = x.shape.len();
    let zero = terms.zero();
    let elems = (0..x.elems.len())
        .map(|flat| {
            let idx = unravel(flat, &x.shape);
            let d = idx[n - 1] as i64 - idx[n - 2] as i64;
            let keep = if upper { d >= diagonal } else { d <= diagonal };
            if keep {
                x.elems[flat]
            } else {
                zero
            }
        })
        .collect();
    Dense {
        shape: x.shape.clone(),
        elems,
    }
}

fn transpose(x: &Dense) -> Dense {
    let n = x.shape.len();
    let mut shape = x.shape.clone();
    shape.swap(n - 2, n - 1);
    let st = strides(&x.shape);
    let count = x.elems.len();
    let elems = (0..count)
        .map(|flat| {
            let mut idx = unravel(flat, &shape);
            idx.swap(n - 2, n - 1);
            x.elems[idx.iter().zip(&st).map(|(i, s)| i * s).sum::<usize>()]
        })
        .collect();
    Dense { shape, elems }
}

fn matmul(terms: &mut Terms, a: &Dense, b: &Dense) -> Dense {
    // Promote 1-D operands as NumPy does, multiply, then drop the added axes.
    let mut a2 = Dense {
        shape: a.shape.clone(),
        elems: a.elems.clone(),
    };
    let mut b2 = Dense {
        shape: b.shape.clone(),
        elems: b.elems.clone(),
    };
    if a.shape.len() == 1 {
        a2.shape.insert(0, 1);
    }
    if b.shape.len() == 1 {
        b2.shape.push(1);
    }
    let (na, nb) = (a2.shape.len(), b2.shape.len());
    let (m, k, n) = (a2.shape[na - 2], a2.shape[na - 1], b2.shape[nb - 1]);
    let batch = broadcast_shape(&[&a2.shape[..na - 2], &b2.shape[..nb - 2]]);
    let mut shape = batch.clone();
    shape.extend([m, n]);
    let count: usize = shape.iter().product();
    let (sa, sb) = (strides(&a2.shape), strides(&b2.shape));
    let nbatch = batch.len();
    let offset = |d: &Dense, st: &[usize], bidx: &[usize]| -> usize {
        let nd = d.shape.len() - 2;
        let off = nbatch - nd;
        (0..nd)
            .map(|q| {
                let i = if d.shape[q] == 1 { 0 } else { bidx[off + q] };
                i * st[q]
            })
            .sum()
    };
    let mut elems = Vec::with_capacity(count);
    let mut prods = Vec::with_capacity(k);
    for flat in 0..count {
        let idx = unravel(flat, &shape);
        let (bidx, i, j) = (&idx[..nbatch], idx[nbatch], idx[nbatch + 1]);
        let (oa, ob) = (offset(&a2, &sa, bidx), offset(&b2, &sb, bidx));
        prods.clear();
        for q in 0..k {
            let x = a2.elems[oa + i * sa[na - 2] + q * sa[na - 1]];
            let y = b2.elems[ob + q * sb[nb - 2] + j * sb[nb - 1]];
            prods.push(terms.mul(x, y));
        }
        elems.push(terms.sum(&prods));
    }
    if b.shape.len() == 1 {
        shape.pop();
    }
    if a.shape.len() == 1 {
        let l = shape.len();
        shape.remove(l - if b.shape.len() == 1 { 1 } else { 2 });
    }
    Dense { shape, elems }
}

/// The dense value of `f`; `f` must type-check in `env`.
pub(super) fn run(f: &Formula, terms: &mut Terms, env: &ShapeEnv) -> Result<Dense, FormulaError> {
    run_in(f, terms, env, &mut Products::default())
}

/// The value of each product `a @ b` instantiated so far, by its sub-formula, for
/// instantiations into one term store at one [`ShapeEnv`] (as `prove::Instances`): a
/// softmax's scores occur in its max and in its exponential, and a lift instantiates
/// its candidate, the candidate tidied and its named forms, each `k` products per
/// element of every product. Terms are hash-consed and the store only grows, so
/// instantiating a product again would intern no new term and give the same elements:
/// the memo changes no result.
#[derive(Default)]
pub struct Products(rustc_hash::FxHashMap<Formula, Dense>);

fn run_in(
    f: &Formula,
    terms: &mut Terms,
    env: &ShapeEnv,
    products: &mut Products,
) -> Result<Dense, FormulaError> {
    Ok(match f {
        Formula::Input(name) => {
            let shape = env.tensors[name].clone();
            let count: usize = shape.iter().product();
            let elems = (0..count)
                .map(|flat| {
                    let idx: Vec<i64> = unravel(flat, &shape).iter().map(|&i| i as i64).collect();
                    terms.input(name, &idx)
                })
                .collect();
            Dense { shape, elems }
        }
        Formula::Scalar(name) => Dense::scalar(terms.param(name)),
        Formula::Arange(n) => {
            let n = env.eval(n)?;
            let elems = (0..n).map(|i| terms.int(i as i64)).collect();
            Dense {
                shape: vec![n],
                elems,
            }
        }
        Formula::Rand { seed, offset } => {
            // The value Triton computes at each offset, as the spec's `tl.rand` reads it.
            let mut o = run_in(offset, terms, env, products)?;
            for e in &mut o.elems {
                let off = terms
                    .as_const(*e)
                    .filter(|c| c.is_integer())
                    .and_then(|c| num_traits::ToPrimitive::to_i64(&c.to_integer()))
                    .ok_or_else(|| FormulaError {
                        message: format!("rand({seed}, ...) at an offset that is not an integer"),
                    })?;
                *e = terms.float(f64::from(crate::term::rand::triton_rand(*seed, off)));
            }
            o
        }
        Formula::Const(c) => Dense::scalar(terms.constant(c.clone())),
        Formula::Inf { negative } => Dense::scalar(terms.inf(*negative)),
        Formula::Unary(op, a) => {
            let a = run_in(a, terms, env, products)?;
            match op.func() {
                None => a.map(terms, |t, e| t.neg(e)),
                Some(func) => a.map(terms, |t, e| t.call(func, e)),
            }
        }
        Formula::Powi(a, k) => {
            let a = run_in(a, terms, env, products)?;
            a.map(terms, |t, e| t.powi(e, *k))
        }
        Formula::Binary(op, a, b) => {
            let (a, b) = (
                run_in(a, terms, env, products)?,
                run_in(b, terms, env, products)?,
            );
            zip(terms, &[&a, &b], |t, o| match op {
                BinaryOp::Add => t.add(o[0], o[1]),
                BinaryOp::Sub => t.sub(o[0], o[1]),
                BinaryOp::Mul => t.mul(o[0], o[1]),
                BinaryOp::Div => t.div(o[0], o[1]),
                BinaryOp::Max => t.max(o[0], o[1]),
                BinaryOp::Min => t.min(o[0], o[1]),
                BinaryOp::FMax => t.maxnum(o[0], o[1]),
                BinaryOp::FMin => t.minnum(o[0], o[1]),
            })
        }
        Formula::Cmp(op, a, b) => {
            let (a, b) = (
                run_in(a, terms, env, products)?,
                run_in(b, terms, env, products)?,
            );
            zip(terms, &[&a, &b], |t, o| t.cmp(*op, o[0], o[1]))
        }
        Formula::Select(c, a, b) => {
            let (c, a, b) = (
                run_in(c, terms, env, products)?,
                run_in(a, terms, env, products)?,
                run_in(b, terms, env, products)?,
            );
            zip(terms, &[&c, &a, &b], |t, o| t.select(o[0], o[1], o[2]))
        }
        Formula::Reduce {
            op,
            axis,
            keepdim,
            arg,
        } => {
            let a = run_in(arg, terms, env, products)?;
            reduce(terms, &a, *op, *axis, *keepdim)
        }
        Formula::MatMul(a, b) => {
            if let Some(d) = products.0.get(f) {
                return Ok(d.clone());
            }
            let (a, b) = (
                run_in(a, terms, env, products)?,
                run_in(b, terms, env, products)?,
            );
            let d = matmul(terms, &a, &b);
            products.0.insert(f.clone(), d.clone());
            d
        }
        Formula::Transpose(a) => transpose(&run_in(a, terms, env, products)?),
        Formula::Scan { op, axis, arg } => {
            let a = run_in(arg, terms, env, products)?;
            scan(terms, &a, *op, *axis)
        }
        Formula::Recurrence { axis, a, x } => {
            let (a, x) = (
                run_in(a, terms, env, products)?,
                run_in(x, terms, env, products)?,
            );
            recurrence(terms, &a, &x, *axis)
        }
        Formula::Tri {
            arg,
            upper,
            diagonal,
        } => {
            let a = run_in(arg, terms, env, products)?;
            tri(terms, &a, *upper, *diagonal)
        }
        Formula::Cat { axis, args } => {
            let parts = args
                .iter()
                .map(|a| run_in(a, terms, env, products))
                .collect::<Result<Vec<Dense>, _>>()?;
            cat(&parts, *axis)
        }
        Formula::Window { op, args, geometry } => {
            let mut parts: Vec<(Vec<usize>, Vec<TermId>)> = Vec::with_capacity(args.len());
            for a in args {
                let d = run_in(a, terms, env, products)?;
                parts.push((d.shape, d.elems));
            }
            // Type-checked by the caller (`Formula::dims`).
            let shape = f.shape(env).unwrap_or_default();
            let elems = window_elems(terms, *op, geometry, &parts, &shape);
            Dense { shape, elems }
        }
        Formula::Slice {
            arg,
            axis,
            start,
            end,
        } => {
            let a = run_in(arg, terms, env, products)?;
            let s = env.eval(start).unwrap_or(0);
            let e = match end {
                Some(e) => env.eval(e).unwrap_or(a.shape[*axis]),
                None => a.shape[*axis],
            };
            slice(&a, *axis, s, e)
        }
        Formula::Unsqueeze { arg, axis } => {
            // The same elements in the same row-major order.
            let mut a = run_in(arg, terms, env, products)?;
            a.shape.insert((*axis).min(a.shape.len()), 1);
            a
        }
        Formula::Reshape { arg, shape } => {
            // The same elements in the same row-major order.
            let mut a = run_in(arg, terms, env, products)?;
            a.shape = shape.iter().map(|e| env.eval(e).unwrap_or(1)).collect();
            a
        }
        Formula::Take {
            kind,
            axis,
            data,
            index,
        } => {
            let (x, i) = (
                run_in(data, terms, env, products)?,
                run_in(index, terms, env, products)?,
            );
            take(terms, *kind, *axis, &x, &i)?
        }
        Formula::Broadcast { arg, shape } => {
            let a = run_in(arg, terms, env, products)?;
            let shape: Vec<usize> = shape.iter().map(|e| env.eval(e).unwrap_or(1)).collect();
            let n: usize = shape.iter().product();
            let elems = (0..n)
                .map(|flat| a.at_broadcast(&unravel(flat, &shape)))
                .collect();
            Dense { shape, elems }
        }
    })
}

/// A gather ([`Formula::Take`]; shapes checked by `Formula::dims`): each element is the
/// gather tree of `term/gather.rs` over its index term's declared values, the same term
/// a kernel's data-dependent load and a spec's `gather` build, so where they read the
/// same cells the terms are equal. A value outside `0..extent` has no cell (`0`).
fn take(
    terms: &mut Terms,
    kind: TakeKind,
    axis: usize,
    x: &Dense,
    index: &Dense,
) -> Result<Dense, FormulaError> {
    let extent = x.shape[axis];
    let shape = match kind {
        TakeKind::Along => index.shape.clone(),
        TakeKind::Index => [&x.shape[..axis], &index.shape[..], &x.shape[axis + 1..]].concat(),
    };
    let xst = strides(&x.shape);
    let count: usize = shape.iter().product();
    let mut elems = Vec::with_capacity(count);
    for flat in 0..count {
        let out = unravel(flat, &shape);
        // The index element this output reads, and the data position around it.
        let (at, mut pos) = match kind {
            TakeKind::Along => {
                let mut pos = out.clone();
                pos.insert(axis, 0);
                (out.clone(), pos)
            }
            TakeKind::Index => {
                let k = index.shape.len();
                let at = out[axis..axis + k].to_vec();
                let pos = [&out[..axis], &[0][..], &out[axis + k..]].concat();
                (at, pos)
            }
        };
        let it = index.elems[at
            .iter()
            .zip(strides(&index.shape))
            .map(|(i, s)| i * s)
            .sum::<usize>()];
        let mut cell = |v: i64| -> Option<TermId> {
            let v = usize::try_from(v).ok().filter(|&v| v < extent)?;
            pos[axis] = v;
            Some(x.elems[pos.iter().zip(&xst).map(|(i, s)| i * s).sum::<usize>()])
        };
        let leaves = match terms.as_const(it) {
            Some(c) => {
                let v = const_index(c).ok_or_else(|| FormulaError {
                    message: format!("take: the index {c} is not an integer"),
                })?;
                let e = cell(v).unwrap_or_else(|| terms.zero());
                elems.push(e);
                continue;
            }
            None => terms.index_leaves(it).map_err(|e| FormulaError {
                message: format!("take: {e}"),
            })?,
        };
        let ids: Vec<TermId> = leaves.iter().map(|l| l.0).collect();
        let mut cells = Vec::new();
        for vals in Terms::index_cases(&leaves) {
            let fixed = terms.fix_leaves(it, &ids, &vals);
            let v = terms
                .as_const(fixed)
                .and_then(const_index)
                .ok_or_else(|| FormulaError {
                    message: "take: an index is not an integer".into(),
                })?;
            cells.push(cell(v));
        }
        elems.push(terms.gather(&leaves, &cells));
    }
    Ok(Dense { shape, elems })
}

/// An integral constant as an `i64`.
fn const_index(c: &BigRational) -> Option<i64> {
    use num_traits::ToPrimitive;
    c.is_integer().then(|| c.to_integer().to_i64()).flatten()
}

/// The operands side by side along `axis` (shapes agree elsewhere).
fn cat(parts: &[Dense], axis: usize) -> Dense {
    let mut shape = parts[0].shape.clone();
    shape[axis] = parts.iter().map(|p| p.shape[axis]).sum();
    let n: usize = shape.iter().product();
    let mut elems = Vec::with_capacity(n);
    for flat in 0..n {
        let mut idx = unravel(flat, &shape);
        let mut k = 0;
        while idx[axis] >= parts[k].shape[axis] {
            idx[axis] -= parts[k].shape[axis];
            k += 1;
        }
        let st = strides(&parts[k].shape);
        elems.push(parts[k].elems[idx.iter().zip(&st).map(|(i, s)| i * s).sum::<usize>()]);
    }
    Dense { shape, elems }
}

/// Indices `start..end` of `axis`.
fn slice(a: &Dense, axis: usize, start: usize, end: usize) -> Dense {
    let mut shape = a.shape.clone();
    shape[axis] = end - start;
    let st = strides(&a.shape);
    let n: usize = shape.iter().product();
    let elems = (0..n)
        .map(|flat| {
            let mut idx = unravel(flat, &shape);
            idx[axis] += start;
            a.elems[idx.iter().zip(&st).map(|(i, s)| i * s).sum::<usize>()]
        })
        .collect();
    Dense { shape, elems }
}

impl Formula {
    /// One term per element of the value, row-major, at the sizes of `env`. Input
    /// elements are `terms.input(name, &[i, j])`, scalars `terms.param(name)`.
    pub fn instantiate(
        &self,
        terms: &mut crate::term::Terms,
        env: &ShapeEnv,
    ) -> Result<Vec<crate::term::TermId>, FormulaError> {
        self.dims(env)?;
        Ok(run(self, terms, env)?.elems)
    }

    /// [`Formula::instantiate`] reusing (and adding to) the products of `products`,
    /// which must come from instantiations into this `terms` at this `env`.
    pub fn instantiate_reusing(
        &self,
        terms: &mut crate::term::Terms,
        env: &ShapeEnv,
        products: &mut Products,
    ) -> Result<Vec<crate::term::TermId>, FormulaError> {
        self.dims(env)?;
        Ok(run_in(self, terms, env, products)?.elems)
    }
}

/// Every offset `j` (row-major) of a kernel of extents `kernel`.
fn kernel_offsets(kernel: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = kernel.iter().product();
    (0..n).map(|f| unravel(f, kernel)).collect()
}

/// Position `i·s - p + j·d` of window `i`, offset `j`, along windowed axis `a`, or
/// `None` in the padding.
fn position(g: &Geometry, a: usize, i: usize, j: usize, n: usize) -> Option<usize> {
    let pos = (i * g.stride[a] + j * g.dilation[a]) as i64 - g.padding[a] as i64;
    (0..n as i64).contains(&pos).then_some(pos as usize)
}

/// The elements of a window formula at concrete sizes (operands already instantiated,
/// each a row-major tensor of `shape`); `out` is the formula's shape.
fn window_elems(
    terms: &mut Terms,
    op: WindowOp,
    g: &Geometry,
    args: &[(Vec<usize>, Vec<TermId>)],
    out: &[usize],
) -> Vec<TermId> {
    let nd = g.nd();
    let (xs, x) = (&args[0].0, &args[0].1);
    let xst = strides(xs);
    let lead = xs.len() - nd;
    let total: usize = out.iter().product();
    let mut elems = Vec::with_capacity(total);
    match op {
        WindowOp::MaxPool | WindowOp::AvgPool => {
            let offsets = kernel_offsets(&g.kernel);
            let inv = BigRational::new(BigInt::from(1), BigInt::from(offsets.len().max(1)));
            for flat in 0..total {
                let idx = unravel(flat, out);
                let base: usize = (0..lead).map(|k| idx[k] * xst[k]).sum();
                let window: Vec<TermId> = offsets
                    .iter()
                    .filter_map(|j| {
                        let mut at = base;
                        for a in 0..nd {
                            at +=
                                position(g, a, idx[lead + a], j[a], xs[lead + a])? * xst[lead + a];
                        }
                        Some(x[at])
                    })
                    .collect();
                elems.push(if op == WindowOp::MaxPool {
                    // Padding is -inf: it never wins; an all-padding window is -inf.
                    if window.is_empty() {
                        terms.inf(true)
                    } else {
                        terms.maxn(&window)
                    }
                } else {
                    let s = terms.sum(&window);
                    let c = terms.constant(inv.clone());
                    terms.mul(s, c)
                });
            }
        }
        WindowOp::Conv => {
            let (ws, w) = (&args[1].0, &args[1].1);
            let wst = strides(ws);
            let offsets = kernel_offsets(&ws[2..]);
            for flat in 0..total {
                let idx = unravel(flat, out);
                let (n, co) = (idx[0], idx[1]);
                let mut summands = Vec::new();
                if let Some((_, b)) = args.get(2) {
                    summands.push(b[co]);
                }
                for ci in 0..xs[1] {
                    for j in &offsets {
                        let mut at = n * xst[0] + ci * xst[1];
                        let mut inside = true;
                        for a in 0..nd {
                            match position(g, a, idx[2 + a], j[a], xs[2 + a]) {
                                Some(p) => at += p * xst[2 + a],
                                None => inside = false,
                            }
                        }
                        if inside {
                            let wat = co * wst[0]
                                + ci * wst[1]
                                + (0..nd).map(|a| j[a] * wst[2 + a]).sum::<usize>();
                            summands.push(terms.mul(x[at], w[wat]));
                        }
                    }
                }
                elems.push(terms.sum(&summands));
            }
        }
    }
    elems
}
