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

mod arith;
mod display;
mod dyadic;
mod eval;
mod extrema;
pub mod gather;
mod logic;
mod node;
pub mod rand;
mod store;
mod translate;
pub use dyadic::mul as rational_mul;

pub use display::{format_const, Display};
pub use eval::{erf, eval_func, round_float, Evaluator, FloatFormat, BF16, F16, TF32};
pub use node::{CmpOp, Func, Node, TermId};
pub use store::{Terms, PLACEHOLDER};
