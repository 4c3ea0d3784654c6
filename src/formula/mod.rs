//! Formulas: the tensor language `lift` lifts kernels to, e.g.
//! `y[M,N] = exp(x - max(x, axis=1)) / sum(exp(x - max(x, axis=1)), axis=1)`.
//!
//! Architecture invariant: this module depends only on `term` (and `launch`, to read a
//! [`ShapeEnv`] off a launch). A [`Formula`] is a plain tree over named launch tensors and
//! scalars; it has a shape ([`Formula::shape`]) and, at concrete sizes, one term per
//! output element ([`Formula::instantiate`]), built with the same `Terms` constructors the
//! kernels' execution and the PyTorch specs use, so that `decide` can compare them.
//! Nothing here panics on a malformed formula: shape errors are [`FormulaError`]s.
//!
//! Grammar (kept small on purpose; idioms such as `sigmoid` are recognised by renderers
//! and `simplify`, not by the grammar):
//! ```text
//! f ::= Input(name)                 a launch tensor
//!     | Scalar(name)                a real scalar argument (0-d)
//!     | Const(p/q)                  an exact rational (0-d)
//!     | Unary(op, f)                neg exp exp2 log log2 sqrt rsqrt tanh sin cos erf abs
//!     | Binary(op, f, f)            add sub mul div max min, NumPy broadcasting
//!     | Powi(f, k)                  integer power
//!     | Cmp(op, f, f)               < <= > >= == != (0/1-valued), broadcasting
//!     | Select(c, f, f)             where(c, a, b), broadcasting over all three
//!     | Reduce { op, axis, keepdim, arg }   sum max min mean prod argmax argmin over
//!                                   one axis (argmax/argmin: PyTorch's first index)
//!     | Scan { op, axis, arg }      cumsum / cumprod along one axis
//!     | Tri { arg, upper, diagonal }  tril / triu of the last two axes (zeros elsewhere)
//!     | MatMul(f, f)                NumPy `@` (1-D operands and batch dims as NumPy)
//!     | Transpose(f)                swaps the last two axes (needs ≥ 2 axes)
//!     | Cat(axis, [f, ...])         concatenation along an axis (equal ranks, other axes equal)
//!     | Slice(f, axis, start, end)  `f[.., start:end]` along one axis; bounds are size
//!                                   expressions (`H`, `2 * H`), `end` absent = to the end
//!     | Unsqueeze(f, axis)          `f` with a new axis of extent 1 at `axis`
//!     | Broadcast(f, [size, ...])   `f` broadcast to a shape of size expressions (a
//!                                   constant output, `y[N] = 0`)
//!     | Reshape(f, [size, ...])     `f`'s elements, row-major, in a shape of size
//!                                   expressions with the same count (`x.view(-1, 4)`)
//!     | Window(op, [f, ...], geometry)  max/avg pooling and convolution over the
//!                                   trailing axes, PyTorch's geometry (`window.rs`)
//! ```
//! Sizes in `Slice`/`Broadcast`/`Reshape` are launch size expressions ([`Size`]), evaluated at the
//! sizes of the [`ShapeEnv`], so one formula holds at every instance.
//! Semantics: elements are reals; `mean = sum · (1/n)` with `1/n` an exact constant;
//! reductions are one n-ary `sum`/`maxn`/`minn` term per output element; the product of a
//! matmul is one n-ary `sum` of binary products. There is no `Let`: shared
//! subexpressions are repeated (renderers print them once per occurrence).

mod instantiate;
pub mod window;

/// A size expression of a launch (`N`, `2 * H`, `N1 + N2`), as in shapes and bounds.
pub use crate::launch::Expr as Size;
use crate::launch::{ArgBinding, ArgValue, Launch, LaunchError, Role};
use crate::term::{CmpOp, Func};
use num_bigint::BigInt;
use num_rational::BigRational;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
pub use window::{Geometry, WindowOp};

