//! The refuter: both sides evaluated in f64 at deterministic points (see
//! [`point_value`]), with a first-order bound on the rounding error, so that a
//! difference within rounding is never taken for a counterexample.
//!
//! Invariant: a counterexample is a point where two evaluations (the second with
//! compensated sums) show the sides apart beyond their error bounds; its leaf values
//! are exactly those the evaluation used.

use super::canon::{known_value, Dag};
use super::evals::{Lookup, Memo, Number, Values};
use super::points::{
    leaf_hash, leaf_of, point_value, Counterexample, Leaf, SpecSide, BOUNDARY_POINT,
    BOUNDARY_POINTS,
};
use crate::term::{CmpOp, Func, Node, TermId, Terms};
use num_traits::ToPrimitive;
use std::cell::{OnceCell, RefCell};

const EPS: f64 = f64::EPSILON;

/// A value at one point: the f64 `v`, a first-order bound `err` on its rounding error
/// (absolute), and how it may have left the real line through the point rather than
/// through IEEE's rules on constants (`0/0` in a masked lane, `exp(-inf)`): at a `pole`
/// (`1/x` at x = 0, `log`/`sqrt` of a negative: IEEE's value, but its sign may hang on
/// a zero's sign, which terms do not track), or by `overflow` (f64 ran out of range
/// where the real value is finite: no verdict from such a point).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Val {
    v: f64,
    err: f64,
    pole: bool,
    overflow: bool,
}

/// f64 evaluation of the reachable DAG at one point; constants standing for known
/// constants take the known values (`consts`). `compensated` sums with Neumaier's
/// algorithm. Returns both roots' values: the error bound is a first-order estimate
/// of the rounding error, so that a difference within rounding is never taken for a
/// counterexample.
fn evaluate(
    terms: &Terms,
    roots: [TermId; 2],
    leaf_value: &dyn Fn(TermId) -> f64,
    compensated: bool,
    const_rel_err: f64,
    val: &mut Lookup<'_, Val, impl Number>,
) -> [Val; 2] {
    // Children before parents; a node already in `val` (met in an earlier pair at the
    // same point, see `Shared::evals`) is neither walked nor evaluated again: the value
    // of a node is a function of the node and its leaves' values alone.
    let mut stack: Vec<(TermId, bool)> = roots.iter().map(|&r| (r, false)).collect();
    // The children's values of the node evaluated, and a product's suffix products.
    let (mut kids, mut suffix) = (Vec::new(), Vec::new());
    while let Some((t, expanded)) = stack.pop() {
        if val.has(t) {
            continue;
        }
        if !expanded {
            stack.push((t, true));
            terms.for_each_child(t, |c| {
                if !val.has(c) {
                    stack.push((c, false));
                }
            });
            continue;
        }
        kids.clear();
        terms.for_each_child(t, |c| kids.push(val.value(c)));
        let v = eval_node(
            terms,
            t,
            leaf_value,
            compensated,
            const_rel_err,
            &kids,
            &mut suffix,
        );
        val.set(t, v);
    }
    [val.value(roots[0]), val.value(roots[1])]
}

