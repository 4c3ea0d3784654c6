//! Terms: one hash-consed DAG of real-valued expressions over input tensor elements.
//!
//! Architecture invariant: a [`TermId`] is an index into one [`Terms`] store; equal
//! nodes get equal ids (hash-consing), so structural equality is `==` on ids. The
//! smart constructors only do *safe local normalisation*: flatten and sort n-ary
//! `+ * max min`, fold constants exactly (rationals, never floats), drop neutral
//! elements, and apply the IEEE rules of ±inf that masked lanes rely on
//! (`max(-inf, x) = x`, `exp(-inf) = 0`, `x + -inf = -inf` for finite x). Anything
//! deeper (distributing, merging exponentials, deciding equality) belongs to `decide`.
//! Inputs are finite reals; no constructor ever panics. A fold that holds only for finite
//! operands (`0 · t = 0`, `t - t = 0`) is applied only where `t` cannot be ±inf or NaN
//! ([`Terms::may_be_nonfinite`]): masked lanes compute `0/0`, `0 · log 0`, and those
//! NaNs must reach the output. (Symbolic `1/x`, `log x` count as finite: their domains
//! are the decider's preconditions.) The folds whose result a NaN changes (`t == t`,
//! `!(a < b) = a >= b`, maxNum to max) need more: no NaN at any finite point
//! ([`Terms::nan_free`]), since kernels test `x != x` and `tl.maximum` drops a NaN.
//! The one IEEE feature not modelled is the sign of zero: every zero is +0, so
//! `1/0 = +inf`; the concrete run, which has signed zeros, cross-checks every proof
//! (see `check`).
//!
//! CONTRACT (the exec module is written against exactly this API):
//! - `Terms::new()`, `terms.node(id) -> &Node`, `terms.len()`
//! - leaves: `input(tensor, &[i64])`, `param(name)`, `constant(BigRational)`,
//!   `int(i64)`, `float(f64)` (exact value of the f64; ±inf and NaN become the
//!   `Inf`/`NaN` nodes), `zero()`, `one()`
//! - arithmetic: `add(a,b)`, `sum(&[..])`, `sub(a,b)`, `neg(a)`, `mul(a,b)`,
//!   `product(&[..])`, `div(a,b)`, `recip(a)`, `powi(a, i32)`
//! - `call(Func, a)`, `max(a,b)`, `min(a,b)`, `maxn(&[..])`, `minn(&[..])`
//! - logic: `cmp(CmpOp, a, b)`, `not(a)`, `and(a,b)`, `or(a,b)`, `select(c, a, b)`
//! - queries: `as_const(id) -> Option<&BigRational>`, `as_bool(id) -> Option<bool>`
//!   (for `Cmp`/logic nodes folded to constants: true is the constant 1, false 0)
//! - `eval(id, &dyn Fn(&str, &[i64]) -> f64, &dyn Fn(&str) -> f64) -> f64`
//!   (memoised over the DAG; booleans evaluate to 1.0/0.0)
//! - `display(id)` prints e.g. `exp(x[0,1] - max(x[0,0], x[0,1]))`, with shared
//!   sub-terms printed in full (no let-bindings), `/` and `-` recovered from
//!   `Pow(_, -1)` and `-1 *` factors, minimal parentheses by precedence.
//!
//! Normalisation, precisely (every rule is sound for finite real inputs):
//! - `sum`: flatten; fold constants into one leading constant (dropped if 0); combine
//!   like terms by their rational coefficient (`x + 2*x = 3*x`, `x - x = 0`, but
//!   `t - t = 0 · t` for a `t` that may be non-finite); sort the rest by id. Constants
//!   are *not* distributed over sums: `a - (a + b)` stays as is.
//! - `product`: flatten; fold constants (a constant 0 gives 0 unless a factor may be
//!   non-finite: then `Mul([0, those factors])`; 1 is dropped); merge
//!   powers of one base *of the same sign* (`x*x = x^2`, `x^-1 * x^-2 = x^-3`) but never
//!   cancel `x * x^-1` (the precondition `x != 0` must survive to `decide`).
//! - `powi`: `a^0 = 1`, `a^1 = a`, exact constant folding (`0^k = +inf` for `k < 0`;
//!   powers too large to fold stay `Pow`), `(x^a)^b = x^(ab)`, `(x*y)^k = x^k*y^k`;
//!   so no `Pow` has a `Mul` (except a negative power of one with a non-finite
//!   factor: `(x·inf)^-1` is NaN at x = 0) or (barring i32 overflow) a `Pow` as its base.
//! - ±inf: `x + inf = inf` for finite `x`, `inf + -inf = nan`, `c * inf` signed by `c`
//!   (`0 * inf = nan`); `x * inf` with symbolic `x` stays a `Mul` (sign unknown), and a
//!   sum of such a product and an infinity stays an `Add` of just those two kinds.
//!   `inf^-k = 0`; max/min drop their neutral infinity and are absorbed by the other
//!   (unless an operand may be NaN);
//!   `exp(-inf) = exp2(-inf) = 0`, `exp(inf) = inf`, and the other IEEE values at ±inf;
//!   `log(0) = -inf`, `rsqrt(0) = inf`, `log`/`sqrt`/`rsqrt` of a negative constant NaN.
//! - NaN: any arithmetic, function, max/min, not/and/or, or select *condition* with a NaN
//!   operand is NaN; IEEE's maxNum/minNum (`maxnum`, `minnum`: `arith.maxnumf`, PTX
//!   `max.f32`, `torch.fmax`) drop it instead, and are a plain max/min where no operand
//!   can be NaN at a finite point (`maxnum(log x, 0)` stays: it is 0 at x < 0). Comparisons follow IEEE (false with NaN; `!=` true). A NaN in an
//!   unselected branch of a symbolic `select` stays there.
//! - Truth values: the constant 0 is false, any other constant (and ±inf) is true; the
//!   folded results of `cmp`/`not`/`and`/`or` are the constants 1 and 0. `not` of a
//!   comparison flips the operator (`!(a < b) = a >= b`, operands never NaN); `select(!c, a, b) =
//!   select(c, b, a)` for boolean `c`. `>`/`>=` are kept as written (not swapped to `<`).
//! - Cost: flattening copies operands, so growing a sum/max one operand at a time over `n`
//!   steps costs O(n^2) ids; build wide sums with `sum(&[..])` where possible.

