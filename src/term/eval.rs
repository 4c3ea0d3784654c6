//! f64 evaluation of terms: memoised over the DAG and iterative (no recursion), so that
//! terms thousands of levels deep evaluate without growing the call stack.

use super::node::{Func, Node, TermId};
use super::store::Terms;
use num_traits::ToPrimitive;
use rustc_hash::{FxHashMap, FxHashSet};

/// Evaluates many terms at one point (one assignment of inputs and params), sharing the
/// values of common sub-terms between calls.
pub struct Evaluator<'a> {
    terms: &'a Terms,
    input: &'a dyn Fn(&str, &[i64]) -> f64,
    param: &'a dyn Fn(&str) -> f64,
    cache: FxHashMap<TermId, f64>,
}

impl<'a> Evaluator<'a> {
    pub fn new(
        terms: &'a Terms,
        input: &'a dyn Fn(&str, &[i64]) -> f64,
        param: &'a dyn Fn(&str) -> f64,
    ) -> Self {
        Evaluator {
            terms,
            input,
            param,
            cache: FxHashMap::default(),
        }
    }

    /// The value of `id`; booleans are 1.0/0.0, `select` picks by `cond != 0`.
    pub fn eval(&mut self, id: TermId) -> f64 {
        if let Some(&v) = self.cache.get(&id) {
            return v;
        }
        // Collect the not-yet-evaluated sub-DAG, then evaluate it bottom-up: children
        // always have smaller ids than their parents.
        let mut todo = vec![id];
        let mut seen = FxHashSet::default();
        let mut order = Vec::new();
        while let Some(t) = todo.pop() {
            if self.cache.contains_key(&t) || !seen.insert(t) {
                continue;
            }
            order.push(t);
            self.terms.for_each_child(t, |c| todo.push(c));
        }
        order.sort_unstable();
        for t in order {
            let v = self.eval_node(t);
            self.cache.insert(t, v);
        }
        self.cache[&id]
    }

    fn get(&self, id: TermId) -> f64 {
        self.cache[&id]
    }

    fn eval_node(&self, id: TermId) -> f64 {
        match self.terms.node(id) {
            Node::Input { tensor, index } => (self.input)(tensor, index),
            Node::Param(name) => (self.param)(name),
            Node::Const(c) => c.to_f64().unwrap_or(f64::NAN),
            Node::Inf { negative: true } => f64::NEG_INFINITY,
            Node::Inf { negative: false } => f64::INFINITY,
            // Bit-level code has no real value.
            Node::NaN | Node::Opaque(..) => f64::NAN,
            Node::Add(ops) => ops.iter().map(|&o| self.get(o)).sum(),
            Node::Mul(ops) => ops.iter().map(|&o| self.get(o)).product(),
            Node::Pow(b, k) => self.get(*b).powi(*k),
            Node::Call(f, a) => eval_func(*f, self.get(*a)),
            Node::Max(ops) => extremum(ops.iter().map(|&o| self.get(o)), f64::max),
            Node::Min(ops) => extremum(ops.iter().map(|&o| self.get(o)), f64::min),
            // f64::max/min are IEEE maxNum/minNum: they return the operand that is not NaN.
            Node::MaxNum(ops) => ops.iter().map(|&o| self.get(o)).fold(f64::NAN, f64::max),
            Node::MinNum(ops) => ops.iter().map(|&o| self.get(o)).fold(f64::NAN, f64::min),
            Node::Cmp(op, a, b) => {
                let (a, b) = (self.get(*a), self.get(*b));
                bool_value(op.holds(a, b))
            }
            Node::Not(a) => {
                let a = self.get(*a);
                if a.is_nan() {
                    a
                } else {
                    bool_value(a == 0.0)
                }
            }
            Node::And(ops) => junction(ops.iter().map(|&o| self.get(o)), true),
            Node::Or(ops) => junction(ops.iter().map(|&o| self.get(o)), false),
            Node::Select(c, a, b) => {
                let c = self.get(*c);
                if c.is_nan() {
                    c
                } else if c != 0.0 {
                    self.get(*a)
                } else {
                    self.get(*b)
                }
            }
        }
    }
}