/// Element-wise unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnaryOp {
    Neg,
    Exp,
    /// `2^x`
    Exp2,
    Log,
    Log2,
    Sqrt,
    Rsqrt,
    Tanh,
    Sin,
    Cos,
    Erf,
    Abs,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 12] = [
        UnaryOp::Neg,
        UnaryOp::Exp,
        UnaryOp::Exp2,
        UnaryOp::Log,
        UnaryOp::Log2,
        UnaryOp::Sqrt,
        UnaryOp::Rsqrt,
        UnaryOp::Tanh,
        UnaryOp::Sin,
        UnaryOp::Cos,
        UnaryOp::Erf,
        UnaryOp::Abs,
    ];

    /// The term function it applies (`None` for `Neg`).
    pub fn func(self) -> Option<Func> {
        Some(match self {
            UnaryOp::Neg => return None,
            UnaryOp::Exp => Func::Exp,
            UnaryOp::Exp2 => Func::Exp2,
            UnaryOp::Log => Func::Log,
            UnaryOp::Log2 => Func::Log2,
            UnaryOp::Sqrt => Func::Sqrt,
            UnaryOp::Rsqrt => Func::Rsqrt,
            UnaryOp::Tanh => Func::Tanh,
            UnaryOp::Sin => Func::Sin,
            UnaryOp::Cos => Func::Cos,
            UnaryOp::Erf => Func::Erf,
            UnaryOp::Abs => Func::Abs,
        })
    }

    /// The op applying the term function `f`, where the grammar has one (`floor`/`ceil`
    /// have none).
    pub fn from_func(f: Func) -> Option<UnaryOp> {
        UnaryOp::ALL.into_iter().find(|u| u.func() == Some(f))
    }

    /// Lower-case name, as in the text rendering and the JSON schema (`"neg"`, `"exp"`).
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Exp => "exp",
            UnaryOp::Exp2 => "exp2",
            UnaryOp::Log => "log",
            UnaryOp::Log2 => "log2",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Rsqrt => "rsqrt",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Sin => "sin",
            UnaryOp::Cos => "cos",
            UnaryOp::Erf => "erf",
            UnaryOp::Abs => "abs",
        }
    }
}

/// Element-wise binary operators (NumPy broadcasting).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    /// NaN-propagating, as `torch.maximum`.
    Max,
    Min,
    /// The operand that is not NaN, as `torch.fmax`/`np.fmax` (IEEE maxNum).
    FMax,
    FMin,
}

impl BinaryOp {
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Max => "maximum",
            BinaryOp::Min => "minimum",
            BinaryOp::FMax => "fmax",
            BinaryOp::FMin => "fmin",
        }
    }
}

/// Reductions over one axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReduceOp {
    Sum,
    Max,
    Min,
    Mean,
    Prod,
    /// The first index of the maximum (PyTorch's `argmax`), an exact integer.
    ArgMax,
    ArgMin,
}

impl ReduceOp {
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::Mean => "mean",
            ReduceOp::Prod => "prod",
            ReduceOp::ArgMax => "argmax",
            ReduceOp::ArgMin => "argmin",
        }
    }
}

/// Scans along one axis: element `i` is the sum (product) of elements `0..=i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScanOp {
    Sum,
    Prod,
}

impl ScanOp {
    pub fn name(self) -> &'static str {
        match self {
            ScanOp::Sum => "cumsum",
            ScanOp::Prod => "cumprod",
        }
    }
}

/// Name of a comparison in the JSON schema (`lt le gt ge eq ne`).
pub fn cmp_name(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Lt => "lt",
        CmpOp::Le => "le",
        CmpOp::Gt => "gt",
        CmpOp::Ge => "ge",
        CmpOp::Eq => "eq",
        CmpOp::Ne => "ne",
    }
}

/// Infix symbol of a comparison (`<`, `<=`, ...).
pub fn cmp_symbol(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
    }
}

