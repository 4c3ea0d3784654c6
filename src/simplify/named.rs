//! The named form of a formula: the [`Formula`] grammar's arithmetic over named ops
//! (`softmax`, `gelu`, `layer_norm`, ...) and recognised constants (`sqrt(2/pi)`), each
//! defined by its expansion ([`Named::expand`]) into a plain [`Formula`].
//!
//! Invariant: every node means exactly its expansion; a recognised constant stands
//! for the exact literal the kernel carries (`sqrt(2/pi)` in an f32 kernel is the f32
//! nearest to it), so expanding never changes a value.

use crate::formula::{BinaryOp, Formula, ReduceOp, TakeKind, UnaryOp};
use crate::term::CmpOp;
use num_rational::BigRational;

/// An op the rules fold idioms into (`rules/named.egg`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NamedOp {
    Sigmoid,
    Silu,
    Relu,
    /// gelu, erf form, with the kernel's `1/sqrt(2)`.
    Gelu {
        inv_sqrt2: BigRational,
    },
    /// gelu, tanh form, with the kernel's `sqrt(2/pi)` and `0.044715`.
    GeluTanh {
        c1: BigRational,
        c2: BigRational,
    },
    Softmax {
        axis: usize,
    },
    LogSoftmax {
        axis: usize,
    },
    LogSumExp {
        axis: usize,
        keepdim: bool,
    },
    /// The population variance (`correction=0`).
    Var {
        axis: usize,
        keepdim: bool,
    },
    /// `layer_norm(x, w, b, eps)` over `axis`.
    LayerNorm {
        axis: usize,
    },
    /// `rms_norm(x, w, eps)` over `axis`.
    RmsNorm {
        axis: usize,
    },
    /// `cross_entropy(x, t, ignore_index)` per row (`reduction='none'`), classes along
    /// axis 1: `logsumexp(x, axis=1) - take(x, t, axis=1)`, 0 where `t == ignore_index`.
    CrossEntropy {
        ignore_index: BigRational,
    },
    /// `nll_loss(logp, t, ignore_index)` per row (`reduction='none'`):
    /// `-take(logp, t, axis=1)`, 0 where `t == ignore_index`.
    NllLoss {
        ignore_index: BigRational,
    },
}

impl NamedOp {
    /// The name printed in the text rendering.
    pub fn name(&self) -> &'static str {
        match self {
            NamedOp::Sigmoid => "sigmoid",
            NamedOp::Silu => "silu",
            NamedOp::Relu => "relu",
            NamedOp::Gelu { .. } | NamedOp::GeluTanh { .. } => "gelu",
            NamedOp::Softmax { .. } => "softmax",
            NamedOp::LogSoftmax { .. } => "log_softmax",
            NamedOp::LogSumExp { .. } => "logsumexp",
            NamedOp::Var { .. } => "var",
            NamedOp::LayerNorm { .. } => "layer_norm",
            NamedOp::RmsNorm { .. } => "rms_norm",
            NamedOp::CrossEntropy { .. } => "cross_entropy",
            NamedOp::NllLoss { .. } => "nll_loss",
        }
    }

    /// The axis it reduces or normalises over, if any.
    pub fn axis(&self) -> Option<usize> {
        match self {
            NamedOp::Softmax { axis }
            | NamedOp::LogSoftmax { axis }
            | NamedOp::LogSumExp { axis, .. }
            | NamedOp::Var { axis, .. }
            | NamedOp::LayerNorm { axis }
            | NamedOp::RmsNorm { axis } => Some(*axis),
            _ => None,
        }
    }

    /// Its definition applied to `args` (as many as the op takes).
    pub fn expand(&self, args: &[Formula]) -> Formula {
        let x = || args[0].clone();
        let one = || Formula::int(1);
        let half = || Formula::ratio(1, 2);
        let c = |q: &BigRational| Formula::Const(q.clone());
        match self {
            NamedOp::Sigmoid => one() / (one() + (-x()).exp()),
            NamedOp::Silu => x() * NamedOp::Sigmoid.expand(args),
            NamedOp::Relu => x().maximum(Formula::int(0)),
            NamedOp::Gelu { inv_sqrt2 } => half() * x() * (one() + (x() * c(inv_sqrt2)).erf()),
            NamedOp::GeluTanh { c1, c2 } => {
                half() * x() * (one() + (c(c1) * (x() + c(c2) * x().powi(3))).tanh())
            }
            NamedOp::Softmax { axis } => {
                let e = || (x() - x().max(*axis, true)).exp();
                e() / e().sum(*axis, true)
            }
            NamedOp::LogSoftmax { axis } => {
                let shifted = || x() - x().max(*axis, true);
                shifted() - shifted().exp().sum(*axis, true).log()
            }
            NamedOp::LogSumExp { axis, keepdim } => {
                let shifted = x() - x().max(*axis, true);
                x().max(*axis, *keepdim) + shifted.exp().sum(*axis, *keepdim).log()
            }
            NamedOp::Var { axis, keepdim } => {
                (x() - x().mean(*axis, true)).powi(2).mean(*axis, *keepdim)
            }
            NamedOp::LayerNorm { axis } => {
                let var = NamedOp::Var {
                    axis: *axis,
                    keepdim: true,
                }
                .expand(&args[..1]);
                (x() - x().mean(*axis, true)) * (var + args[3].clone()).rsqrt() * args[1].clone()
                    + args[2].clone()
            }
            NamedOp::RmsNorm { axis } => {
                x() * (x().powi(2).mean(*axis, true) + args[2].clone()).rsqrt() * args[1].clone()
            }
            NamedOp::CrossEntropy { ignore_index } => {
                let t = || args[1].clone();
                let lse = NamedOp::LogSumExp {
                    axis: 1,
                    keepdim: false,
                }
                .expand(&args[..1]);
                let picked = Formula::take(TakeKind::Along, x(), t(), 1);
                Formula::select(
                    Formula::cmp(CmpOp::Eq, t(), c(ignore_index)),
                    Formula::int(0),
                    lse - picked,
                )
            }
            NamedOp::NllLoss { ignore_index } => {
                let t = || args[1].clone();
                let picked = Formula::take(TakeKind::Along, x(), t(), 1);
                Formula::select(
                    Formula::cmp(CmpOp::Ne, t(), c(ignore_index)),
                    -picked,
                    Formula::int(0),
                )
            }
        }
    }
}