fn bool_value(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// NaN-propagating n-ary max/min (unlike `f64::max`, which ignores NaN).
fn extremum(values: impl Iterator<Item = f64>, pick: fn(f64, f64) -> f64) -> f64 {
    let mut acc: Option<f64> = None;
    for v in values {
        if v.is_nan() {
            return v;
        }
        acc = Some(acc.map_or(v, |a| pick(a, v)));
    }
    acc.unwrap_or(f64::NAN)
}

fn junction(values: impl Iterator<Item = f64>, is_and: bool) -> f64 {
    let mut result = is_and;
    for v in values {
        if v.is_nan() {
            return v;
        }
        if is_and {
            result &= v != 0.0;
        } else {
            result |= v != 0.0;
        }
    }
    bool_value(result)
}

/// The f64 value of `f(x)`.
pub fn eval_func(f: Func, x: f64) -> f64 {
    match f {
        Func::Exp => x.exp(),
        Func::Exp2 => x.exp2(),
        Func::Log => x.ln(),
        Func::Log2 => x.log2(),
        Func::Sqrt => x.sqrt(),
        Func::Rsqrt => 1.0 / x.sqrt(),
        Func::Tanh => x.tanh(),
        Func::Sin => x.sin(),
        Func::Cos => x.cos(),
        Func::Erf => erf(x),
        Func::Abs => x.abs(),
        Func::Floor => x.floor(),
        Func::Ceil => x.ceil(),
        Func::Rint => x.round_ties_even(),
        Func::RoundF16 => round_float(x, F16),
        Func::RoundBf16 => round_float(x, BF16),
        Func::RoundTf32 => round_float(x, TF32),
    }
}

/// A binary float format: significand bits (with the implicit one), exponent range.
#[derive(Clone, Copy, Debug)]
pub struct FloatFormat {
    pub precision: i32,
    pub emin: i32,
    pub emax: i32,
}

pub const F16: FloatFormat = FloatFormat {
    precision: 11,
    emin: -14,
    emax: 15,
};
pub const BF16: FloatFormat = FloatFormat {
    precision: 8,
    emin: -126,
    emax: 127,
};
pub const TF32: FloatFormat = FloatFormat {
    precision: 11,
    emin: -126,
    emax: 127,
};

/// `x` rounded to `fmt`, to nearest with ties to even, subnormals included; a
/// magnitude that rounds to `2^(emax+1)` or beyond is ±inf (IEEE overflow), and the
/// sign of zero is kept. Exact: the scalings are by powers of two and
/// `round_ties_even` rounds an f64 to an integer exactly.
pub fn round_float(x: f64, fmt: FloatFormat) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let a = x.abs();
    // Below half the smallest subnormal of every format here (and f64 subnormals,
    // whose exponent the bit read below would get wrong): rounds to zero.
    if a < f64::MIN_POSITIVE {
        return 0.0f64.copysign(x);
    }
    let e = ((a.to_bits() >> 52) as i32 - 1023).max(fmt.emin);
    // The format's spacing at exponent e (at emin: the subnormal spacing).
    let quantum = pow2(e - (fmt.precision - 1));
    let r = (a / quantum).round_ties_even() * quantum;
    if r >= pow2(fmt.emax + 1) {
        return f64::INFINITY.copysign(x);
    }
    r.copysign(x)
}

/// `2^k` for a normal f64 exponent, built from its bits.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// The error function, to about 1e-14 relative accuracy.
///
/// Uses `erf(x) = 2/sqrt(pi) · exp(-x²) · Σ 2ⁿ x²ⁿ⁺¹ / (1·3···(2n+1))`, whose terms all
/// have the sign of `x` (no cancellation); beyond |x| = 6, erf(x) rounds to ±1.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.abs() > 6.0 {
        return x.signum();
    }
    let x2 = x * x;
    let mut term = x;
    let mut sum = x;
    let mut n = 0.0;
    while term.abs() > 1e-17 * sum.abs() {
        n += 1.0;
        term *= 2.0 * x2 / (2.0 * n + 1.0);
        sum += term;
        if n > 500.0 {
            break;
        }
    }
    // The series' rounding can overshoot 1 by a few ulps near |x| = 6; |erf| <= 1.
    (std::f64::consts::FRAC_2_SQRT_PI * (-x2).exp() * sum).clamp(-1.0, 1.0)
}

impl Terms {
    /// The f64 value of `id` (memoised over the DAG; booleans are 1.0/0.0).
    pub fn eval(
        &self,
        id: TermId,
        input: &dyn Fn(&str, &[i64]) -> f64,
        param: &dyn Fn(&str) -> f64,
    ) -> f64 {
        Evaluator::new(self, input, param).eval(id)
    }
}