/// A tensor formula (see the module documentation for the grammar).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Formula {
    Input(String),
    Scalar(String),
    Const(BigRational),
    /// `-inf` (`negative`) or `inf`: the fill of masked scores (causal attention's
    /// `where(j <= i, s, -inf)`). Extended reals exist only here and in the terms;
    /// the all-sizes verifier, whose formulas are real, refuses it.
    Inf {
        negative: bool,
    },
    Unary(UnaryOp, Box<Formula>),
    Binary(BinaryOp, Box<Formula>, Box<Formula>),
    Powi(Box<Formula>, i32),
    Cmp(CmpOp, Box<Formula>, Box<Formula>),
    Select(Box<Formula>, Box<Formula>, Box<Formula>),
    Reduce {
        op: ReduceOp,
        axis: usize,
        keepdim: bool,
        arg: Box<Formula>,
    },
    MatMul(Box<Formula>, Box<Formula>),
    Transpose(Box<Formula>),
    /// `cumsum(arg, axis)` / `cumprod(arg, axis)`.
    Scan {
        op: ScanOp,
        axis: usize,
        arg: Box<Formula>,
    },
    /// `tril(arg, diagonal)` (`upper`: `triu`): element `[.., i, j]` is kept where
    /// `j - i <= diagonal` (`>=` for triu), else 0. Needs at least 2 axes.
    Tri {
        arg: Box<Formula>,
        upper: bool,
        diagonal: i64,
    },
    /// Concatenation of the operands along `axis`.
    Cat {
        axis: usize,
        args: Vec<Formula>,
    },
    /// `arg[.., start:end, ..]` along `axis`; `end: None` is the end of the axis.
    Slice {
        arg: Box<Formula>,
        axis: usize,
        start: Size,
        end: Option<Size>,
    },
    /// `arg` with a new axis of extent 1 at `axis` (`arg.unsqueeze(axis)`, `x[:, None]`):
    /// what NumPy's broadcasting, which aligns trailing axes, needs to spread a tensor
    /// over a middle axis (RoPE's `cos[:, None, :]` over the heads).
    Unsqueeze {
        arg: Box<Formula>,
        axis: usize,
    },
    /// `arg` broadcast (NumPy rules) to `shape`.
    Broadcast {
        arg: Box<Formula>,
        shape: Vec<Size>,
    },
    /// `arg.reshape(shape)`: the same elements in row-major order (NumPy's and
    /// PyTorch's), in a shape with the same element count. A kernel writing one partial
    /// result per block reads its input so (`x.view(-1, 4).sum(1)`).
    Reshape {
        arg: Box<Formula>,
        shape: Vec<Size>,
    },
    /// Pooling or convolution over the trailing axes (`window.rs`): `args` is `[x]`
    /// for a pool, `[x, w]` or `[x, w, b]` for a convolution.
    Window {
        op: WindowOp,
        args: Vec<Formula>,
        geometry: Geometry,
    },
}

/// One output of a lifted kernel: `name = formula`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Output {
    pub name: String,
    pub formula: Formula,
    /// The formula is a PyTorch spec's reading (`check`), not a kernel's lifted formula:
    /// where it is NaN outside its domain, a kernel's value refines it
    /// (`decide::SpecSide`).
    pub spec: bool,
}

impl Output {
    pub fn new(name: &str, formula: Formula) -> Output {
        Output {
            name: name.to_string(),
            formula,
            spec: false,
        }
    }
}

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