/// The value of `t`, whose children's values are `kids` (in operand order); `suffix`
/// is scratch space.
fn eval_node(
    terms: &Terms,
    t: TermId,
    leaf_value: &dyn Fn(TermId) -> f64,
    compensated: bool,
    const_rel_err: f64,
    kids: &[Val],
    suffix: &mut Vec<f64>,
) -> Val {
    {
        let (v, err) = match terms.node(t) {
            Node::Input { .. } | Node::Param(_) => (leaf_value(t), 0.0),
            Node::Const(_) => {
                let v = const_value(terms, t).unwrap_or(f64::NAN);
                (v, v.abs() * const_rel_err)
            }
            Node::Inf { negative } => {
                let v = if *negative {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                };
                (v, 0.0)
            }
            Node::NaN | Node::Opaque(..) => (f64::NAN, f64::NAN),
            Node::Add(_) => {
                let abs_sum: f64 = kids.iter().map(|k| k.v.abs()).sum();
                let err: f64 = kids.iter().map(|k| k.err).sum::<f64>() + abs_sum * EPS * 2.0;
                let v = if compensated {
                    let (mut s, mut comp) = (0.0f64, 0.0f64);
                    for k in kids {
                        let x = k.v;
                        let t2 = s + x;
                        if s.abs() >= x.abs() {
                            comp += (s - t2) + x;
                        } else {
                            comp += (x - t2) + s;
                        }
                        s = t2;
                    }
                    s + comp
                } else {
                    kids.iter().map(|k| k.v).sum()
                };
                (v, err)
            }
            Node::Mul(_) => {
                let vals = kids;
                let v: f64 = vals.iter().map(|x| x.v).product();
                // err = Σ errᵢ · Π_{j≠i} |vⱼ| (prefix/suffix products avoid 0/0)
                let n = vals.len();
                suffix.clear();
                suffix.resize(n + 1, 1.0f64);
                for i in (0..n).rev() {
                    suffix[i] = suffix[i + 1] * vals[i].v.abs();
                }
                let mut prefix = 1.0f64;
                let mut err = v.abs() * EPS * n as f64;
                for i in 0..n {
                    err += vals[i].err * prefix * suffix[i + 1];
                    prefix *= vals[i].v.abs();
                }
                (v, err)
            }
            Node::Pow(_, k) => {
                let Val { v: bv, err: be, .. } = kids[0];
                let v = bv.powi(*k);
                let rel = if bv == 0.0 {
                    f64::INFINITY
                } else {
                    be / bv.abs()
                };
                (v, v.abs() * (rel * k.unsigned_abs() as f64 + EPS * 2.0))
            }
            Node::Call(f, _) if f.is_rounding() => {
                // Rounding is monotone: over the argument's interval [av - ae, av + ae]
                // the result lies between the roundings of its ends (0 when both ends
                // round alike, so a visible rounding stays far beyond the bound).
                let Val { v: av, err: ae, .. } = kids[0];
                let v = crate::term::eval_func(*f, av);
                let lo = crate::term::eval_func(*f, av - ae);
                let hi = crate::term::eval_func(*f, av + ae);
                (v, (v - lo).max(hi - v))
            }
            Node::Call(f, _) => {
                let Val { v: av, err: ae, .. } = kids[0];
                let v = crate::term::eval_func(*f, av);
                let err = match f {
                    Func::Exp => v.abs() * (ae + EPS),
                    Func::Exp2 => v.abs() * (ae * std::f64::consts::LN_2 + EPS),
                    Func::Log | Func::Log2 => ae / av.abs() * 1.5 + v.abs() * EPS,
                    Func::Sqrt | Func::Rsqrt => v.abs() * (ae / av.abs() * 0.5 + EPS),
                    Func::Erf => ae * 1.2 + v.abs() * EPS,
                    Func::Floor | Func::Ceil | Func::Rint => 0.0,
                    _ => ae + v.abs() * EPS,
                };
                (v, err)
            }
            Node::Max(_) | Node::Min(_) => {
                let is_max = matches!(terms.node(t), Node::Max(_));
                let mut acc: Option<f64> = None;
                let mut err = 0.0f64;
                for &Val { v: x, err: xe, .. } in kids {
                    err = err.max(xe);
                    acc = Some(match acc {
                        _ if x.is_nan() => f64::NAN,
                        None => x,
                        Some(a) if a.is_nan() => a,
                        Some(a) => {
                            if is_max {
                                a.max(x)
                            } else {
                                a.min(x)
                            }
                        }
                    });
                }
                (acc.unwrap_or(f64::NAN), err)
            }
            // IEEE maxNum/minNum: NaN operands are dropped (f64::max/min are maxNum).
            Node::MaxNum(_) | Node::MinNum(_) => {
                let is_max = matches!(terms.node(t), Node::MaxNum(_));
                let mut acc: Option<f64> = None;
                let mut err = 0.0f64;
                for &Val { v: x, err: xe, .. } in kids {
                    if x.is_nan() {
                        continue;
                    }
                    err = err.max(xe);
                    acc = Some(match acc {
                        None => x,
                        Some(a) if is_max => a.max(x),
                        Some(a) => a.min(x),
                    });
                }
                match acc {
                    Some(v) => (v, err),
                    None => (f64::NAN, f64::NAN),
                }
            }
            Node::Cmp(op, x, y) => {
                let (a, b) = (kids[0], kids[1]);
                let (ea, eb) = (a.err, b.err);
                // Integer-valued sides (a class label against `ignore_index`) evaluate
                // exactly below 2^53: they compare exactly, rounding bounds aside.
                let exact_ints = || {
                    [a.v, b.v]
                        .iter()
                        .all(|v| v.fract() == 0.0 && v.abs() < 9.0e15)
                        && terms.int_range(*x).is_some()
                        && terms.int_range(*y).is_some()
                };
                // Sides within rounding of each other: the reals may order them either
                // way (`x · x^-1 >= 1` can round to false), so no verdict at this point.
                if ea + eb > 0.0 && (a.v - b.v).abs() <= ea + eb && !exact_ints() {
                    (f64::NAN, f64::NAN)
                } else {
                    (op.holds(a.v, b.v) as u8 as f64, 0.0)
                }
            }
            Node::Not(_) => {
                let a = kids[0].v;
                if a.is_nan() {
                    (a, a)
                } else {
                    ((a == 0.0) as u8 as f64, 0.0)
                }
            }
            Node::And(_) | Node::Or(_) => {
                let is_and = matches!(terms.node(t), Node::And(_));
                let mut r = is_and;
                let mut nan = false;
                for k in kids {
                    let x = k.v;
                    nan |= x.is_nan();
                    if is_and {
                        r &= x != 0.0;
                    } else {
                        r |= x != 0.0;
                    }
                }
                if nan {
                    (f64::NAN, f64::NAN)
                } else {
                    (r as u8 as f64, 0.0)
                }
            }
            Node::Select(..) => {
                let c = kids[0];
                // A NaN condition's value is the select's; a NaN value's err is never
                // read (a parent of NaN is NaN, but for a comparison, whose verdict
                // on NaN ignores err, and `differ` reads err of finite values only).
                let picked = if c.v.is_nan() {
                    c
                } else if c.v != 0.0 {
                    kids[1]
                } else {
                    kids[2]
                };
                let (pole, overflow) = (c.pole || picked.pole, c.overflow || picked.overflow);
                return Val {
                    pole,
                    overflow,
                    ..picked
                };
            }
        };
        // A child's pole or overflow carries over (a comparison's too: its truth value
        // was taken there); this node adds one where it left the real line from finite
        // operands: a pole where a power, log or root met its domain's edge, an
        // overflow elsewhere (exp of a large value, a product of large values).
        let mut children_finite = true;
        let mut children_nonzero = true;
        let (mut pole, mut overflow) = (false, false);
        let mut operand = f64::NAN;
        for c in kids {
            pole |= c.pole;
            overflow |= c.overflow;
            children_finite &= c.v.is_finite();
            children_nonzero &= c.v != 0.0;
            operand = c.v;
        }
        // Underflow: exp(-1250) or a product of tiny values is 0 in f64 but not over
        // the reals; a pole it leads to (`1/exp(-1250)`) says nothing of the real value.
        if children_finite && v == 0.0 {
            match terms.node(t) {
                Node::Call(Func::Exp | Func::Exp2, _) => overflow = true,
                Node::Mul(_) | Node::Pow(..) if children_nonzero => overflow = true,
                _ => {}
            }
        }
        if children_finite && !v.is_finite() {
            match terms.node(t) {
                Node::Pow(..) if operand == 0.0 => pole = true,
                Node::Call(Func::Log | Func::Log2 | Func::Sqrt | Func::Rsqrt, _) => pole = true,
                Node::Input { .. } | Node::Param(_) | Node::Const(_) => {}
                Node::NaN | Node::Inf { .. } => {}
                _ => overflow = true,
            }
        }
        overflow |= matches!(terms.node(t), Node::Opaque(..));
        Val {
            v,
            err,
            pole,
            overflow,
        }
    }
}

