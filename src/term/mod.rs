//! Terms: one hash-consed DAG of real-valued expressions over input tensor elements.
//!
//! Architecture invariant: a [`TermId`] is an index into one [`Terms`] store; equal
//! nodes get equal ids (hash-consing), so structural equality is `==` on ids. The
//! smart constructors only do *safe local normalisation*: flatten and sort n-ary
//! `+ * max min`, fold constants exactly (rationals, never floats), drop neutral
//! elements, and apply the IEEE rules of ±inf that masked lanes rely on
//! (`max(-inf, x) = x`, `exp(-inf) = 0`, `x + -inf = -inf` for finite x). Anything
//! deeper (distributing, merging exponentials, deciding equality) belongs to `decide`.
//! Inputs are finite reals; no constructor ever panics.
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

use num_bigint::BigInt;
use num_rational::BigRational;
use std::fmt;
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
    Add(Box<[TermId]>),
    /// n-ary product, operands sorted by id, at most one constant (first), length ≥ 2.
    Mul(Box<[TermId]>),
    /// Integer power, exponent ∉ {0, 1}; division is `Pow(d, -1)`.
    Pow(TermId, i32),
    Call(Func, TermId),
    /// n-ary, sorted, deduplicated, length ≥ 2.
    Max(Box<[TermId]>),
    Min(Box<[TermId]>),
    /// A boolean-valued comparison of two reals.
    Cmp(CmpOp, TermId, TermId),
    Not(TermId),
    And(Box<[TermId]>),
    Or(Box<[TermId]>),
    /// `if cond then a else b`.
    Select(TermId, TermId, TermId),
}

/// The hash-consing store.
#[derive(Default)]
pub struct Terms {
    // implementation-defined
}

impl Terms {
    pub fn new() -> Self {
        todo!()
    }
    pub fn len(&self) -> usize {
        todo!()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn node(&self, _id: TermId) -> &Node {
        todo!()
    }
    pub fn input(&mut self, _tensor: &str, _index: &[i64]) -> TermId {
        todo!()
    }
    pub fn param(&mut self, _name: &str) -> TermId {
        todo!()
    }
    pub fn constant(&mut self, _value: BigRational) -> TermId {
        todo!()
    }
    pub fn int(&mut self, value: i64) -> TermId {
        self.constant(BigRational::from_integer(BigInt::from(value)))
    }
    pub fn float(&mut self, _value: f64) -> TermId {
        todo!()
    }
    pub fn zero(&mut self) -> TermId {
        self.int(0)
    }
    pub fn one(&mut self) -> TermId {
        self.int(1)
    }
    pub fn add(&mut self, a: TermId, b: TermId) -> TermId {
        self.sum(&[a, b])
    }
    pub fn sum(&mut self, _terms: &[TermId]) -> TermId {
        todo!()
    }
    pub fn sub(&mut self, _a: TermId, _b: TermId) -> TermId {
        todo!()
    }
    pub fn neg(&mut self, _a: TermId) -> TermId {
        todo!()
    }
    pub fn mul(&mut self, a: TermId, b: TermId) -> TermId {
        self.product(&[a, b])
    }
    pub fn product(&mut self, _terms: &[TermId]) -> TermId {
        todo!()
    }
    pub fn div(&mut self, _a: TermId, _b: TermId) -> TermId {
        todo!()
    }
    pub fn recip(&mut self, _a: TermId) -> TermId {
        todo!()
    }
    pub fn powi(&mut self, _a: TermId, _exponent: i32) -> TermId {
        todo!()
    }
    pub fn call(&mut self, _f: Func, _a: TermId) -> TermId {
        todo!()
    }
    pub fn max(&mut self, a: TermId, b: TermId) -> TermId {
        self.maxn(&[a, b])
    }
    pub fn min(&mut self, a: TermId, b: TermId) -> TermId {
        self.minn(&[a, b])
    }
    pub fn maxn(&mut self, _terms: &[TermId]) -> TermId {
        todo!()
    }
    pub fn minn(&mut self, _terms: &[TermId]) -> TermId {
        todo!()
    }
    pub fn cmp(&mut self, _op: CmpOp, _a: TermId, _b: TermId) -> TermId {
        todo!()
    }
    pub fn not(&mut self, _a: TermId) -> TermId {
        todo!()
    }
    pub fn and(&mut self, _a: TermId, _b: TermId) -> TermId {
        todo!()
    }
    pub fn or(&mut self, _a: TermId, _b: TermId) -> TermId {
        todo!()
    }
    pub fn select(&mut self, _cond: TermId, _a: TermId, _b: TermId) -> TermId {
        todo!()
    }
    pub fn as_const(&self, _id: TermId) -> Option<&BigRational> {
        todo!()
    }
    pub fn as_bool(&self, _id: TermId) -> Option<bool> {
        todo!()
    }
    pub fn eval(
        &self,
        _id: TermId,
        _input: &dyn Fn(&str, &[i64]) -> f64,
        _param: &dyn Fn(&str) -> f64,
    ) -> f64 {
        todo!()
    }
    pub fn display(&self, id: TermId) -> Display<'_> {
        Display { terms: self, id }
    }
}

/// Printer returned by [`Terms::display`].
pub struct Display<'a> {
    terms: &'a Terms,
    id: TermId,
}

impl fmt::Display for Display<'_> {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let _ = (self.terms, self.id);
        todo!()
    }
}