mod display;
mod eval;
mod extrema;
pub mod gather;

pub use display::{format_const, Display};
pub use eval::{erf, eval_func, round_float, Evaluator, FloatFormat, BF16, F16, TF32};

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::hash::BuildHasher;
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
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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

#[derive(Default, Clone)]
pub struct Terms {
    nodes: Vec<Node>,
    /// Per node: whether it may be non-finite (±inf or NaN) at some point, i.e. it is or
    /// reads an `Inf`, `NaN` or `Opaque` node. Folds that are exact only for finite
    /// operands (`0 · t = 0`, `t - t = 0`, `t <= t`) check it first.
    nonfinite: Vec<bool>,
    /// Per node: whether it is finite at every finite point (total): built from inputs,
    /// params and finite constants by sums, products, powers ≥ 0, extrema, selects,
    /// comparisons and the functions defined everywhere (exp, tanh, sin, ...); no
    /// division, log or square root, whose domain boundary (`log 0 = -inf`) can reach an
    /// infinity. `may_be_nonfinite` is false for those too (their domains are the
    /// preconditions of a proof), so a fold that removes the term, like `t == -inf`
    /// to false, needs this stronger fact.
    total: Vec<bool>,
    /// Per node: whether it reads no input and no param (a closed constant expression
    /// such as `log(1/2)`, which the real-domain folds must evaluate to see NaN).
    closed: Vec<bool>,
    /// Per node: whether it is NaN at no finite point: a total term (no division, log or
    /// root below it: `0/0`, `log` of a negative), an infinity, a param (a real scalar,
    /// or a loop-carried value that may be ±inf), or a max, min, select or comparison of
    /// such (a masked lane's `select(m, x, -inf)`); a maxNum with one such operand. A
    /// [`Terms::placeholder`] may be NaN. Folds whose result a NaN changes need it.
    nan_free: Vec<bool>,
    /// (hash of the node, its id): finds a node's id without a second copy of it.
    ids: hashbrown::HashTable<(u64, TermId)>,
    /// Input tensors whose elements are integers (a launch `dtype` such as `int64` or
    /// `bool`), with the range every element lies in: the same contract as the TTIR
    /// interpreter's data-dependent integers. Points chosen for such inputs (the
    /// refuter's, the race witness's) are integers in the range.
    int_inputs: FxHashMap<Arc<str>, (i128, i128)>,
    /// Integer input tensors whose launch declares the values their elements take
    /// (`values = "0..N"`): sorted, distinct. A gather splits over them (`gather.rs`).
    int_values: FxHashMap<Arc<str>, Arc<[i64]>>,
}

/// The first character of a [`Terms::placeholder`]'s name.
pub const PLACEHOLDER: char = '\u{1}';

/// Largest number of bits a folded power of a constant may have; beyond it the power
/// stays an unfolded `Pow` node (so that `powi(3/2, i32::MAX)` cannot exhaust memory).
const MAX_FOLD_BITS: u64 = 1 << 16;

fn rat(n: i64) -> BigRational {
    BigRational::from_integer(BigInt::from(n))
}

/// A value on the extended real line, for folding comparisons.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Ext<'a> {
    NegInf,
    Fin(&'a BigRational),
    PosInf,
}

