//! Shapes: the [`ShapeEnv`] a formula is read in (tensor shapes, scalars, sizes), the
//! [`Dim`]s of a value, the shape rules of every node ([`Formula::dims`], with NumPy
//! broadcasting and matmul), and the rewrites that need shapes.
//!
//! Invariant: a shape error is a [`FormulaError`] naming the node; nothing panics.

use crate::launch::Expr as Size;
use crate::launch::{ArgBinding, ArgValue, Launch, LaunchError, Role};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::expr::*;
use super::window::{Geometry, WindowOp};

/// What the names of a formula stand for: input tensor shapes, scalar names, and
/// (optionally) the size name of each tensor axis, for headings like `y[M,N]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ShapeEnv {
    pub tensors: BTreeMap<String, Vec<usize>>,
    pub scalars: BTreeSet<String>,
    /// tensor → one entry per axis: the size name (`"M"`) or `None`.
    pub dim_names: BTreeMap<String, Vec<Option<String>>>,
    /// The value of every size name (what `Slice`/`Broadcast` bounds are evaluated at).
    pub sizes: BTreeMap<String, i64>,
    /// tensor (inputs and outputs) → its shape as size expressions.
    pub dim_exprs: BTreeMap<String, Vec<Size>>,
    /// Integer input tensor → the values the launch declares for its elements (labels,
    /// `values = ["0..N", -100]`): what a gather's index splits over
    /// ([`ShapeEnv::declare_int_values`]).
    pub int_values: BTreeMap<String, Vec<i64>>,
}

impl ShapeEnv {
    pub fn new() -> ShapeEnv {
        ShapeEnv::default()
    }

    /// Adds an input tensor.
    pub fn tensor(mut self, name: &str, shape: &[usize]) -> ShapeEnv {
        self.tensors.insert(name.to_string(), shape.to_vec());
        self
    }

    /// Adds an input tensor with the size name of each axis.
    pub fn named_tensor(mut self, name: &str, shape: &[(&str, usize)]) -> ShapeEnv {
        self.tensors
            .insert(name.to_string(), shape.iter().map(|d| d.1).collect());
        self.dim_names.insert(
            name.to_string(),
            shape.iter().map(|d| Some(d.0.to_string())).collect(),
        );
        self
    }

    /// Adds a scalar.
    pub fn scalar(mut self, name: &str) -> ShapeEnv {
        self.scalars.insert(name.to_string());
        self
    }

    /// Adds a size name with its value.
    pub fn size(mut self, name: &str, value: i64) -> ShapeEnv {
        self.sizes.insert(name.to_string(), value);
        self
    }

    /// Declares in `terms` the values of every integer input of [`ShapeEnv::int_values`],
    /// as the kernel's execution does, so a gather instantiates to the kernel's tree.
    pub fn declare_int_values(&self, terms: &mut crate::term::Terms) {
        for (name, values) in &self.int_values {
            terms.declare_int_values(name, values);
        }
    }

    /// The value of a size expression, as an extent or index (non-negative).
    pub fn eval(&self, e: &Size) -> Result<usize, FormulaError> {
        let v = e
            .eval(&self.sizes)
            .map_err(|m| FormulaError { message: m })?;
        usize::try_from(v).map_err(|_| FormulaError {
            message: format!("size expression `{e}` is negative ({v})"),
        })
    }