/// The f64 value of a constant node: the known value it stands for (`log(2)`), else
/// its own.
fn const_value(terms: &Terms, t: TermId) -> Option<f64> {
    terms
        .as_const(t)
        .map(|c| known_value(c).unwrap_or_else(|| c.to_f64().unwrap_or(f64::NAN)))
}

/// The sides differ: both finite, beyond the relative tolerance and far beyond rounding
/// error; or one is ±inf or NaN where the other is finite (a NaN output element is
/// wrong, and so is a kernel that is undefined where the spec is not, whatever
/// preconditions would make them equal); or they are different non-finite values by
/// IEEE's rules, away from poles (where a zero's sign could swap an infinity's).
/// Never at a point where f64 overflowed, nor where the spec side (`spec`) is NaN
/// because the point left its domain: PyTorch gives no number there, so any value of
/// the other side refines it (see [`SpecSide`]).
fn differ(a: Val, b: Val, spec: SpecSide) -> bool {
    let undefined = |s: Val| s.v.is_nan() && s.pole;
    match spec {
        SpecSide::Left if undefined(a) => return false,
        SpecSide::Right if undefined(b) => return false,
        _ => {}
    }
    if !a.v.is_finite() || !b.v.is_finite() {
        if a.overflow || b.overflow {
            return false;
        }
        if a.v.is_finite() != b.v.is_finite() {
            return true;
        }
        if a.pole || b.pole {
            return false;
        }
        let same = (a.v.is_nan() && b.v.is_nan()) || a.v == b.v;
        return !same;
    }
    if a.err.is_nan() || b.err.is_nan() {
        return false;
    }
    // Far beyond the rounding error bound, however small: `x + e^-x` against `x`
    // above 20 (softplus without its threshold) differ by 2e-9, far below f32's
    // resolution but a real difference (docs/semantics.md: the reals).
    let diff = (a.v - b.v).abs();
    diff > 0.0 && diff > 1e3 * (a.err + b.err)
}