fn err<T>(message: String) -> Result<T, FormulaError> {
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

fn sizes(d: &[Dim]) -> Vec<usize> {
    d.iter().map(|d| d.size).collect()
}

impl Formula {
    // ---- constructors --------------------------------------------------------------

    pub fn input(name: &str) -> Formula {
        Formula::Input(name.to_string())
    }
    pub fn scalar(name: &str) -> Formula {
        Formula::Scalar(name.to_string())
    }
    pub fn int(v: i64) -> Formula {
        Formula::Const(BigRational::from_integer(BigInt::from(v)))
    }
    /// The exact value of `v`. Panics if `v` is not finite (formulas have no ±inf/NaN).
    pub fn float(v: f64) -> Formula {
        Formula::Const(BigRational::from_float(v).expect("finite constant"))
    }
    /// `p / q` exactly.
    pub fn ratio(p: i64, q: i64) -> Formula {
        Formula::Const(BigRational::new(BigInt::from(p), BigInt::from(q)))
    }
    pub fn unary(op: UnaryOp, a: Formula) -> Formula {
        Formula::Unary(op, Box::new(a))
    }
    pub fn binary(op: BinaryOp, a: Formula, b: Formula) -> Formula {
        Formula::Binary(op, Box::new(a), Box::new(b))
    }
    pub fn exp(self) -> Formula {
        Formula::unary(UnaryOp::Exp, self)
    }
    pub fn log(self) -> Formula {
        Formula::unary(UnaryOp::Log, self)
    }
    pub fn sqrt(self) -> Formula {
        Formula::unary(UnaryOp::Sqrt, self)
    }
    pub fn rsqrt(self) -> Formula {
        Formula::unary(UnaryOp::Rsqrt, self)
    }
    pub fn tanh(self) -> Formula {
        Formula::unary(UnaryOp::Tanh, self)
    }
    pub fn erf(self) -> Formula {
        Formula::unary(UnaryOp::Erf, self)
    }
    pub fn maximum(self, b: Formula) -> Formula {
        Formula::binary(BinaryOp::Max, self, b)
    }
    pub fn minimum(self, b: Formula) -> Formula {
        Formula::binary(BinaryOp::Min, self, b)
    }
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
    pub fn powi(self, k: i32) -> Formula {
        Formula::Powi(Box::new(self), k)
    }
    pub fn cmp(op: CmpOp, a: Formula, b: Formula) -> Formula {
        Formula::Cmp(op, Box::new(a), Box::new(b))
    }
    pub fn select(c: Formula, a: Formula, b: Formula) -> Formula {
        Formula::Select(Box::new(c), Box::new(a), Box::new(b))
    }
    pub fn reduce(op: ReduceOp, arg: Formula, axis: usize, keepdim: bool) -> Formula {
        Formula::Reduce {
            op,
            axis,
            keepdim,
            arg: Box::new(arg),
        }
    }
    pub fn sum(self, axis: usize, keepdim: bool) -> Formula {
        Formula::reduce(ReduceOp::Sum, self, axis, keepdim)
    }
    pub fn max(self, axis: usize, keepdim: bool) -> Formula {
        Formula::reduce(ReduceOp::Max, self, axis, keepdim)
    }
    pub fn min(self, axis: usize, keepdim: bool) -> Formula {
        Formula::reduce(ReduceOp::Min, self, axis, keepdim)
    }
    pub fn mean(self, axis: usize, keepdim: bool) -> Formula {
        Formula::reduce(ReduceOp::Mean, self, axis, keepdim)
    }
    pub fn matmul(self, b: Formula) -> Formula {
        Formula::MatMul(Box::new(self), Box::new(b))
    }
    pub fn scan(op: ScanOp, arg: Formula, axis: usize) -> Formula {
        Formula::Scan {
            op,
            axis,
            arg: Box::new(arg),
        }
    }
    /// `tril(self, diagonal)`, or `triu` when `upper`.
    pub fn tri(self, upper: bool, diagonal: i64) -> Formula {
        Formula::Tri {
            arg: Box::new(self),
            upper,
            diagonal,
        }
    }
    /// Swaps the last two axes.
    pub fn t(self) -> Formula {
        Formula::Transpose(Box::new(self))
    }
    /// Concatenation along `axis`.
    pub fn cat(args: Vec<Formula>, axis: usize) -> Formula {
        Formula::Cat { axis, args }
    }
    /// `self[.., start:end, ..]` along `axis` (`end: None`: to the end).
    pub fn slice(self, axis: usize, start: Size, end: Option<Size>) -> Formula {
        Formula::Slice {
            arg: Box::new(self),
            axis,
            start,
            end,
        }
    }
    /// Pooling or convolution (see [`window`]).
    pub fn window(op: WindowOp, args: Vec<Formula>, geometry: Geometry) -> Formula {
        Formula::Window { op, args, geometry }
    }
    /// `self` with a new axis of extent 1 at `axis`.
    pub fn unsqueeze(self, axis: usize) -> Formula {
        Formula::Unsqueeze {
            arg: Box::new(self),
            axis,
        }
    }
    /// `self` broadcast to `shape`.
    pub fn broadcast_to(self, shape: Vec<Size>) -> Formula {
        Formula::Broadcast {
            arg: Box::new(self),
            shape,
        }
    }
    /// `self.reshape(shape)` (a reshape of a reshape reshapes the original: the
    /// row-major order is the same).
    pub fn reshape(self, shape: Vec<Size>) -> Formula {
        let arg = match self {
            Formula::Reshape { arg, .. } => arg,
            f => Box::new(f),
        };
        Formula::Reshape { arg, shape }
    }

    /// Whether `self` reads no tensor: a number (constants, infinities and scalars), a
    /// Python number in the Python renderings.
    pub fn is_number(&self) -> bool {
        !matches!(self, Formula::Input(_)) && self.children().iter().all(|c| c.is_number())
    }

    /// Whether the input tensor `name` occurs in `self`.
    pub fn reads(&self, name: &str) -> bool {
        matches!(self, Formula::Input(n) if n == name)
            || self.children().iter().any(|c| c.reads(name))
    }

    /// `self` with every occurrence of `old` replaced by `new` (outermost first: the
    /// replacement is not searched again).
    pub fn replace(self, old: &Formula, new: &Formula) -> Formula {
        if self == *old {
            return new.clone();
        }
        self.map_children(&mut |c| c.replace(old, new))
    }

    /// `self` with every sub-formula replaced by `f` of it (operands first).
    pub fn map_children(self, f: &mut impl FnMut(Formula) -> Formula) -> Formula {
        let mut g = |a: Box<Formula>| Box::new(f(*a));
        match self {
            Formula::Input(_) | Formula::Scalar(_) | Formula::Const(_) | Formula::Inf { .. } => {
                self
            }
            Formula::Unary(op, a) => Formula::Unary(op, g(a)),
            Formula::Powi(a, k) => Formula::Powi(g(a), k),
            Formula::Reduce {
                op,
                axis,
                keepdim,
                arg,
            } => Formula::Reduce {
                op,
                axis,
                keepdim,
                arg: g(arg),
            },
            Formula::Transpose(a) => Formula::Transpose(g(a)),
            Formula::Scan { op, axis, arg } => Formula::Scan {
                op,
                axis,
                arg: g(arg),
            },
            Formula::Tri {
                arg,
                upper,
                diagonal,
            } => Formula::Tri {
                arg: g(arg),
                upper,
                diagonal,
            },
            Formula::Binary(op, a, b) => Formula::Binary(op, g(a), g(b)),
            Formula::Cmp(op, a, b) => Formula::Cmp(op, g(a), g(b)),
            Formula::MatMul(a, b) => Formula::MatMul(g(a), g(b)),
            Formula::Select(c, a, b) => Formula::Select(g(c), g(a), g(b)),
            Formula::Cat { axis, args } => Formula::Cat {
                axis,
                args: args.into_iter().map(&mut *f).collect(),
            },
            Formula::Slice {
                arg,
                axis,
                start,
                end,
            } => Formula::Slice {
                arg: g(arg),
                axis,
                start,
                end,
            },
            Formula::Broadcast { arg, shape } => Formula::Broadcast { arg: g(arg), shape },
            Formula::Reshape { arg, shape } => Formula::Reshape { arg: g(arg), shape },
            Formula::Unsqueeze { arg, axis } => Formula::Unsqueeze { arg: g(arg), axis },
            Formula::Window { op, args, geometry } => Formula::Window {
                op,
                args: args.into_iter().map(&mut *f).collect(),
                geometry,
            },
        }
    }

    /// `(a / r) @ b` rewritten as `(a @ b) / r` wherever `a` and `b` are matrices and
    /// `r` is a reduction of a 2-D operand along its last axis kept as a unit axis (`softmax(s) @ v`, whose
    /// row sums divide every product of the row): `Σ_n (a[i,n] / r[i]) · b[n,j] =
    /// (Σ_n a[i,n] · b[n,j]) / r[i]` over the reals. Flash attention divides once at
    /// the end, and its loop accumulates `a @ b`, which this form names.
    pub fn divisors_out_of_matmuls(self, env: &ShapeEnv) -> Formula {
        let f = self.map_children(&mut |c| c.divisors_out_of_matmuls(env));
        let rank = |x: &Formula| x.shape(env).map(|s| s.len()).ok();
        match f {
            Formula::MatMul(a, b) => match *a {
                Formula::Binary(BinaryOp::Div, num, r)
                    if rank(&num) == Some(2)
                        && rank(&b) == Some(2)
                        && matches!(&*r, Formula::Reduce { axis: 1, keepdim: true, arg, .. }
                            if rank(arg) == Some(2)) =>
                {
                    Formula::Binary(BinaryOp::Div, Box::new(Formula::MatMul(num, b)), r)
                }
                a => Formula::MatMul(Box::new(a), b),
            },
            f => f,
        }
    }

    /// The direct sub-formulas, in operand order.
    pub fn children(&self) -> Vec<&Formula> {
        match self {
            Formula::Input(_) | Formula::Scalar(_) | Formula::Const(_) | Formula::Inf { .. } => {
                vec![]
            }
            Formula::Unary(_, a)
            | Formula::Powi(a, _)
            | Formula::Reduce { arg: a, .. }
            | Formula::Scan { arg: a, .. }
            | Formula::Tri { arg: a, .. }
            | Formula::Transpose(a) => vec![a],
            Formula::Binary(_, a, b) | Formula::Cmp(_, a, b) | Formula::MatMul(a, b) => {
                vec![a, b]
            }
            Formula::Select(c, a, b) => vec![c, a, b],
            Formula::Cat { args, .. } | Formula::Window { args, .. } => args.iter().collect(),
            Formula::Slice { arg, .. }
            | Formula::Broadcast { arg, .. }
            | Formula::Reshape { arg, .. }
            | Formula::Unsqueeze { arg, .. } => vec![arg],
        }
    }

    /// Size names used by `Slice` bounds and `Broadcast`/`Reshape` shapes, in order of first
    /// occurrence.
    pub fn size_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect_sizes(&mut out);
        out
    }

    fn collect_sizes(&self, out: &mut Vec<String>) {
        match self {
            Formula::Slice { start, end, .. } => {
                size_expr_names(start, out);
                if let Some(e) = end {
                    size_expr_names(e, out);
                }
            }
            Formula::Broadcast { shape, .. } | Formula::Reshape { shape, .. } => {
                shape.iter().for_each(|e| size_expr_names(e, out))
            }
            _ => {}
        }
        self.children()
            .into_iter()
            .for_each(|c| c.collect_sizes(out));
    }

    /// Input tensor names and scalar names, each in order of first occurrence (operands
    /// left to right).
    pub fn free_names(&self) -> (Vec<String>, Vec<String>) {
        let (mut t, mut s) = (Vec::new(), Vec::new());
        self.collect_names(&mut t, &mut s);
        (t, s)
    }

    fn collect_names(&self, t: &mut Vec<String>, s: &mut Vec<String>) {
        match self {
            Formula::Input(n) if !t.contains(n) => t.push(n.clone()),
            Formula::Scalar(n) if !s.contains(n) => s.push(n.clone()),
            _ => self
                .children()
                .into_iter()
                .for_each(|c| c.collect_names(t, s)),
        }
    }

    /// Number of nodes (a size measure for synthesis and simplification).
    pub fn size(&self) -> usize {
        1 + self.children().iter().map(|c| c.size()).sum::<usize>()
    }

    // ---- shapes --------------------------------------------------------------------

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
            Formula::Unary(_, a) | Formula::Powi(a, _) => a.dims(env),
            Formula::Binary(_, a, b) | Formula::Cmp(_, a, b) => {
                let (da, db) = (a.dims(env)?, b.dims(env)?);
                broadcast(&da, &db).ok_or_else(|| FormulaError {
                    message: format!(
                        "shapes {:?} and {:?} do not broadcast in {}",
                        sizes(&da),
                        sizes(&db),
                        crate::render::text::expr(self)
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
                            crate::render::text::expr(self)
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
                        crate::render::text::expr(self)
                    ));
                }
                if matches!(op, ReduceOp::ArgMax | ReduceOp::ArgMin) && d[*axis].size == 0 {
                    return err(format!(
                        "{} of an empty axis in {}",
                        op.name(),
                        crate::render::text::expr(self)
                    ));
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
                        crate::render::text::expr(self)
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
                        crate::render::text::expr(self)
                    ));
                }
                d.swap(n - 2, n - 1);
                Ok(d)
            }
            Formula::Cat { axis, args } => self.cat_dims(*axis, args, env),
            Formula::Window { op, args, geometry } => window::dims(self, *op, args, geometry, env),
            Formula::Scan { axis, arg, .. } => {
                let d = arg.dims(env)?;
                if *axis >= d.len() {
                    return err(format!(
                        "axis {axis} out of range for shape {:?} in {}",
                        sizes(&d),
                        crate::render::text::expr(self)
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
                        crate::render::text::expr(self)
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
                        crate::render::text::expr(self)
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
                        dim.size,
                        crate::render::text::expr(self)
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
                        crate::render::text::expr(self)
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
                        crate::render::text::expr(self)
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
                        crate::render::text::expr(self)
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
                    crate::render::text::expr(self)
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
                            crate::render::text::expr(self)
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

    /// One term per element of the value, row-major, at the sizes of `env`. Input
    /// elements are `terms.input(name, &[i, j])`, scalars `terms.param(name)`.
    pub fn instantiate(
        &self,
        terms: &mut crate::term::Terms,
        env: &ShapeEnv,
    ) -> Result<Vec<crate::term::TermId>, FormulaError> {
        self.dims(env)?;
        Ok(instantiate::run(self, terms, env).elems)
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

/// The size names in `e`, in order of first occurrence (`H` for `2 * H`).
pub fn size_names(e: &Size) -> Vec<String> {
    let mut out = Vec::new();
    size_expr_names(e, &mut out);
    out
}

/// The size names in `e`, appended to `out` where new.
fn size_expr_names(e: &Size, out: &mut Vec<String>) {
    match e {
        Size::Int(_) => {}
        Size::Size(n) => {
            if !out.contains(n) {
                out.push(n.clone())
            }
        }
        Size::Neg(a) => size_expr_names(a, out),
        Size::Bin(_, a, b) => {
            size_expr_names(a, out);
            size_expr_names(b, out);
        }
    }
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

macro_rules! infix {
    ($trait:ident, $method:ident, $op:expr) => {
        impl std::ops::$trait for Formula {
            type Output = Formula;
            fn $method(self, rhs: Formula) -> Formula {
                Formula::binary($op, self, rhs)
            }
        }
    };
}
infix!(Add, add, BinaryOp::Add);
infix!(Sub, sub, BinaryOp::Sub);
infix!(Mul, mul, BinaryOp::Mul);
infix!(Div, div, BinaryOp::Div);

impl std::ops::Neg for Formula {
    type Output = Formula;
    fn neg(self) -> Formula {
        Formula::unary(UnaryOp::Neg, self)
    }
}

impl fmt::Display for Formula {
    /// The text rendering (see `render::text`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::render::text::expr(self))
    }
}