    /// The inputs (roles `in`/`inout`), symbolic scalars and size names of a launch at
    /// `sizes` (overriding its defaults).
    pub fn from_launch(
        launch: &Launch,
        sizes: &BTreeMap<String, i64>,
    ) -> Result<ShapeEnv, LaunchError> {
        let inst = launch.instantiate(sizes)?;
        let mut env = ShapeEnv::new();
        for t in &inst.tensors {
            if t.role != Role::Out {
                env.tensors.insert(t.name.clone(), t.shape.clone());
                if let (Some(_), Some(v)) = (t.dtype.int_range(), &t.values) {
                    env.int_values.insert(t.name.clone(), v.clone());
                }
            }
        }
        for v in inst.args.values() {
            if let ArgValue::Scalar(s) = v {
                env.scalars.insert(s.clone());
            }
        }
        env.sizes = inst.sizes.clone();
        for b in launch.args.values() {
            if let ArgBinding::Tensor { tensor, shape, .. } = b {
                env.dim_exprs.insert(tensor.clone(), shape.clone());
                let names = shape
                    .iter()
                    .map(|e| match e {
                        crate::launch::Expr::Size(s) => Some(s.clone()),
                        _ => None,
                    })
                    .collect();
                env.dim_names.insert(tensor.clone(), names);
            }
        }
        Ok(env)
    }
}

/// One axis of a shape: its size and, where known, the size name it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dim {
    pub size: usize,
    pub name: Option<String>,
}

/// A formula that does not type-check: what and where (the offending sub-formula,
/// printed in the text form).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormulaError {
    pub message: String,
}

impl fmt::Display for FormulaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FormulaError {}

pub(super) fn err<T>(message: String) -> Result<T, FormulaError> {
    Err(FormulaError { message })
}

/// NumPy broadcasting of two shapes (names: the first known name of equal axes, the
/// non-1 side's name otherwise).
pub fn broadcast(a: &[Dim], b: &[Dim]) -> Option<Vec<Dim>> {
    let n = a.len().max(b.len());
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let da = (i + a.len()).checked_sub(n).map(|k| &a[k]);
        let db = (i + b.len()).checked_sub(n).map(|k| &b[k]);
        let d = match (da, db) {
            (Some(x), None) | (None, Some(x)) => x.clone(),
            (Some(x), Some(y)) if x.size == y.size => Dim {
                size: x.size,
                name: x.name.clone().or_else(|| y.name.clone()),
            },
            (Some(x), Some(y)) if x.size == 1 => y.clone(),
            (Some(x), Some(y)) if y.size == 1 => x.clone(),
            _ => return None,
        };
        out.push(d);
    }
    Some(out)
}

pub(super) fn sizes(d: &[Dim]) -> Vec<usize> {
    d.iter().map(|d| d.size).collect()
}

impl Formula {
    /// The same values with a unit axis inserted at `axis` of the result (NumPy's
    /// `expand_dims`), pushed down to the reduction that removed that axis: a row
    /// statistic `rsqrt(mean(v, axis=1) + eps)` becomes its keepdim form. `None` where
    /// that takes an operator this does not rewrite.
    pub fn with_unit_axis(&self, axis: usize, env: &ShapeEnv) -> Option<Formula> {
        let rank = self.shape(env).ok()?.len();
        // An operand of rank `r` broadcasts against the result's last `r` axes: it
        // stays as it is where the new axis comes before them, else takes the axis
        // itself. Some operand must carry the new axis (checked at the end).
        let operand = |f: &Formula| -> Option<Formula> {
            let r = f.shape(env).ok()?.len();
            if axis + r <= rank && r < rank {
                Some(f.clone())
            } else if axis + r <= rank {
                // Full rank, new leading axis: taken where possible, else broadcast.
                Some(f.with_unit_axis(0, env).unwrap_or_else(|| f.clone()))
            } else {
                f.with_unit_axis(axis + r - rank, env)
            }
        };
        Some(match self {
            Formula::Scalar(_) | Formula::Const(_) | Formula::Inf { .. } => self.clone(),
            Formula::Reduce {
                op,
                axis: a,
                keepdim: false,
                arg,
            } if *a == axis => Formula::reduce(*op, (**arg).clone(), *a, true),
            Formula::Unary(op, a) => Formula::unary(*op, operand(a)?),
            Formula::Powi(a, k) => operand(a)?.powi(*k),
            Formula::Binary(op, a, b) => Formula::binary(*op, operand(a)?, operand(b)?),
            Formula::Cmp(op, a, b) => Formula::cmp(*op, operand(a)?, operand(b)?),
            Formula::Select(c, a, b) => Formula::select(operand(c)?, operand(a)?, operand(b)?),
            _ => return None,
        })
        .filter(|f| f.shape(env).is_ok_and(|s| s.len() == rank + 1))
    }