impl Terms {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn node(&self, id: TermId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// Whether some node of the store satisfies `f` (a linear scan: cheaper than a walk
    /// of a large output's DAG when the answer rules a pass out).
    pub fn any_node(&self, f: impl Fn(&Node) -> bool) -> bool {
        self.nodes.iter().any(f)
    }

    /// Returns the id of `node`, creating it if it is new. Callers are responsible for the
    /// node invariants documented on [`Node`].
    fn intern(&mut self, node: Node) -> TermId {
        let hash = FxBuildHasher.hash_one(&node);
        if let Some(id) = self.find(hash, &node) {
            return id;
        }
        let id = TermId(u32::try_from(self.nodes.len()).expect("more than 2^32 terms"));
        let nonfinite = match &node {
            Node::Inf { .. } | Node::NaN | Node::Opaque(..) => true,
            _ => {
                let mut any = false;
                for_each_child_of(&node, |c| any |= self.nonfinite[c.0 as usize]);
                any
            }
        };
        let total = match &node {
            Node::Inf { .. } | Node::NaN | Node::Opaque(..) => false,
            Node::Pow(_, k) if *k < 0 => false,
            Node::Call(f, _)
                if !matches!(
                    f,
                    Func::Exp
                        | Func::Exp2
                        | Func::Tanh
                        | Func::Sin
                        | Func::Cos
                        | Func::Erf
                        | Func::Abs
                        | Func::Floor
                        | Func::Ceil
                ) =>
            {
                false
            }
            _ => {
                let mut all = true;
                for_each_child_of(&node, |c| all &= self.total[c.0 as usize]);
                all
            }
        };
        let closed = match &node {
            Node::Input { .. } | Node::Param(_) => false,
            _ => {
                let mut all = true;
                for_each_child_of(&node, |c| all &= self.closed[c.0 as usize]);
                all
            }
        };
        let nan_free = match &node {
            Node::Input { .. } | Node::Const(_) | Node::Inf { .. } => true,
            Node::Param(name) => !name.starts_with(PLACEHOLDER),
            Node::NaN | Node::Opaque(..) => false,
            Node::Max(_)
            | Node::Min(_)
            | Node::Select(..)
            | Node::Cmp(..)
            | Node::Not(_)
            | Node::And(_)
            | Node::Or(_) => {
                let mut all = true;
                for_each_child_of(&node, |c| all &= self.nan_free[c.0 as usize]);
                all
            }
            Node::MaxNum(_) | Node::MinNum(_) => {
                let mut any = false;
                for_each_child_of(&node, |c| any |= self.nan_free[c.0 as usize]);
                any
            }
            Node::Add(_) | Node::Mul(_) | Node::Pow(..) | Node::Call(..) => total,
        };
        self.nonfinite.push(nonfinite);
        self.total.push(total);
        self.closed.push(closed);
        self.nan_free.push(nan_free);
        self.nodes.push(node);
        self.ids.insert_unique(hash, (hash, id), |e| e.0);
        id
    }

    /// The id of `node` (whose hash is `hash`), if it is interned.
    fn find(&self, hash: u64, node: &Node) -> Option<TermId> {
        self.ids
            .find(hash, |&(h, id)| {
                h == hash && self.nodes[id.0 as usize] == *node
            })
            .map(|e| e.1)
    }

    // ---- leaves ------------------------------------------------------------------

    pub fn input(&mut self, tensor: &str, index: &[i64]) -> TermId {
        self.intern(Node::Input {
            tensor: tensor.into(),
            index: index.into(),
        })
    }
    pub fn param(&mut self, name: &str) -> TermId {
        self.intern(Node::Param(name.into()))
    }
    /// A param standing for an arbitrary term, which may be NaN (the spec reader's
    /// tensor arguments, read back as formulas): `maxnum` over it stays a maxNum, where
    /// over a param it is a max. Its name is `name` after [`PLACEHOLDER`].
    pub fn placeholder(&mut self, name: &str) -> TermId {
        self.param(&format!("{PLACEHOLDER}{name}"))
    }
    /// A param standing for a value that may be ±inf: a loop-carried float of the
    /// all-sizes verifier (a running max starts at -inf). Like [`Terms::param`], but not
    /// total, so `p == -inf` stays a comparison. Call it before any term reads the
    /// param (flags are set when a node is interned).
    pub fn carried_param(&mut self, name: &str) -> TermId {
        let fresh = self.len();
        let p = self.param(name);
        // A param first made total may already have total parents: a caller bug.
        debug_assert!(
            p.0 as usize >= fresh || !self.total[p.0 as usize],
            "carried_param({name}) after param({name})"
        );
        self.total[p.0 as usize] = false;
        p
    }
    pub fn constant(&mut self, value: BigRational) -> TermId {
        self.intern(Node::Const(value))
    }
    pub fn int(&mut self, value: i64) -> TermId {
        self.constant(rat(value))
    }
    /// The exact rational value of `value`'s bits; ±inf and NaN become `Inf`/`NaN`.
    pub fn float(&mut self, value: f64) -> TermId {
        if value.is_nan() {
            self.nan()
        } else if value.is_infinite() {
            self.inf(value < 0.0)
        } else {
            // `from_float` is exact for every finite f64 (including subnormals and -0).
            let r = BigRational::from_float(value).unwrap_or_else(|| rat(0));
            self.constant(r)
        }
    }
    pub fn zero(&mut self) -> TermId {
        self.int(0)
    }
    pub fn one(&mut self) -> TermId {
        self.int(1)
    }
    /// `+inf` (`negative == false`) or `-inf`.
    pub fn inf(&mut self, negative: bool) -> TermId {
        self.intern(Node::Inf { negative })
    }
    pub fn nan(&mut self) -> TermId {
        self.intern(Node::NaN)
    }
    fn boolean(&mut self, b: bool) -> TermId {
        self.int(b as i64)
    }

    // ---- small queries -------------------------------------------------------------

    pub fn as_const(&self, id: TermId) -> Option<&BigRational> {
        match self.node(id) {
            Node::Const(c) => Some(c),
            _ => None,
        }
    }
    /// Truth value of a constant condition: the constant 0 is false, any other constant
    /// (and ±inf) is true; `None` for NaN and non-constant terms.
    pub fn as_bool(&self, id: TermId) -> Option<bool> {
        match self.node(id) {
            Node::Const(c) => Some(!c.is_zero()),
            Node::Inf { .. } => Some(true),
            _ => None,
        }
    }
    /// `Some(negative)` when `id` is ±inf.
    pub fn as_inf(&self, id: TermId) -> Option<bool> {
        match self.node(id) {
            Node::Inf { negative } => Some(*negative),
            _ => None,
        }
    }
    pub fn is_nan(&self, id: TermId) -> bool {
        matches!(self.node(id), Node::NaN)
    }
    /// Whether the term is boolean-valued by construction (its value is always 0 or 1).
    pub fn is_boolean(&self, id: TermId) -> bool {
        match self.node(id) {
            Node::Cmp(..) | Node::Not(_) | Node::And(_) | Node::Or(_) => true,
            Node::Const(c) => c.is_zero() || c.is_one(),
            _ => false,
        }
    }
    fn ext(&self, id: TermId) -> Option<Ext<'_>> {
        match self.node(id) {
            Node::Const(c) => Some(Ext::Fin(c)),
            Node::Inf { negative: true } => Some(Ext::NegInf),
            Node::Inf { negative: false } => Some(Ext::PosInf),
            _ => None,
        }
    }
    /// Whether `id` may be ±inf or NaN for some finite inputs: it is or reads an `Inf`,
    /// `NaN` or `Opaque` node. (Inputs and params are finite; `1/x` or `log(x)` of a
    /// symbolic `x` are finite wherever defined, their domains being preconditions.)
    pub fn may_be_nonfinite(&self, id: TermId) -> bool {
        self.nonfinite[id.0 as usize]
    }
    /// Whether `id` is finite at every finite point, domain boundaries included (see
    /// the `total` field): no infinity, NaN, division, log or root below it.
    pub fn is_total(&self, id: TermId) -> bool {
        self.total[id.0 as usize]
    }

    /// Whether `id` reads no input and no param (a constant expression).
    pub fn is_closed(&self, id: TermId) -> bool {
        self.closed[id.0 as usize]
    }

    /// Calls `f` on each child of `id`, in operand order.
    pub fn for_each_child(&self, id: TermId, f: impl FnMut(TermId)) {
        for_each_child_of(self.node(id), f)
    }
}