/// Whether two values that differ are within f32's resolution of each other (half an
/// f32 ulp of the larger): a kernel computing in f32 may round the difference away.
fn within_f32(a: f64, b: f64) -> bool {
    let diff = (a - b).abs();
    diff.is_finite() && diff <= a.abs().max(b.abs()) * f64::from(f32::EPSILON) / 2.0
}

pub(super) struct Refuter<'a> {
    terms: &'a Terms,
    roots: [TermId; 2],
    /// Values of sub-terms at points whose leaf values are a function of the point
    /// alone, shared by the pairs of a chunk (see `Shared::evals`).
    evals: &'a RefCell<EvalMemo>,
    /// The whole reachable DAG, walked only where a search or a counterexample needs
    /// it: a pair that holds costs its new sub-terms, not the ones earlier pairs met.
    dag: OnceCell<Dag>,
    /// Which root is a spec, if either (see [`differ`]).
    spec: SpecSide,
}

/// Sub-term values by (point, compensated, constant error bits), for one chunk.
pub(super) type EvalMemo = Memo<Val>;

impl<'a> Refuter<'a> {
    pub fn new(
        terms: &'a Terms,
        roots: [TermId; 2],
        evals: &'a RefCell<EvalMemo>,
        spec: SpecSide,
    ) -> Self {
        Refuter {
            terms,
            roots,
            evals,
            dag: OnceCell::new(),
            spec,
        }
    }

    fn dag(&self) -> &Dag {
        self.dag.get_or_init(|| Dag::new(self.terms, &self.roots))
    }

    /// The value a point gives leaf node `t` (an integer tensor's element takes an
    /// integer value in its range).
    fn leaf_value(&self, t: TermId, value: &dyn Fn(&Leaf) -> f64) -> (Leaf, f64) {
        let leaf = leaf_of(self.terms, t).expect("evaluated as a leaf: an input or a param");
        let v = value(&leaf);
        let v = match &leaf {
            Leaf::Input { tensor, .. } => self.terms.fit_input_value(tensor, v),
            Leaf::Param(_) => v,
        };
        (leaf, v)
    }