    /// `(a / r) @ b` rewritten as `(a @ b) / r` wherever `a` and `b` are matrices (or
    /// batches of them) and `r` is a reduction of an operand of `a`'s rank along its last
    /// axis kept as a unit axis (`softmax(s) @ v`, whose row sums divide every product of
    /// the row): `Σ_n (a[i,n] / r[i]) · b[n,j] = (Σ_n a[i,n] · b[n,j]) / r[i]` over the
    /// reals, batch by batch. Flash attention divides once at the end, and its loop
    /// accumulates `a @ b`, which this form names.
    pub fn divisors_out_of_matmuls(self, env: &ShapeEnv) -> Formula {
        let f = self.map_children(&mut |c| c.divisors_out_of_matmuls(env));
        let rank = |x: &Formula| x.shape(env).map(|s| s.len()).ok();
        match f {
            Formula::MatMul(a, b) => match *a {
                Formula::Binary(BinaryOp::Div, num, r)
                    if rank(&num).is_some_and(|n| n >= 2)
                        && rank(&b).is_some_and(|n| n >= 2)
                        && matches!(&*r, Formula::Reduce { axis, keepdim: true, arg, .. }
                            if rank(arg) == rank(&num) && Some(axis + 1) == rank(&num)) =>
                {
                    Formula::Binary(BinaryOp::Div, Box::new(Formula::MatMul(num, b)), r)
                }
                a => Formula::MatMul(Box::new(a), b),
            },
            f => f,
        }
    }

    // ---- shapes --------------------------------------------------------------------

    /// The shape of a gather ([`Formula::Take`]): `Along`, the index's, which must be
    /// the data's without `axis`; `Index`, the data's with `axis` replaced by the
    /// index's axes.
    fn take_dims(
        &self,
        kind: TakeKind,
        axis: usize,
        data: &Formula,
        index: &Formula,
        env: &ShapeEnv,
    ) -> Result<Vec<Dim>, FormulaError> {
        let (dd, di) = (data.dims(env)?, index.dims(env)?);
        if axis >= dd.len() {
            return err(format!(
                "axis {axis} out of range for shape {:?} in {}",
                sizes(&dd),
                self
            ));
        }
        match kind {
            TakeKind::Along => {
                let mut rest = dd.clone();
                rest.remove(axis);
                if sizes(&rest) != sizes(&di) {
                    return err(format!(
                        "an index of shape {:?} does not take along axis {axis} of shape {:?} in {}",
                        sizes(&di),
                        sizes(&dd),
                        self
                    ));
                }
                Ok(di)
            }
            TakeKind::Index => Ok([&dd[..axis], &di[..], &dd[axis + 1..]].concat()),
        }
    }

    /// The shape of the formula's value (row-major), or why it does not type-check.
    pub fn shape(&self, env: &ShapeEnv) -> Result<Vec<usize>, FormulaError> {
        self.dims(env).map(|d| sizes(&d))
    }