/// A formula over named ops and recognised constants.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Named {
    /// A formula kept as it is: a leaf (input, scalar, constant) or a sub-formula the
    /// rules do not reach into (a slice, a `where`, a pooling).
    Formula(Formula),
    /// A constant people know, by name (`sqrt(2/pi)`), and the literal it stands for.
    Constant {
        name: String,
        value: BigRational,
    },
    Unary(UnaryOp, Box<Named>),
    Binary(BinaryOp, Box<Named>, Box<Named>),
    Powi(Box<Named>, i32),
    Reduce {
        op: ReduceOp,
        axis: usize,
        keepdim: bool,
        arg: Box<Named>,
    },
    MatMul(Box<Named>, Box<Named>),
    Transpose(Box<Named>),
    Call(NamedOp, Vec<Named>),
    /// A formula node of the gather idioms (`where`, a comparison, `take`) over named
    /// operands: `shell` is the node, whose own operands are replaced by `args` in
    /// [`Formula::children`] order.
    Node(Box<Formula>, Vec<Named>),
}

impl Named {
    /// The plain formula it means.
    pub fn expand(&self) -> Formula {
        let b = |n: &Named| Box::new(n.expand());
        match self {
            Named::Formula(f) => f.clone(),
            Named::Constant { value, .. } => Formula::Const(value.clone()),
            Named::Unary(op, a) => Formula::Unary(*op, b(a)),
            Named::Binary(op, x, y) => Formula::Binary(*op, b(x), b(y)),
            Named::Powi(a, k) => Formula::Powi(b(a), *k),
            Named::Reduce {
                op,
                axis,
                keepdim,
                arg,
            } => Formula::Reduce {
                op: *op,
                axis: *axis,
                keepdim: *keepdim,
                arg: b(arg),
            },
            Named::MatMul(x, y) => Formula::MatMul(b(x), b(y)),
            Named::Transpose(a) => Formula::Transpose(b(a)),
            Named::Call(op, args) => {
                let args: Vec<Formula> = args.iter().map(Named::expand).collect();
                op.expand(&args)
            }
            Named::Node(shell, args) => {
                let mut args = args.iter().map(Named::expand);
                let zero = Formula::int(0);
                (**shell)
                    .clone()
                    .map_children(&mut |_| args.next().unwrap_or_else(|| zero.clone()))
            }
        }
    }

    /// `f` with its arithmetic (unary, binary, powers, reductions, matmul, transpose)
    /// as named nodes, so renderers see its structure; other nodes stay whole.
    /// `Named::open(f).expand() == *f`.
    pub fn open(f: &Formula) -> Named {
        let b = |g: &Formula| Box::new(Named::open(g));
        match f {
            Formula::Unary(op, a) => Named::Unary(*op, b(a)),
            Formula::Binary(op, x, y) => Named::Binary(*op, b(x), b(y)),
            Formula::Powi(a, k) => Named::Powi(b(a), *k),
            Formula::Reduce {
                op,
                axis,
                keepdim,
                arg,
            } => Named::Reduce {
                op: *op,
                axis: *axis,
                keepdim: *keepdim,
                arg: b(arg),
            },
            Formula::MatMul(x, y) => Named::MatMul(b(x), b(y)),
            Formula::Transpose(a) => Named::Transpose(b(a)),
            _ => Named::Formula(f.clone()),
        }
    }

    /// Number of nodes, a named op or constant counting one (the measure
    /// `benchmarks/RESULTS.md` reports beside [`Formula::size`]).
    pub fn size(&self) -> usize {
        match self {
            Named::Formula(f) => f.size(),
            Named::Constant { .. } => 1,
            Named::Unary(_, a) | Named::Powi(a, _) | Named::Transpose(a) => 1 + a.size(),
            Named::Reduce { arg, .. } => 1 + arg.size(),
            Named::Binary(_, a, b) | Named::MatMul(a, b) => 1 + a.size() + b.size(),
            Named::Call(_, args) | Named::Node(_, args) => {
                1 + args.iter().map(Named::size).sum::<usize>()
            }
        }
    }

    /// Whether a named op or a recognised constant occurs in it.
    pub fn has_names(&self) -> bool {
        match self {
            Named::Formula(_) => false,
            Named::Constant { .. } | Named::Call(..) => true,
            Named::Unary(_, a) | Named::Powi(a, _) | Named::Transpose(a) => a.has_names(),
            Named::Reduce { arg, .. } => arg.has_names(),
            Named::Binary(_, a, b) | Named::MatMul(a, b) => a.has_names() || b.has_names(),
            Named::Node(_, args) => args.iter().any(Named::has_names),
        }
    }
}
