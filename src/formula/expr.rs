//! The formula tree: its operators ([`UnaryOp`], [`BinaryOp`], [`ReduceOp`], [`ScanOp`]),
//! [`Formula`] itself, a kernel's [`Output`], the constructors and the traversals
//! (children, names, size). Plain data: shapes are in `shape`, terms in `instantiate`,
//! the text form in `render::text`.
//!
//! Invariant: building a formula never fails or panics; shape errors surface in `shape`.

use crate::launch::Expr as Size;
use crate::term::{CmpOp, Func};
use num_bigint::BigInt;
use num_rational::BigRational;

use super::window::{Geometry, WindowOp};

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
    /// The nearest integer, ties to even (`torch.round`, `np.rint`, libdevice `rint`/`llrint`).
    Rint,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 13] = [
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
        UnaryOp::Rint,
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
            UnaryOp::Rint => Func::Rint,
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
            UnaryOp::Rint => "rint",
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

/// How a [`Formula::Take`] places the index tensor's axes (both read an integer
/// tensor's values as positions along one axis of the data).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TakeKind {
    /// `take(x, t, axis=a)`, `x[i, t[i]]`: the index has the data's shape without axis
    /// `a`, and so has the result (`torch.gather(x, a, t.unsqueeze(a)).squeeze(a)`,
    /// NLL's and cross-entropy's class pick).
    Along,
    /// `w[idx]` (`index_select(w, idx, axis=a)`): the result is the data's shape with
    /// axis `a` replaced by the index's axes (`np.take(w, idx, axis=a)`, an embedding).
    Index,
}

impl TakeKind {
    /// The name in the JSON schema (`"along"`, `"index"`).
    pub fn name(self) -> &'static str {
        match self {
            TakeKind::Along => "along",
            TakeKind::Index => "index",
        }
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
    /// `linear_recurrence(a, x, axis)`: along `axis`, `h[t] = a[t]·h[t-1] + x[t]` with
    /// `h[-1] = 0` (a state-space model's scan; `a[0]` is never read). `a` and `x` have
    /// one shape, the result's.
    Recurrence {
        axis: usize,
        a: Box<Formula>,
        x: Box<Formula>,
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
    /// A gather: `data` read along `axis` at the positions `index` holds (an integer
    /// tensor's values, e.g. labels). A position outside `0..extent` reads `0`: the
    /// formula is total where PyTorch would raise, so a `where` can discard the value
    /// (an `ignore_index` row).
    Take {
        kind: TakeKind,
        axis: usize,
        data: Box<Formula>,
        index: Box<Formula>,
    },
    /// Pooling or convolution over the trailing axes (`window.rs`): `args` is `[x]`
    /// for a pool, `[x, w]` or `[x, w, b]` for a convolution.
    Window {
        op: WindowOp,
        args: Vec<Formula>,
        geometry: Geometry,
    },
    /// `arange(n)`: the integers `0, 1, …, n - 1` along one axis (`torch.arange(n)`).
    Arange(Size),
    /// `rand(seed, offset)`: Triton's random stream (`tl.rand`, the named function of
    /// `term::rand`) at each integer `offset` holds, in the offset's shape.
    Rand {
        seed: i64,
        offset: Box<Formula>,
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
    /// `linear_recurrence(a, x, axis)` ([`Formula::Recurrence`]).
    pub fn recurrence(a: Formula, x: Formula, axis: usize) -> Formula {
        Formula::Recurrence {
            axis,
            a: Box::new(a),
            x: Box::new(x),
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
    /// `data` gathered along `axis` at the positions `index` holds (see
    /// [`Formula::Take`]).
    pub fn take(kind: TakeKind, data: Formula, index: Formula, axis: usize) -> Formula {
        Formula::Take {
            kind,
            axis,
            data: Box::new(data),
            index: Box::new(index),
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
        !matches!(self, Formula::Input(_) | Formula::Arange(_))
            && self.children().iter().all(|c| c.is_number())
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
            Formula::Input(_)
            | Formula::Scalar(_)
            | Formula::Const(_)
            | Formula::Inf { .. }
            | Formula::Arange(_) => self,
            Formula::Rand { seed, offset } => Formula::Rand {
                seed,
                offset: g(offset),
            },
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
            Formula::Recurrence { axis, a, x } => Formula::Recurrence {
                axis,
                a: g(a),
                x: g(x),
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
            Formula::Take {
                kind,
                axis,
                data,
                index,
            } => Formula::Take {
                kind,
                axis,
                data: g(data),
                index: g(index),
            },
        }
    }

    /// The direct sub-formulas, in operand order.
    pub fn children(&self) -> Vec<&Formula> {
        match self {
            Formula::Input(_)
            | Formula::Scalar(_)
            | Formula::Const(_)
            | Formula::Inf { .. }
            | Formula::Arange(_) => vec![],
            Formula::Rand { offset: a, .. }
            | Formula::Unary(_, a)
            | Formula::Powi(a, _)
            | Formula::Reduce { arg: a, .. }
            | Formula::Scan { arg: a, .. }
            | Formula::Tri { arg: a, .. }
            | Formula::Transpose(a) => vec![a],
            Formula::Binary(_, a, b)
            | Formula::Cmp(_, a, b)
            | Formula::MatMul(a, b)
            | Formula::Recurrence { a, x: b, .. }
            | Formula::Take {
                data: a, index: b, ..
            } => {
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
            Formula::Arange(n) => size_expr_names(n, out),
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