    /// The shape with the size name of each axis where it can be traced to a named axis
    /// of an input tensor (broadcasting keeps names; reductions with `keepdim` and
    /// matmul's contracted axis lose them).
    pub fn dims(&self, env: &ShapeEnv) -> Result<Vec<Dim>, FormulaError> {
        match self {
            Formula::Input(n) => match env.tensors.get(n) {
                Some(shape) => {
                    let names = env.dim_names.get(n);
                    Ok(shape
                        .iter()
                        .enumerate()
                        .map(|(i, &size)| Dim {
                            size,
                            name: names.and_then(|v| v.get(i).cloned().flatten()),
                        })
                        .collect())
                }
                None if env.scalars.contains(n) => {
                    err(format!("`{n}` is a scalar, used as the tensor Input({n})"))
                }
                None => err(format!("unknown input tensor `{n}`")),
            },
            Formula::Scalar(n) => {
                if env.scalars.contains(n) {
                    Ok(vec![])
                } else {
                    err(format!("unknown scalar `{n}`"))
                }
            }
            Formula::Const(_) | Formula::Inf { .. } => Ok(vec![]),
            Formula::Arange(n) => size_dims(std::slice::from_ref(n), env),
            Formula::Unary(_, a) | Formula::Powi(a, _) | Formula::Rand { offset: a, .. } => {
                a.dims(env)
            }
            Formula::Binary(_, a, b) | Formula::Cmp(_, a, b) => {
                let (da, db) = (a.dims(env)?, b.dims(env)?);
                broadcast(&da, &db).ok_or_else(|| FormulaError {
                    message: format!(
                        "shapes {:?} and {:?} do not broadcast in {}",
                        sizes(&da),
                        sizes(&db),
                        self
                    ),
                })
            }
            Formula::Select(c, a, b) => {
                let (dc, da, db) = (c.dims(env)?, a.dims(env)?, b.dims(env)?);
                broadcast(&dc, &da)
                    .and_then(|d| broadcast(&d, &db))
                    .ok_or_else(|| FormulaError {
                        message: format!(
                            "shapes {:?}, {:?} and {:?} do not broadcast in {}",
                            sizes(&dc),
                            sizes(&da),
                            sizes(&db),
                            self
                        ),
                    })
            }
            Formula::Reduce {
                op,
                axis,
                keepdim,
                arg,
            } => {
                let mut d = arg.dims(env)?;
                if *axis >= d.len() {
                    return err(format!(
                        "axis {axis} out of range for shape {:?} in {}",
                        sizes(&d),
                        self
                    ));
                }
                if matches!(op, ReduceOp::ArgMax | ReduceOp::ArgMin) && d[*axis].size == 0 {
                    return err(format!("{} of an empty axis in {}", op.name(), self));
                }
                if *keepdim {
                    d[*axis] = Dim {
                        size: 1,
                        name: None,
                    };
                } else {
                    d.remove(*axis);
                }
                Ok(d)
            }
            Formula::MatMul(a, b) => {
                let (da, db) = (a.dims(env)?, b.dims(env)?);
                matmul_dims(&da, &db).ok_or_else(|| FormulaError {
                    message: format!(
                        "shapes {:?} and {:?} do not multiply in {}",
                        sizes(&da),
                        sizes(&db),
                        self
                    ),
                })
            }
            Formula::Transpose(a) => {
                let mut d = a.dims(env)?;
                let n = d.len();
                if n < 2 {
                    return err(format!(
                        "transpose needs at least 2 axes, shape {:?} in {}",
                        sizes(&d),
                        self
                    ));
                }
                d.swap(n - 2, n - 1);
                Ok(d)
            }
            Formula::Cat { axis, args } => self.cat_dims(*axis, args, env),
            Formula::Window { op, args, geometry } => window_dims(self, *op, args, geometry, env),
            Formula::Take {
                kind,
                axis,
                data,
                index,
            } => self.take_dims(*kind, *axis, data, index, env),
            Formula::Recurrence { axis, a, x } => {
                let (da, d) = (a.dims(env)?, x.dims(env)?);
                if *axis >= d.len() || da != d {
                    return err(format!(
                        "a recurrence along axis {axis} needs a and x of one shape, not {:?} and {:?}, in {}",
                        sizes(&da),
                        sizes(&d),
                        self
                    ));
                }
                Ok(d)
            }
            Formula::Scan { axis, arg, .. } => {
                let d = arg.dims(env)?;
                if *axis >= d.len() {
                    return err(format!(
                        "axis {axis} out of range for shape {:?} in {}",
                        sizes(&d),
                        self
                    ));
                }
                Ok(d)
            }
            Formula::Tri { arg, .. } => {
                let d = arg.dims(env)?;
                if d.len() < 2 {
                    return err(format!(
                        "tril/triu needs at least 2 axes, shape {:?} in {}",
                        sizes(&d),
                        self
                    ));
                }
                Ok(d)
            }
            Formula::Slice {
                arg,
                axis,
                start,
                end,
            } => {
                let mut d = arg.dims(env)?;
                let Some(dim) = d.get(*axis) else {
                    return err(format!(
                        "axis {axis} out of range for shape {:?} in {}",
                        sizes(&d),
                        self
                    ));
                };
                let s = env.eval(start)?;
                let e = match end {
                    Some(e) => env.eval(e)?,
                    None => dim.size,
                };
                if s > e || e > dim.size {
                    return err(format!(
                        "slice {s}:{e} out of range for an axis of size {} in {}",
                        dim.size, self
                    ));
                }
                let name = match (s, end) {
                    (0, Some(Size::Size(n))) => Some(n.clone()),
                    (0, None) => dim.name.clone(),
                    _ => None,
                };
                d[*axis] = Dim { size: e - s, name };
                Ok(d)
            }
            Formula::Unsqueeze { arg, axis } => {
                let mut d = arg.dims(env)?;
                if *axis > d.len() {
                    return err(format!(
                        "axis {axis} out of range to insert into shape {:?} in {}",
                        sizes(&d),
                        self
                    ));
                }
                d.insert(
                    *axis,
                    Dim {
                        size: 1,
                        name: None,
                    },
                );
                Ok(d)
            }
            Formula::Reshape { arg, shape } => {
                let da = arg.dims(env)?;
                let target = size_dims(shape, env)?;
                let count = |d: &[Dim]| d.iter().map(|d| d.size).product::<usize>();
                if count(&da) != count(&target) {
                    return err(format!(
                        "shape {:?} ({} elements) does not reshape to {:?} ({} elements) in {}",
                        sizes(&da),
                        count(&da),
                        sizes(&target),
                        count(&target),
                        self
                    ));
                }
                Ok(target)
            }
            Formula::Broadcast { arg, shape } => {
                let da = arg.dims(env)?;
                let target = size_dims(shape, env)?;
                match broadcast(&da, &target) {
                    Some(b) if sizes(&b) == sizes(&target) => Ok(target),
                    _ => err(format!(
                        "shape {:?} does not broadcast to {:?} in {}",
                        sizes(&da),
                        sizes(&target),
                        self
                    )),
                }
            }
        }
    }

