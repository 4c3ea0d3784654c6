//! The term language: [`TermId`], the unary functions [`Func`], the comparisons
//! [`CmpOp`] and the [`Node`]s of the DAG. Plain data; the store that interns them and
//! its smart constructors are in `store`, `arith` and `logic`.
//!
//! Invariant: plain data; a `TermId` means something only in the `Terms` store that made it.

use num_rational::BigRational;
use std::sync::Arc;

/// Index of a node in a [`Terms`] store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermId(pub u32);

/// Unary real functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Func {
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
    Floor,
    Ceil,
    /// Round to the nearest integer, ties to even (`torch.round`, libdevice `rint` and
    /// `llrint`, PTX `cvt.rni`).
    Rint,
    /// Round to the nearest f16, ties to even (overflow to ±inf): `--precision ieee`'s
    /// `arith.truncf` to f16. Opaque to `decide` (never proved equal to its argument).
    RoundF16,
    /// Round to the nearest bf16, ties to even.
    RoundBf16,
    /// Round to the nearest tf32 (f32's exponent, 10-bit mantissa), ties to even: the
    /// inputs of a tf32 `tt.dot` under `--precision ieee`.
    RoundTf32,
}

impl Func {
    /// A rounding to a narrower float format (the `--precision ieee` functions).
    pub fn is_rounding(self) -> bool {
        matches!(self, Func::RoundF16 | Func::RoundBf16 | Func::RoundTf32)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl CmpOp {
    /// `a op b` on floats.
    pub fn holds(self, a: f64, b: f64) -> bool {
        match self {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
        }
    }
    /// `a op b` as `b op' a`.
    pub fn flipped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            CmpOp::Eq | CmpOp::Ne => self,
        }
    }
    /// `!(a op b)` as `a op' b`: exact without NaN operands (IEEE makes both false).
    pub fn negated(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
        }
    }
}

/// One node of the DAG. Children are ids into the same store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// Element `index` (row-major multi-index) of the input tensor `tensor`.
    Input {
        tensor: Arc<str>,
        index: Box<[i64]>,
    },
    /// A named real scalar argument (`eps`).
    Param(Arc<str>),
    /// An exact rational constant.
    Const(BigRational),
    /// +inf (`negative == false`) or -inf.
    Inf {
        negative: bool,
    },
    NaN,
    /// n-ary sum, operands sorted by id, at most one constant (first), length ≥ 2.
    /// (An `Inf` operand occurs only beside products with an infinite factor.)
    Add(Box<[TermId]>),
    /// n-ary product, operands sorted by id, at most one constant (first), length ≥ 2.
    Mul(Box<[TermId]>),
    /// Integer power, exponent ∉ {0, 1}; division is `Pow(d, -1)`.
    Pow(TermId, i32),
    Call(Func, TermId),
    /// n-ary, sorted by id (a folded constant, at most one, sorts like any operand),
    /// deduplicated, length ≥ 2, no infinities (but the absorbing one beside operands
    /// that may be NaN: `max(inf, 0·inf)` is NaN).
    Max(Box<[TermId]>),
    Min(Box<[TermId]>),
    /// IEEE 754's maxNum (`arith.maxnumf`, PTX `max.f32`, `torch.fmax`): the largest
    /// operand that is not NaN, NaN only when all are. n-ary as `Max` (sorted,
    /// deduplicated, length ≥ 2), with at least one operand that may be NaN at a finite
    /// point (see [`Terms::maxnum_n`]): where none can, the node is a `Max`.
    MaxNum(Box<[TermId]>),
    /// IEEE 754's minNum, as `MaxNum`.
    MinNum(Box<[TermId]>),
    /// A boolean-valued comparison of two reals.
    Cmp(CmpOp, TermId, TermId),
    Not(TermId),
    /// n-ary, sorted, deduplicated, no constants; length ≥ 2, or 1 when that operand is
    /// not boolean-valued (`And([x])` is the truth value of the real `x`).
    And(Box<[TermId]>),
    /// As `And`.
    Or(Box<[TermId]>),
    /// `if cond then a else b`.
    Select(TermId, TermId, TermId),
    /// A bit-level operation the reals cannot express (a PTX integer op on a float's bit
    /// pattern, a float→int conversion, a load at a data-dependent address), named by
    /// its opcode text. It has no value: `eval` gives NaN and `decide` answers
    /// `Unknown` for any term that still contains one. It only serves to recognise
    /// known code by identity (the libm expansions, see `ptx::libm`).
    Opaque(Arc<str>, Box<[TermId]>),
}