    /// Tries one point; `Some` counterexample when the sides differ (twice). `memo`:
    /// the leaf values are those of this point for every pair of the chunk (a seed,
    /// or the caller's point), so sub-term values found earlier are reused.
    pub(super) fn try_point(
        &self,
        seed: u64,
        value: &dyn Fn(&Leaf) -> f64,
        memo: bool,
    ) -> Option<Counterexample> {
        let leaf_value = |t: TermId| self.leaf_value(t, value).1;
        let eval = |compensated, const_err: f64| {
            let mut evals = self.evals.borrow_mut();
            let len = self.terms.len();
            // A cache only (values are a function of the node and the point): bounded,
            // so pairs that share little do not accumulate values.
            let val = if memo {
                evals.shared(len, (seed, compensated, const_err.to_bits()))
            } else {
                evals.own(len)
            };
            let (terms, roots) = (self.terms, self.roots);
            match val {
                Values::Dense(mut v) => {
                    evaluate(terms, roots, &leaf_value, compensated, const_err, &mut v)
                }
                Values::Hashed(mut v) => {
                    evaluate(terms, roots, &leaf_value, compensated, const_err, &mut v)
                }
            }
        };
        let [a, b] = eval(false, EPS);
        if !differ(a, b, self.spec) {
            return None;
        }
        let [a2, b2] = eval(true, EPS);
        if !differ(a2, b2, self.spec) {
            return None;
        }
        // A small difference (below 1e-3 relative) stands only if rounding every
        // constant to f32 (a compiler folding `scale · log2(e)` in f32, amplified by a
        // large exponent) could not explain it.
        let diff = (a2.v - b2.v).abs();
        if diff.is_finite() && diff <= 1e-3 * a2.v.abs().max(b2.v.abs()) {
            let [a3, b3] = eval(true, f64::from(f32::EPSILON) / 2.0);
            if !differ(a3, b3, self.spec) {
                return None;
            }
        }
        let values = self
            .dag()
            .nodes
            .iter()
            .filter(|&&t| matches!(self.terms.node(t), Node::Input { .. } | Node::Param(_)))
            .map(|&t| self.leaf_value(t, value))
            .collect();
        Some(Counterexample {
            point: seed,
            values,
            lhs: a2.v,
            rhs: b2.v,
            below_f32: within_f32(a2.v, b2.v),
        })
    }
    pub(super) fn search(&self, seeds: std::ops::Range<u64>) -> Option<Counterexample> {
        self.search_memo(seeds, false)
    }
    /// As `search`; with `memo`, through the chunk's values (the points every pair tries).
    pub(super) fn search_memo(
        &self,
        seeds: std::ops::Range<u64>,
        memo: bool,
    ) -> Option<Counterexample> {
        seeds
            .into_iter()
            .find_map(|s| self.try_point(s, &|l: &Leaf| point_value(s, l), memo))
    }
    /// The points where functions change: the boundary points of [`point_value`], then
    /// points at and around each constant a comparison tests against (`x > 20`): every
    /// leaf at `c`, at `c + 1/16`, at `c - 1/16`, and leaves spread over those three.
    pub(super) fn search_boundaries(&self) -> Option<Counterexample> {
        if let Some(cex) = self.search(BOUNDARY_POINT..BOUNDARY_POINT + BOUNDARY_POINTS) {
            return Some(cex);
        }
        let mut cuts: Vec<f64> = Vec::new();
        for &t in &self.dag().nodes {
            if let Node::Cmp(_, a, b) = self.terms.node(t) {
                for side in [a, b] {
                    if let Some(c) = const_value(self.terms, *side) {
                        if c.is_finite() && !cuts.contains(&c) && cuts.len() < 8 {
                            cuts.push(c);
                        }
                    }
                }
            }
        }
        for (i, &c) in cuts.iter().enumerate() {
            let seed = CUT_POINT + 4 * i as u64;
            for (k, delta) in [0.0, 1.0 / 16.0, -1.0 / 16.0].into_iter().enumerate() {
                if let Some(cex) = self.try_point(seed + k as u64, &|_: &Leaf| c + delta, false) {
                    return Some(cex);
                }
            }
            let spread =
                |l: &Leaf| c + [-1.0, 0.0, 1.0][(leaf_hash(seed + 3, l) % 3) as usize] / 16.0;
            if let Some(cex) = self.try_point(seed + 3, &spread, false) {
                return Some(cex);
            }
        }
        // An equality test of one leaf against a constant (`label == -100`) holds at a
        // single point: that leaf at the constant, every other leaf at a random value
        // (all leaves at `c` above makes `p - q` vanish alongside).
        let mut pins: Vec<(Leaf, f64)> = Vec::new();
        for &t in &self.dag().nodes {
            if let Node::Cmp(CmpOp::Eq | CmpOp::Ne, a, b) = self.terms.node(t) {
                for (x, k) in [(a, b), (b, a)] {
                    if let (Some(l), Some(c)) =
                        (leaf_of(self.terms, *x), const_value(self.terms, *k))
                    {
                        if c.is_finite()
                            && pins.len() < 8
                            && !pins.iter().any(|p| p.0 == l && p.1 == c)
                        {
                            pins.push((l, c));
                        }
                    }
                }
            }
        }
        for (i, (leaf, c)) in pins.iter().enumerate() {
            let seed = PIN_POINT + i as u64;
            let pinned = |l: &Leaf| if l == leaf { *c } else { point_value(seed, l) };
            if let Some(cex) = self.try_point(seed, &pinned, false) {
                return Some(cex);
            }
        }
        None
    }
}

/// First seed of the points around comparison constants (see
/// [`Refuter::search_boundaries`]); their values are not a function of the seed alone,
/// so a counterexample there lists every leaf it needs.
const CUT_POINT: u64 = 1 << 41;

/// First seed of the points that pin one leaf to the constant it is tested equal to.
const PIN_POINT: u64 = (1 << 41) + (1 << 20);