    fn cat_dims(
        &self,
        axis: usize,
        args: &[Formula],
        env: &ShapeEnv,
    ) -> Result<Vec<Dim>, FormulaError> {
        let mut out: Option<Vec<Dim>> = None;
        for a in args {
            let d = a.dims(env)?;
            if axis >= d.len() {
                return err(format!(
                    "axis {axis} out of range for shape {:?} in {}",
                    sizes(&d),
                    self
                ));
            }
            match &mut out {
                None => out = Some(d),
                Some(o) => {
                    let same_rest = o.len() == d.len()
                        && (0..d.len()).all(|k| k == axis || o[k].size == d[k].size);
                    if !same_rest {
                        return err(format!(
                            "shapes {:?} and {:?} do not concatenate along axis {axis} in {}",
                            sizes(o),
                            sizes(&d),
                            self
                        ));
                    }
                    o[axis] = Dim {
                        size: o[axis].size + d[axis].size,
                        name: None,
                    };
                }
            }
        }
        out.ok_or_else(|| FormulaError {
            message: "cat of no operands".into(),
        })
    }
}

/// The dims of a shape written in size expressions (a size name names its axis).
fn size_dims(shape: &[Size], env: &ShapeEnv) -> Result<Vec<Dim>, FormulaError> {
    shape
        .iter()
        .map(|e| {
            Ok(Dim {
                size: env.eval(e)?,
                name: match e {
                    Size::Size(n) => Some(n.clone()),
                    _ => None,
                },
            })
        })
        .collect()
}