/// As derived, but a constant hashes its numerator and denominator
/// (`super::dyadic::hash`): `BigRational`'s own hash expands a continued fraction, and
/// every node interned is hashed.
impl std::hash::Hash for Node {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            Node::Input { tensor, index } => {
                tensor.hash(state);
                index.hash(state);
            }
            Node::Param(p) => p.hash(state),
            Node::Const(c) => super::dyadic::hash(c, state),
            Node::Inf { negative } => negative.hash(state),
            Node::NaN => {}
            Node::Add(ops)
            | Node::Mul(ops)
            | Node::Max(ops)
            | Node::Min(ops)
            | Node::MaxNum(ops)
            | Node::MinNum(ops)
            | Node::And(ops)
            | Node::Or(ops) => ops.hash(state),
            Node::Pow(a, k) => (a, k).hash(state),
            Node::Call(f, a) => (f, a).hash(state),
            Node::Cmp(op, a, b) => (op, a, b).hash(state),
            Node::Not(a) => a.hash(state),
            Node::Select(c, a, b) => (c, a, b).hash(state),
            Node::Opaque(op, ops) => (op, ops).hash(state),
        }
    }
}

/// The hash-consing store: an arena of nodes plus an interner.
///
/// Children always have smaller ids than their parents (nodes are created bottom-up),
/// which [`Terms::eval`] relies on to evaluate without recursion.
impl Node {
    /// The node's root operator as a short name, its children left out: `in`, `p:eps`,
    /// `c` (any constant), `add`, `mul`, `pow-1`, `Exp`, `Lt`, `select`, or an opaque
    /// node's PTX opcode. Passes that compare shapes of terms key on it.
    pub fn op_name(&self) -> String {
        match self {
            Node::Input { .. } => "in".into(),
            Node::Param(p) => format!("p:{p}"),
            Node::Const(_) | Node::Inf { .. } | Node::NaN => "c".into(),
            Node::Add(_) => "add".into(),
            Node::Mul(_) => "mul".into(),
            Node::Pow(_, k) => format!("pow{k}"),
            Node::Call(f, _) => format!("{f:?}"),
            Node::Max(_) => "max".into(),
            Node::Min(_) => "min".into(),
            Node::MaxNum(_) => "maxnum".into(),
            Node::MinNum(_) => "minnum".into(),
            Node::Cmp(op, _, _) => format!("{op:?}"),
            Node::Not(_) => "not".into(),
            Node::And(_) => "and".into(),
            Node::Or(_) => "or".into(),
            Node::Select(..) => "select".into(),
            Node::Opaque(op, _) => format!("opaque:{op}"),
        }
    }
}

/// Calls `f` on each child of `node`, in operand order.
pub(super) fn for_each_child_of(node: &Node, mut f: impl FnMut(TermId)) {
    match node {
        Node::Input { .. } | Node::Param(_) | Node::Const(_) | Node::Inf { .. } | Node::NaN => {}
        Node::Add(ops)
        | Node::Mul(ops)
        | Node::Max(ops)
        | Node::Min(ops)
        | Node::MaxNum(ops)
        | Node::MinNum(ops)
        | Node::And(ops)
        | Node::Or(ops)
        | Node::Opaque(_, ops) => ops.iter().for_each(|&o| f(o)),
        Node::Pow(a, _) | Node::Call(_, a) | Node::Not(a) => f(*a),
        Node::Cmp(_, a, b) => {
            f(*a);
            f(*b)
        }
        Node::Select(c, a, b) => {
            f(*c);
            f(*a);
            f(*b)
        }
    }
}