/// Calls `f` on each child of `node`, in operand order.
fn for_each_child_of(node: &Node, mut f: impl FnMut(TermId)) {
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

impl Terms {
    /// The children of `id`, in operand order.
    pub fn children(&self, id: TermId) -> Vec<TermId> {
        let mut v = Vec::new();
        self.for_each_child(id, |c| v.push(c));
        v
    }

    // ---- arithmetic ----------------------------------------------------------------

    /// Splits a summand into (coefficient, base): `c * rest` → (c, rest).
    fn split_coeff(&mut self, id: TermId) -> (BigRational, TermId) {
        if let Node::Mul(ops) = self.node(id) {
            // `0 · t` (t maybe non-finite) is NaN where t is infinite: not a multiple of t.
            if let Some(c) = self.as_const(ops[0]).filter(|c| !c.is_zero()) {
                let c = c.clone();
                let rest: Vec<TermId> = ops[1..].to_vec();
                let base = if rest.len() == 1 {
                    rest[0]
                } else {
                    self.intern(Node::Mul(rest.into()))
                };
                return (c, base);
            }
        }
        (rat(1), id)
    }

    /// n-ary sum: flattens, folds constants, combines like terms (`x + 2*x = 3*x`,
    /// `x - x = 0`), applies the ±inf rules, sorts. `sum(&[]) = 0`, `sum(&[a]) = a`.
    pub fn sum(&mut self, terms: &[TermId]) -> TermId {
        // Distinct plain summands (a matmul's products): the general path below would
        // give `Add` of them sorted, without its coefficient bookkeeping.
        if terms.len() >= 2 {
            let plain = |t: TermId| match self.node(t) {
                Node::Add(_) | Node::Const(_) | Node::Inf { .. } | Node::NaN => false,
                Node::Mul(ops) => self.as_const(ops[0]).is_none(),
                _ => true,
            };
            if terms.iter().all(|&t| plain(t)) {
                let mut ops = terms.to_vec();
                ops.sort_unstable();
                if ops.windows(2).all(|w| w[0] != w[1]) {
                    return self.intern(Node::Add(ops.into()));
                }
            }
        }
        let mut flat: Vec<TermId> = Vec::with_capacity(terms.len());
        for &t in terms {
            match self.node(t) {
                Node::Add(ops) => flat.extend_from_slice(ops),
                _ => flat.push(t),
            }
        }
        let mut constant = rat(0);
        let (mut pos_inf, mut neg_inf) = (false, false);
        let mut others: Vec<TermId> = Vec::with_capacity(flat.len());
        for &t in &flat {
            match self.node(t) {
                Node::NaN => return self.nan(),
                Node::Const(c) => constant += c,
                Node::Inf { negative: true } => neg_inf = true,
                Node::Inf { negative: false } => pos_inf = true,
                _ => others.push(t),
            }
        }
        if pos_inf && neg_inf {
            return self.nan();
        }
        if pos_inf || neg_inf {
            // Finite summands do not matter; a summand that may be non-finite (`x * inf`,
            // a select with an infinite branch) might be the opposite infinity or NaN,
            // so then the sum stays symbolic.
            let inf = self.inf(neg_inf);
            if !others.iter().any(|&o| self.may_be_nonfinite(o)) {
                return inf;
            }
            // Finite summands are dropped all the same (keeps the result associative).
            let mut ops: Vec<TermId> = others
                .into_iter()
                .filter(|&o| self.may_be_nonfinite(o))
                .collect();
            ops.push(inf);
            ops.sort_unstable();
            ops.dedup();
            return self.intern(Node::Add(ops.into()));
        }
        // Combine like terms: (base, coefficient) sorted by base.
        let mut pairs: Vec<(TermId, BigRational)> = Vec::with_capacity(others.len());
        for &t in &others {
            let (c, b) = self.split_coeff(t);
            pairs.push((b, c));
        }
        pairs.sort_by_key(|p| p.0);
        let mut ops: Vec<TermId> = Vec::with_capacity(pairs.len() + 1);
        let mut i = 0;
        while i < pairs.len() {
            let base = pairs[i].0;
            let mut coeff = pairs[i].1.clone();
            let mut j = i + 1;
            while j < pairs.len() && pairs[j].0 == base {
                coeff += &pairs[j].1;
                j += 1;
            }
            i = j;
            if coeff.is_zero() {
                // `t - t` is 0 for finite t, NaN where t is infinite: `0 · t` keeps that.
                if self.may_be_nonfinite(base) {
                    let z = self.zero();
                    ops.push(self.product(&[z, base]));
                }
                continue;
            }
            let term = if coeff.is_one() {
                base
            } else {
                let c = self.constant(coeff);
                self.product(&[c, base])
            };
            ops.push(term);
        }
        ops.sort_unstable();
        if !constant.is_zero() {
            let c = self.constant(constant);
            ops.insert(0, c);
        }
        match ops.len() {
            0 => self.zero(),
            1 => ops[0],
            _ => self.intern(Node::Add(ops.into())),
        }
    }
    pub fn add(&mut self, a: TermId, b: TermId) -> TermId {
        self.sum(&[a, b])
    }
    pub fn sub(&mut self, a: TermId, b: TermId) -> TermId {
        let nb = self.neg(b);
        self.sum(&[a, nb])
    }
    pub fn neg(&mut self, a: TermId) -> TermId {
        let m1 = self.int(-1);
        self.product(&[m1, a])
    }

    /// n-ary product: flattens, folds constants, merges repeated factors into powers
    /// (`x * x = x^2`, but only powers of the same sign: `x * x^-1` is *not* cancelled,
    /// so that the precondition `x ≠ 0` survives), applies the ±inf rules, sorts.
    /// A constant factor 0 gives 0. `product(&[]) = 1`, `product(&[a]) = a`.
    pub fn product(&mut self, terms: &[TermId]) -> TermId {
        // Two distinct plain factors (a matmul's `a[i,k] * b[k,j]`): the general path
        // below would give `Mul([a, b])` sorted, without its constant bookkeeping.
        if let [a, b] = *terms {
            let plain = |t: TermId| {
                !matches!(
                    self.node(t),
                    Node::Mul(_) | Node::Const(_) | Node::Inf { .. } | Node::NaN | Node::Pow(..)
                )
            };
            if a != b && plain(a) && plain(b) {
                return self.intern(Node::Mul(Box::new([a.min(b), a.max(b)])));
            }
        }
        let mut flat: Vec<TermId> = Vec::with_capacity(terms.len());
        for &t in terms {
            match self.node(t) {
                Node::Mul(ops) => flat.extend_from_slice(ops),
                _ => flat.push(t),
            }
        }
        let mut constant = rat(1);
        let mut infs = 0usize;
        let mut negative = false;
        // (base, exponent) of the non-constant factors.
        let mut pairs: Vec<(TermId, i64)> = Vec::with_capacity(flat.len());
        for &t in &flat {
            match self.node(t) {
                Node::NaN => return self.nan(),
                Node::Const(c) => constant *= c,
                Node::Inf { negative: n } => {
                    infs += 1;
                    negative ^= *n;
                }
                Node::Pow(b, k) => pairs.push((*b, *k as i64)),
                _ => pairs.push((t, 1)),
            }
        }
        if infs > 0 {
            if constant.is_zero() {
                return self.nan();
            }
            negative ^= constant.is_negative();
            let inf = self.inf(negative);
            if pairs.is_empty() {
                return inf;
            }
            constant = rat(1);
            pairs.push((inf, 1));
        } else if constant.is_zero() {
            // `0 · t` is 0 for finite t and NaN where t is ±inf: keep just the factors
            // that may be non-finite (the others cannot change the value).
            pairs.retain(|&(b, _)| self.may_be_nonfinite(b));
            if pairs.is_empty() {
                return self.zero();
            }
        }
        // Merge powers of the same base and the same exponent sign.
        pairs.sort_by_key(|&(b, k)| (b, k < 0));
        let mut ops: Vec<TermId> = Vec::with_capacity(pairs.len() + 1);
        let mut i = 0;
        while i < pairs.len() {
            let (base, k0) = pairs[i];
            let mut k = k0;
            let mut j = i + 1;
            while j < pairs.len() && pairs[j].0 == base && (pairs[j].1 < 0) == (k0 < 0) {
                match i32::try_from(k + pairs[j].1) {
                    Ok(_) => k += pairs[j].1,
                    Err(_) => break,
                }
                j += 1;
            }
            i = j;
            let f = if k == 1 {
                base
            } else {
                self.powi(base, k as i32)
            };
            // An unfoldable power of a constant stays a factor; a folded one joins the
            // constant.
            match self.node(f) {
                Node::Const(c) => constant *= c,
                _ => ops.push(f),
            }
        }
        // `0 · t` is 0 only for finite t: IEEE makes it NaN where t is ±inf, so with a
        // factor that may be non-finite the zero stays (`Mul([0, t])`).
        if constant.is_zero() {
            ops.retain(|&o| self.may_be_nonfinite(o));
            if ops.is_empty() {
                return self.zero();
            }
        }
        ops.sort_unstable();
        if !constant.is_one() {
            let c = self.constant(constant);
            ops.insert(0, c);
        }
        match ops.len() {
            0 => self.one(),
            1 => ops[0],
            _ => self.intern(Node::Mul(ops.into())),
        }
    }
    pub fn mul(&mut self, a: TermId, b: TermId) -> TermId {
        self.product(&[a, b])
    }
    pub fn div(&mut self, a: TermId, b: TermId) -> TermId {
        let rb = self.recip(b);
        self.product(&[a, rb])
    }
    pub fn recip(&mut self, a: TermId) -> TermId {
        self.powi(a, -1)
    }

    /// `a^k`. Folds constants exactly (`0^k = +inf` for `k < 0`),
    /// `a^0 = 1`, `a^1 = a`, `(x^a)^b = x^(a·b)`, `(x·y)^k = x^k · y^k`, and the ±inf
    /// rules (`inf^-1 = 0`).
    pub fn powi(&mut self, a: TermId, k: i32) -> TermId {
        if self.is_nan(a) {
            return a;
        }
        if k == 0 {
            return self.one();
        }
        if k == 1 {
            return a;
        }
        match self.node(a).clone() {
            Node::Const(c) => {
                if c.is_zero() {
                    // IEEE: 1/0 = +inf (a zero's sign is not tracked: every zero is +0).
                    return if k > 0 { a } else { self.inf(false) };
                } else {
                    let bits = c.numer().bits().max(c.denom().bits());
                    if bits.saturating_mul(k.unsigned_abs() as u64) <= MAX_FOLD_BITS {
                        return self.constant(num_traits::Pow::pow(&c, k));
                    }
                }
            }
            Node::Inf { negative } => {
                if k < 0 {
                    return self.zero();
                }
                return self.inf(negative && k % 2 != 0);
            }
            Node::Pow(b, j) => {
                if let Ok(jk) = i32::try_from(j as i64 * k as i64) {
                    return self.powi(b, jk);
                }
            }
            // `(x·inf)^-1` is not `x^-1 · 0`: at x = 0 it is NaN (0·inf), so a negative
            // power of a product with a non-finite factor stays a `Pow` of the `Mul`.
            Node::Mul(ops) if k > 0 || !ops.iter().any(|&o| self.may_be_nonfinite(o)) => {
                let pows: Vec<TermId> = ops.iter().map(|&o| self.powi(o, k)).collect();
                return self.product(&pows);
            }
            _ => {}
        }
        self.intern(Node::Pow(a, k))
    }

    /// `a^k` for a non-integer constant `k`: `exp(k · log a)`, PyTorch's `pow(a, k)`
    /// over the extended reals (`0^k = 0` for `k > 0` through `exp(-inf)`, `+inf` for
    /// `k < 0`; NaN for `a < 0`, where `log` is NaN).
    pub fn pow_real(&mut self, a: TermId, k: BigRational) -> TermId {
        let l = self.call(Func::Log, a);
        let k = self.constant(k);
        let e = self.mul(k, l);
        self.call(Func::Exp, e)
    }

    /// `sign(a)`: 1, -1 or 0 (PyTorch's, where NaN gives 0: both comparisons fail).
    pub fn sign(&mut self, a: TermId) -> TermId {
        let z = self.zero();
        let (pos, neg) = (self.cmp(CmpOp::Gt, a, z), self.cmp(CmpOp::Lt, a, z));
        let (one, m1) = (self.one(), self.int(-1));
        let n = self.select(neg, m1, z);
        self.select(pos, one, n)
    }

    // ---- functions -----------------------------------------------------------------

    /// `f(a)`. Folds only where the result is exact: `exp(0) = 1`, `exp2(k) = 2^k` for
    /// integer `k`, `log(1) = 0`, `log2(2^k) = k`, `sqrt`/`rsqrt` of perfect squares,
    /// `abs`/`floor`/`ceil` of constants, `sin(0) = tanh(0) = erf(0) = 0`, `cos(0) = 1`;
    /// the IEEE values at ±inf; `abs`, `floor`, `ceil` are idempotent.
    pub fn call(&mut self, f: Func, a: TermId) -> TermId {
        if self.is_nan(a) {
            return a;
        }
        if let Some(negative) = self.as_inf(a) {
            return match (f, negative) {
                (Func::Exp | Func::Exp2, true) => self.zero(),
                (Func::Exp | Func::Exp2, false) => a,
                (Func::Log | Func::Log2 | Func::Sqrt, false) => a,
                (Func::Log | Func::Log2 | Func::Sqrt | Func::Rsqrt, true) => self.nan(),
                (Func::Rsqrt, false) => self.zero(),
                (Func::Tanh | Func::Erf, n) => self.int(if n { -1 } else { 1 }),
                (Func::Sin | Func::Cos, _) => self.nan(),
                (Func::Abs, _) => self.inf(false),
                (Func::Floor | Func::Ceil, _) => a,
                (Func::RoundF16 | Func::RoundBf16 | Func::RoundTf32, _) => a,
            };
        }
        if let Some(c) = self.as_const(a) {
            let c = c.clone();
            // The IEEE values outside the real domain: log(0) = -inf, rsqrt(0) = +inf,
            // log/sqrt/rsqrt of a negative number are NaN.
            match f {
                Func::Log | Func::Log2 if c.is_zero() => return self.inf(true),
                Func::Rsqrt if c.is_zero() => return self.inf(false),
                Func::Log | Func::Log2 | Func::Sqrt | Func::Rsqrt if c.is_negative() => {
                    return self.nan()
                }
                _ => {}
            }
            if let Some(v) = fold_call(f, &c) {
                return self.constant(v);
            }
        } else if matches!(f, Func::Log | Func::Log2 | Func::Sqrt | Func::Rsqrt)
            && self.closed[a.0 as usize]
        {
            // A closed argument (`log(log(1/2))`) clearly below 0 is outside the domain
            // for every input: IEEE's NaN, not a precondition.
            let v = self.eval(a, &|_, _| f64::NAN, &|_| f64::NAN);
            if v < -1e-9 || v.is_nan() {
                return self.nan();
            }
        }
        if matches!(f, Func::Abs | Func::Floor | Func::Ceil) || f.is_rounding() {
            if let Node::Call(g, _) = self.node(a) {
                if *g == f {
                    return a;
                }
            }
        }
        self.intern(Node::Call(f, a))
    }

    // ---- logic ---------------------------------------------------------------------

    /// Comparison. Folds between constants/infinities and for identical operands
    /// (`x <= x` is true); a comparison with NaN is false (`!=`: true), as in IEEE.
    pub fn cmp(&mut self, op: CmpOp, a: TermId, b: TermId) -> TermId {
        if self.is_nan(a) || self.is_nan(b) {
            return self.boolean(op == CmpOp::Ne);
        }
        let ord = match (self.ext(a), self.ext(b)) {
            (Some(x), Some(y)) => Some(x.cmp(&y)),
            // `t == t` fails where t is NaN (`log x != log x` is true at x < 0: the
            // NaN test kernels write).
            _ if a == b && self.nan_free(a) => Some(std::cmp::Ordering::Equal),
            // A term finite at every point lies strictly between -inf and +inf
            // (`m == -inf` of a running max that has met a finite score is false).
            // Not for `log x` or `1/x`: at x = 0 they are infinite.
            (None, Some(Ext::NegInf)) if self.is_total(a) => Some(std::cmp::Ordering::Greater),
            (None, Some(Ext::PosInf)) if self.is_total(a) => Some(std::cmp::Ordering::Less),
            (Some(Ext::NegInf), None) if self.is_total(b) => Some(std::cmp::Ordering::Less),
            (Some(Ext::PosInf), None) if self.is_total(b) => Some(std::cmp::Ordering::Greater),
            _ => None,
        };
        if let Some(o) = ord {
            use std::cmp::Ordering::*;
            let r = match op {
                CmpOp::Lt => o == Less,
                CmpOp::Le => o != Greater,
                CmpOp::Gt => o == Greater,
                CmpOp::Ge => o != Less,
                CmpOp::Eq => o == Equal,
                CmpOp::Ne => o != Equal,
            };
            return self.boolean(r);
        }
        self.intern(Node::Cmp(op, a, b))
    }
    /// Logical not: folds constants (0 → 1, other → 0), `!!c = c` for boolean `c`, and
    /// `!(a < b) = a >= b` where neither operand may be NaN.
    pub fn not(&mut self, a: TermId) -> TermId {
        match self.node(a).clone() {
            Node::NaN => a,
            Node::Const(_) | Node::Inf { .. } => {
                let b = self.as_bool(a) == Some(true);
                self.boolean(!b)
            }
            Node::Not(x) if self.is_boolean(x) => x,
            // `!(a < b) = a >= b` only without NaN operands (IEEE: both false then;
            // `log x` is NaN at x < 0).
            Node::Cmp(op, x, y) if self.nan_free(x) && self.nan_free(y) => {
                self.intern(Node::Cmp(op.negated(), x, y))
            }
            _ => self.intern(Node::Not(a)),
        }
    }
    fn junction(&mut self, terms: &[TermId], is_and: bool) -> TermId {
        // NaN wins over everything (checked first, so the result is order-independent).
        if let Some(&n) = terms.iter().find(|&&t| self.is_nan(t)) {
            return n;
        }
        let mut ops: Vec<TermId> = Vec::with_capacity(terms.len());
        for &t in terms {
            let children: Vec<TermId> = match self.node(t) {
                Node::And(ops) if is_and => ops.to_vec(),
                Node::Or(ops) if !is_and => ops.to_vec(),
                _ => vec![t],
            };
            for c in children {
                if self.is_nan(c) {
                    return c;
                }
                match self.as_bool(c) {
                    // The absorbing value (false for and, true for or) decides.
                    Some(v) if v != is_and => return self.boolean(v),
                    Some(_) => {}
                    None => ops.push(c),
                }
            }
        }
        ops.sort_unstable();
        ops.dedup();
        // `c && !c` is false, `c || !c` true (a comparison is false at NaN operands,
        // its negation true: still complementary).
        let mut complement = ops.iter().any(|&o| {
            matches!(self.node(o), Node::Not(x) if self.is_boolean(*x) && ops.binary_search(x).is_ok())
        });
        // A comparison and its negated form (`x > 0`, `x <= 0` of finite operands).
        if !complement && ops.len() <= 16 {
            let cmps: Vec<TermId> = ops
                .iter()
                .copied()
                .filter(|&o| matches!(self.node(o), Node::Cmp(..)))
                .collect();
            for o in cmps {
                let n = self.not(o);
                if ops.binary_search(&n).is_ok() {
                    complement = true;
                    break;
                }
            }
        }
        if complement {
            return self.boolean(!is_and);
        }
        match ops.len() {
            0 => self.boolean(is_and),
            1 if self.is_boolean(ops[0]) => ops[0],
            _ if is_and => self.intern(Node::And(ops.into())),
            _ => self.intern(Node::Or(ops.into())),
        }
    }
    /// n-ary and (flattened, sorted, deduplicated; constant operands folded).
    pub fn and(&mut self, a: TermId, b: TermId) -> TermId {
        self.junction(&[a, b], true)
    }
    pub fn or(&mut self, a: TermId, b: TermId) -> TermId {
        self.junction(&[a, b], false)
    }
    pub fn andn(&mut self, terms: &[TermId]) -> TermId {
        self.junction(terms, true)
    }
    pub fn orn(&mut self, terms: &[TermId]) -> TermId {
        self.junction(terms, false)
    }
    /// `if cond then a else b`: picks a side for a constant condition, `select(c, a, a) =
    /// a`, `select(!c, a, b) = select(c, b, a)`; a NaN condition gives NaN.
    pub fn select(&mut self, cond: TermId, a: TermId, b: TermId) -> TermId {
        if self.is_nan(cond) {
            return cond;
        }
        if let Some(v) = self.as_bool(cond) {
            return if v { a } else { b };
        }
        if a == b {
            return a;
        }
        if let Node::Not(c) = self.node(cond) {
            let c = *c;
            if self.is_boolean(c) {
                return self.select(c, b, a);
            }
        }
        self.intern(Node::Select(cond, a, b))
    }

    /// `t` with every subterm that `map` names replaced by its image (rebuilt through
    /// the constructors, so the result folds); images are not searched again.
    pub fn substitute(&mut self, t: TermId, map: &FxHashMap<TermId, TermId>) -> TermId {
        let mut memo: FxHashMap<TermId, TermId> = FxHashMap::default();
        self.substitute_in(t, map, &mut memo)
    }

    /// [`Terms::substitute`] sharing `memo` across calls with the same `map` (the
    /// elements of one output share most of their sub-terms).
    pub fn substitute_memo(
        &mut self,
        t: TermId,
        map: &FxHashMap<TermId, TermId>,
        memo: &mut FxHashMap<TermId, TermId>,
    ) -> TermId {
        self.substitute_in(t, map, memo)
    }

    fn substitute_in(
        &mut self,
        t: TermId,
        map: &FxHashMap<TermId, TermId>,
        memo: &mut FxHashMap<TermId, TermId>,
    ) -> TermId {
        if let Some(&r) = map.get(&t).or_else(|| memo.get(&t)) {
            return r;
        }
        let kids = self.children(t);
        let new: Vec<TermId> = kids
            .iter()
            .map(|&k| self.substitute_in(k, map, memo))
            .collect();
        let r = if new == kids {
            t
        } else {
            self.with_children(t, &new)
        };
        memo.insert(t, r);
        r
    }

    /// `t`'s operation over `kids` instead of its children, through the constructors
    /// above (so the result folds and stays canonical); a leaf is `t` itself.
    pub fn with_children(&mut self, t: TermId, kids: &[TermId]) -> TermId {
        match self.node(t).clone() {
            Node::Add(_) => self.sum(kids),
            Node::Mul(_) => self.product(kids),
            Node::Pow(_, k) => self.powi(kids[0], k),
            Node::Call(f, _) => self.call(f, kids[0]),
            Node::Max(_) => self.maxn(kids),
            Node::Min(_) => self.minn(kids),
            Node::MaxNum(_) => self.maxnum_n(kids),
            Node::MinNum(_) => self.minnum_n(kids),
            Node::Cmp(op, _, _) => self.cmp(op, kids[0], kids[1]),
            Node::Not(_) => self.not(kids[0]),
            Node::And(_) => self.andn(kids),
            Node::Or(_) => self.orn(kids),
            Node::Select(..) => self.select(kids[0], kids[1], kids[2]),
            Node::Opaque(op, _) => self.opaque(&op, kids),
            Node::Input { .. } | Node::Param(_) | Node::Const(_) | Node::Inf { .. } | Node::NaN => {
                t
            }
        }
    }

    /// An opaque bit-level operation (see [`Node::Opaque`]): no normalisation at all,
    /// so equal opcode text over equal operands is the same id.
    pub fn opaque(&mut self, op: &str, args: &[TermId]) -> TermId {
        self.intern(Node::Opaque(op.into(), args.into()))
    }
    /// The id of `op(args)` if it exists already (never inserts).
    pub fn find_opaque(&self, op: &str, args: &[TermId]) -> Option<TermId> {
        let node = Node::Opaque(op.into(), args.into());
        self.find(FxBuildHasher.hash_one(&node), &node)
    }
    /// Declare the elements of input tensor `tensor` integers in `lo..=hi`.
    pub fn declare_int_input(&mut self, tensor: &str, lo: i128, hi: i128) {
        self.int_inputs.insert(tensor.into(), (lo, hi));
    }
    /// The declared range of an integer input tensor (`None`: its elements are reals).
    pub fn int_input(&self, tensor: &str) -> Option<(i128, i128)> {
        self.int_inputs.get(tensor).copied()
    }
    /// A point's value `v` for an element of `tensor`, made an integer in the declared
    /// range where the tensor is an integer one (rounded, then clamped); reals unchanged.
    pub fn fit_input_value(&self, tensor: &str, v: f64) -> f64 {
        if let Some(vals) = self.int_values.get(tensor) {
            return gather::nearest_value(vals, v);
        }
        match self.int_input(tensor) {
            Some((lo, hi)) if v.is_finite() => v.round().clamp(lo as f64, hi as f64),
            Some((lo, _)) => lo as f64,
            None => v,
        }
    }
    /// The integers `id` can take on every input, when it is an integer-valued term this
    /// can see: integer constants, elements of integer inputs, and selects, sums,
    /// products, maxima and minima of those. `None` when unknown (a real, an opaque node).
    pub fn int_range(&self, id: TermId) -> Option<(i128, i128)> {
        self.int_range_depth(id, 0)
    }
    fn int_range_depth(&self, id: TermId, depth: u32) -> Option<(i128, i128)> {
        const LIMIT: i128 = 1 << 100;
        if depth > 64 {
            return None;
        }
        let r = match self.node(id) {
            Node::Const(c) if c.is_integer() => {
                let n = c.to_integer();
                let n: i128 = n.to_string().parse().ok()?;
                (n, n)
            }
            Node::Input { tensor, .. } => self.int_input(tensor)?,
            Node::Select(_, a, b) => {
                let (x, y) = (
                    self.int_range_depth(*a, depth + 1)?,
                    self.int_range_depth(*b, depth + 1)?,
                );
                (x.0.min(y.0), x.1.max(y.1))
            }
            Node::Max(xs) | Node::Min(xs) => {
                let max = matches!(self.node(id), Node::Max(_));
                let mut acc: Option<(i128, i128)> = None;
                for &x in xs.iter() {
                    let r = self.int_range_depth(x, depth + 1)?;
                    acc = Some(match acc {
                        None => r,
                        Some(a) if max => (a.0.max(r.0), a.1.max(r.1)),
                        Some(a) => (a.0.min(r.0), a.1.min(r.1)),
                    });
                }
                acc?
            }
            Node::Add(xs) => {
                let (mut lo, mut hi) = (0i128, 0i128);
                for &x in xs.iter() {
                    let r = self.int_range_depth(x, depth + 1)?;
                    lo = lo.checked_add(r.0)?;
                    hi = hi.checked_add(r.1)?;
                }
                (lo, hi)
            }
            Node::Mul(xs) => {
                let (mut lo, mut hi) = (1i128, 1i128);
                for &x in xs.iter() {
                    let r = self.int_range_depth(x, depth + 1)?;
                    let c = [
                        lo.checked_mul(r.0)?,
                        lo.checked_mul(r.1)?,
                        hi.checked_mul(r.0)?,
                        hi.checked_mul(r.1)?,
                    ];
                    lo = *c.iter().min()?;
                    hi = *c.iter().max()?;
                }
                (lo, hi)
            }
            // PTX integer code kept as opaque bits: `and` with a non-negative mask below
            // 2^31 lies in [0, mask] (its result's bits are the mask's), and `shl` by a
            // constant or `mul.wide` by a constant of a non-negative ranged value scale
            // its range (addresses into module tables: `(q & 8) * 8`).
            Node::Opaque(op, args) => {
                let small = |a: TermId| {
                    let c = self.as_const(a)?;
                    let v = c.is_integer().then(|| c.to_integer().to_i128())??;
                    (0..1i128 << 31).contains(&v).then_some(v)
                };
                let other = |k: usize| args.get(1 - k).copied();
                match (&**op, args.len()) {
                    (o, 2) if o.starts_with("and.b") => {
                        (0, args.iter().filter_map(|&a| small(a)).min()?)
                    }
                    (o, 2) if o.starts_with("shl.b") => {
                        let k = small(args[1]).filter(|&k| k < 32)?;
                        let (lo, hi) = self.int_range_depth(args[0], depth + 1)?;
                        (lo >= 0 && hi < 1 << 31).then_some((lo << k, hi << k))?
                    }
                    (o, 2) if o.starts_with("mul.wide.u") => {
                        let k = (0..2).find(|&k| small(args[k]).is_some())?;
                        let c = small(args[k])?;
                        let (lo, hi) = self.int_range_depth(other(k)?, depth + 1)?;
                        (lo >= 0 && hi < 1 << 31).then_some((lo * c, hi * c))?
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        (r.0.abs() < LIMIT && r.1.abs() < LIMIT).then_some(r)
    }
    /// The exact integer `value` (a bit pattern, as an operand of an opaque node).
    pub fn bits(&mut self, value: u64) -> TermId {
        self.constant(BigRational::from_integer(BigInt::from(value)))
    }
    /// Whether `id` contains an opaque node; its opcode when it does.
    pub fn find_opaque_in(&self, id: TermId) -> Option<Arc<str>> {
        let mut todo = vec![id];
        let mut seen = rustc_hash::FxHashSet::default();
        while let Some(t) = todo.pop() {
            if !seen.insert(t) {
                continue;
            }
            if let Node::Opaque(op, _) = self.node(t) {
                return Some(op.clone());
            }
            self.for_each_child(t, |c| todo.push(c));
        }
        None
    }

    pub fn display(&self, id: TermId) -> Display<'_> {
        Display { terms: self, id }
    }
}

/// Exact value of `f(c)` where it is rational (see [`Terms::call`]).
fn fold_call(f: Func, c: &BigRational) -> Option<BigRational> {
    let zero = c.is_zero();
    match f {
        Func::Exp if zero => Some(rat(1)),
        Func::Exp2 if c.is_integer() => {
            let k = c
                .to_integer()
                .to_i32()
                .filter(|k| k.unsigned_abs() <= 4096)?;
            Some(num_traits::Pow::pow(&rat(2), k))
        }
        Func::Log if c.is_one() => Some(rat(0)),
        Func::Log2 if c.is_positive() => {
            // c = 2^k exactly?
            let (n, d) = (c.numer(), c.denom());
            let one = BigInt::from(1);
            if d.is_one() && (n & (n - &one)).is_zero() {
                Some(rat(n.bits() as i64 - 1))
            } else if n.is_one() && (d & (d - &one)).is_zero() {
                Some(rat(-(d.bits() as i64 - 1)))
            } else {
                None
            }
        }
        Func::Sqrt if !c.is_negative() => exact_sqrt(c),
        Func::Rsqrt if c.is_positive() => exact_sqrt(c).map(|r| r.recip()),
        Func::Sin | Func::Tanh | Func::Erf if zero => Some(rat(0)),
        Func::Cos if zero => Some(rat(1)),
        Func::Abs => Some(c.abs()),
        Func::Floor => Some(c.floor()),
        Func::Ceil => Some(c.ceil()),
        // Only a constant that is an f64 exactly: rounding its f64 once is exact (a
        // rational between f64s would be rounded twice).
        Func::RoundF16 | Func::RoundBf16 | Func::RoundTf32 => {
            let x = c.to_f64()?;
            let r = crate::term::eval_func(f, x);
            (BigRational::from_float(x).as_ref() == Some(c) && r.is_finite())
                .then(|| BigRational::from_float(r))
                .flatten()
        }
        _ => None,
    }
}

fn exact_sqrt(c: &BigRational) -> Option<BigRational> {
    let n = c.numer().sqrt();
    let d = c.denom().sqrt();
    if &(&n * &n) == c.numer() && &(&d * &d) == c.denom() {
        Some(BigRational::new(n, d))
    } else {
        None
    }
}