/// NumPy matmul shapes: 1-D operands are promoted (a vector on the left gets a leading 1,
/// on the right a trailing 1, removed again from the result); batch axes broadcast.
pub fn matmul_dims(a: &[Dim], b: &[Dim]) -> Option<Vec<Dim>> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let one = || Dim {
        size: 1,
        name: None,
    };
    let (mut a2, mut b2) = (a.to_vec(), b.to_vec());
    if a.len() == 1 {
        a2.insert(0, one());
    }
    if b.len() == 1 {
        b2.push(one());
    }
    let (na, nb) = (a2.len(), b2.len());
    if a2[na - 1].size != b2[nb - 2].size {
        return None;
    }
    let mut out = broadcast(&a2[..na - 2], &b2[..nb - 2])?;
    if a.len() > 1 {
        out.push(a2[na - 2].clone());
    }
    if b.len() > 1 {
        out.push(b2[nb - 1].clone());
    }
    Some(out)
}

/// The shape of a window formula, or what is wrong with it.
fn window_dims(
    f: &Formula,
    op: WindowOp,
    args: &[Formula],
    g: &Geometry,
    env: &ShapeEnv,
) -> Result<Vec<Dim>, FormulaError> {
    let here = || f.to_string();
    let nd = g.nd();
    let ok_geometry = nd > 0
        && g.padding.len() == nd
        && g.dilation.len() == nd
        && (op == WindowOp::Conv || g.kernel.len() == nd)
        && g.stride.iter().chain(&g.dilation).all(|&v| v > 0);
    if !ok_geometry {
        return err(format!("malformed window geometry {g:?} in {}", here()));
    }
    let x = args[0].dims(env)?;
    let kernel: Vec<usize> = match op {
        WindowOp::MaxPool | WindowOp::AvgPool => {
            if args.len() != 1 || x.len() < nd + 1 {
                return err(format!(
                    "{} needs one operand of at least {} axes in {}",
                    op.name(nd),
                    nd + 1,
                    here()
                ));
            }
            g.kernel.clone()
        }
        WindowOp::Conv => {
            let w = match args.get(1) {
                Some(w) if args.len() <= 3 => w.dims(env)?,
                _ => {
                    return err(format!(
                        "{} needs an input, a weight and an optional bias in {}",
                        op.name(nd),
                        here()
                    ))
                }
            };
            if x.len() != nd + 2 || w.len() != nd + 2 || x[1].size != w[1].size {
                return err(format!(
                    "{} of input {:?} and weight {:?}: needs [N, Ci, ..] and [Co, Ci, ..] with {nd} windowed axes in {}",
                    op.name(nd),
                    sizes(&x),
                    sizes(&w),
                    here()
                ));
            }
            if let Some(b) = args.get(2) {
                let b = b.dims(env)?;
                if b.len() != 1 || b[0].size != w[0].size {
                    return err(format!(
                        "bias of shape {:?} for {} output channels in {}",
                        sizes(&b),
                        w[0].size,
                        here()
                    ));
                }
            }
            w[2..].iter().map(|d| d.size).collect()
        }
    };
    let lead = x.len() - nd;
    let mut out: Vec<Dim> = x[..lead].to_vec();
    if op == WindowOp::Conv {
        out[1] = args[1].dims(env)?[0].clone();
    }
    for a in 0..nd {
        let Some(n) = g.windows(a, x[lead + a].size, kernel[a]) else {
            return err(format!(
                "a window of {} (dilation {}) does not fit axis {} of extent {} padded by {} in {}",
                kernel[a],
                g.dilation[a],
                lead + a,
                x[lead + a].size,
                g.padding[a],
                here()
            ));
        };
        out.push(Dim {
            size: n,
            name: None,
        });
    }
    Ok(out)
}
