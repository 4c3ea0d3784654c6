//! Decide: are two terms equal as functions of the real inputs?
//!
//! Architecture invariant: the decider never does I/O, never panics on any term, and
//! never mutates the term store. `Equal` is claimed only when the canonical forms of the
//! two sides (see `canon`) have a zero difference under every case of the conditions;
//! `NotEqual` only with a concrete point where an f64 evaluation, repeated with
//! compensated sums, shows the two sides apart beyond rounding; everything else is
//! `Unknown` with the reason.
//!
//! Procedure: (1) refuter — evaluate both sides at the caller's point (if any) and at
//! `random_points` deterministic points; (2) prover — canonical rational functions
//! `N/D` over atoms (inputs, params, known constants, exponentials with merged
//! exponents, opaque functions of canonical arguments, flattened max/min), case-split
//! over the distinct canonical condition atoms of `select`s; (3) when the prover fails,
//! a harder search for a point before answering `Unknown`.

mod canon;
mod normalize;
mod poly;

pub use normalize::{normalize, normalize_all};

use crate::term::{Func, Node, TermId, Terms};
use canon::{known_value, Canon, Dag, Halt};
use num_traits::ToPrimitive;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// Knobs of the procedure.
#[derive(Clone, Debug)]
pub struct Options {
    /// Random points the refuter tries before the prover runs.
    pub random_points: usize,
    /// Expansion guard: largest polynomial (in monomials) the prover builds.
    pub max_monomials: usize,
    /// Most condition atoms one case may fix (2^k cases at most).
    pub max_case_splits: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            random_points: 6,
            max_monomials: 20_000,
            max_case_splits: 8,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Proved equal wherever the preconditions hold.
    Equal {
        preconditions: Vec<Precondition>,
    },
    /// Refuted at a concrete point.
    NotEqual(Counterexample),
    Unknown {
        reason: String,
    },
}

impl Verdict {
    pub fn is_equal(&self) -> bool {
        matches!(self, Verdict::Equal { .. })
    }
    pub fn is_not_equal(&self) -> bool {
        matches!(self, Verdict::NotEqual(_))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PreKind {
    NonZero,
    Positive,
    NonNegative,
}

/// `expr != 0`, `expr > 0` or `expr >= 0`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Precondition {
    pub kind: PreKind,
    pub expr: String,
}

impl std::fmt::Display for Precondition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = match self.kind {
            PreKind::NonZero => "!= 0",
            PreKind::Positive => "> 0",
            PreKind::NonNegative => ">= 0",
        };
        write!(f, "{} {op}", self.expr)
    }
}

/// A leaf of a term: an input element or a named param.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Leaf {
    Input { tensor: Arc<str>, index: Box<[i64]> },
    Param(Arc<str>),
}

/// A point where the two sides differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Counterexample {
    /// The point's seed ([`point_value`]); [`CALLER_POINT`] for the caller's point.
    pub point: u64,
    /// The value of every leaf of both terms.
    pub values: Vec<(Leaf, f64)>,
    pub lhs: f64,
    pub rhs: f64,
}

impl Counterexample {
    /// Evaluate a term at this point (f64), e.g. to replay the refutation. Leaves the
    /// point has no value for evaluate to NaN.
    pub fn eval(&self, terms: &Terms, id: TermId) -> f64 {
        let input = |name: &str, idx: &[i64]| {
            self.values
                .iter()
                .find_map(|(l, v)| match l {
                    Leaf::Input { tensor, index } if &**tensor == name && &**index == idx => {
                        Some(*v)
                    }
                    _ => None,
                })
                .unwrap_or(f64::NAN)
        };
        let param = |name: &str| {
            self.values
                .iter()
                .find_map(|(l, v)| matches!(l, Leaf::Param(p) if &**p == name).then_some(*v))
                .unwrap_or(f64::NAN)
        };
        terms.eval(id, &input, &param)
    }
}

/// The `point` of a counterexample found at the caller-supplied point.
pub const CALLER_POINT: u64 = u64::MAX;

fn mix(mut h: u64, x: u64) -> u64 {
    h ^= x
        .wrapping_add(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(h << 6)
        .wrapping_add(h >> 2);
    // splitmix64 finaliser
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// The value a point gives a leaf: deterministic in (point, leaf). Values are
/// multiples of 1/16 in `[-2, 2]` without 0; odd points give positive values only
/// (`(0, 2]`), for `log`/`sqrt` domains.
pub fn point_value(point: u64, leaf: &Leaf) -> f64 {
    let mut h = mix(0x6c69_6674, point);
    match leaf {
        Leaf::Input { tensor, index } => {
            h = mix(h, 1);
            for b in tensor.bytes() {
                h = mix(h, b as u64);
            }
            for &i in index.iter() {
                h = mix(h, i as u64);
            }
        }
        Leaf::Param(name) => {
            h = mix(h, 2);
            for b in name.bytes() {
                h = mix(h, b as u64);
            }
        }
    }
    let k = (h % 32) as f64 + 1.0; // 1..=32
    if point % 2 == 1 || (h >> 40) & 1 == 0 {
        k / 16.0
    } else {
        -k / 16.0
    }
}

fn leaf_of(terms: &Terms, t: TermId) -> Option<Leaf> {
    match terms.node(t) {
        Node::Input { tensor, index } => Some(Leaf::Input {
            tensor: tensor.clone(),
            index: index.clone(),
        }),
        Node::Param(name) => Some(Leaf::Param(name.clone())),
        _ => None,
    }
}

const EPS: f64 = f64::EPSILON;

/// f64 evaluation of the reachable DAG at one point; constants standing for known
/// constants take the known values (`consts`). `compensated` sums with Neumaier's
/// algorithm. Returns (value, error bound) for both roots: the bound is a first-order
/// estimate of the rounding error (absolute), so that a difference within rounding
/// is never taken for a counterexample.
fn evaluate(
    terms: &Terms,
    dag: &Dag,
    consts: &FxHashMap<TermId, f64>,
    leaf_values: &FxHashMap<TermId, f64>,
    roots: [TermId; 2],
    compensated: bool,
) -> [(f64, f64); 2] {
    let mut val: FxHashMap<TermId, (f64, f64)> = FxHashMap::default();
    val.reserve(dag.nodes.len());
    for &t in &dag.nodes {
        let g = |c: &TermId| val[c];
        let v = match terms.node(t) {
            Node::Input { .. } | Node::Param(_) => (leaf_values[&t], 0.0),
            Node::Const(_) => {
                let v = consts[&t];
                (v, v.abs() * EPS)
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
            Node::Add(ops) => {
                let abs_sum: f64 = ops.iter().map(|o| g(o).0.abs()).sum();
                let err: f64 = ops.iter().map(|o| g(o).1).sum::<f64>() + abs_sum * EPS * 2.0;
                let v = if compensated {
                    let (mut s, mut comp) = (0.0f64, 0.0f64);
                    for o in ops.iter() {
                        let x = g(o).0;
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
                    ops.iter().map(|o| g(o).0).sum()
                };
                (v, err)
            }
            Node::Mul(ops) => {
                let vals: Vec<(f64, f64)> = ops.iter().map(g).collect();
                let v: f64 = vals.iter().map(|x| x.0).product();
                // err = Σ errᵢ · Π_{j≠i} |vⱼ| (prefix/suffix products avoid 0/0)
                let n = vals.len();
                let mut suffix = vec![1.0f64; n + 1];
                for i in (0..n).rev() {
                    suffix[i] = suffix[i + 1] * vals[i].0.abs();
                }
                let mut prefix = 1.0f64;
                let mut err = v.abs() * EPS * n as f64;
                for i in 0..n {
                    err += vals[i].1 * prefix * suffix[i + 1];
                    prefix *= vals[i].0.abs();
                }
                (v, err)
            }
            Node::Pow(b, k) => {
                let (bv, be) = g(b);
                let v = bv.powi(*k);
                let rel = if bv == 0.0 {
                    f64::INFINITY
                } else {
                    be / bv.abs()
                };
                (v, v.abs() * (rel * k.unsigned_abs() as f64 + EPS * 2.0))
            }
            Node::Call(f, a) => {
                let (av, ae) = g(a);
                let v = crate::term::eval_func(*f, av);
                let err = match f {
                    Func::Exp => v.abs() * (ae + EPS),
                    Func::Exp2 => v.abs() * (ae * std::f64::consts::LN_2 + EPS),
                    Func::Log | Func::Log2 => ae / av.abs() * 1.5 + v.abs() * EPS,
                    Func::Sqrt | Func::Rsqrt => v.abs() * (ae / av.abs() * 0.5 + EPS),
                    Func::Erf => ae * 1.2 + v.abs() * EPS,
                    Func::Floor | Func::Ceil => 0.0,
                    _ => ae + v.abs() * EPS,
                };
                (v, err)
            }
            Node::Max(ops) | Node::Min(ops) => {
                let is_max = matches!(terms.node(t), Node::Max(_));
                let mut acc: Option<f64> = None;
                let mut err = 0.0f64;
                for o in ops.iter() {
                    let (x, xe) = g(o);
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
            Node::Cmp(op, a, b) => {
                let ((a, ea), (b, eb)) = (g(a), g(b));
                // Sides within rounding of each other: the reals may order them either
                // way (`x · x^-1 >= 1` can round to false), so no verdict at this point.
                if ea + eb > 0.0 && (a - b).abs() <= ea + eb {
                    (f64::NAN, f64::NAN)
                } else {
                    (op.holds(a, b) as u8 as f64, 0.0)
                }
            }
            Node::Not(a) => {
                let a = g(a).0;
                if a.is_nan() {
                    (a, a)
                } else {
                    ((a == 0.0) as u8 as f64, 0.0)
                }
            }
            Node::And(ops) | Node::Or(ops) => {
                let is_and = matches!(terms.node(t), Node::And(_));
                let mut r = is_and;
                let mut nan = false;
                for o in ops.iter() {
                    let x = g(o).0;
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
            Node::Select(c, x, y) => {
                let cv = g(c).0;
                if cv.is_nan() {
                    (cv, cv)
                } else if cv != 0.0 {
                    g(x)
                } else {
                    g(y)
                }
            }
        };
        val.insert(t, v);
    }
    [val[&roots[0]], val[&roots[1]]]
}

/// The sides differ beyond the relative tolerance and far beyond rounding error.
fn differ(a: (f64, f64), b: (f64, f64)) -> bool {
    let (av, ae) = a;
    let (bv, be) = b;
    if !av.is_finite() || !bv.is_finite() || ae.is_nan() || be.is_nan() {
        return false;
    }
    let diff = (av - bv).abs();
    diff > 1e-6 * 1f64.max(av.abs()).max(bv.abs()) && diff > 1e3 * (ae + be)
}

struct Refuter<'a> {
    terms: &'a Terms,
    dag: &'a Dag,
    consts: FxHashMap<TermId, f64>,
    leaves: Vec<(TermId, Leaf)>,
    roots: [TermId; 2],
}

impl Refuter<'_> {
    /// Tries one point; `Some` counterexample when the sides differ (twice).
    fn try_point(&self, seed: u64, value: &dyn Fn(&Leaf) -> f64) -> Option<Counterexample> {
        let mut lv = FxHashMap::default();
        let mut values = Vec::with_capacity(self.leaves.len());
        for (t, leaf) in &self.leaves {
            let v = value(leaf);
            lv.insert(*t, v);
            values.push((leaf.clone(), v));
        }
        let [a, b] = evaluate(self.terms, self.dag, &self.consts, &lv, self.roots, false);
        if !differ(a, b) {
            return None;
        }
        let [a2, b2] = evaluate(self.terms, self.dag, &self.consts, &lv, self.roots, true);
        if !differ(a2, b2) {
            return None;
        }
        Some(Counterexample {
            point: seed,
            values,
            lhs: a2.0,
            rhs: b2.0,
        })
    }
    fn search(&self, seeds: std::ops::Range<u64>) -> Option<Counterexample> {
        seeds
            .into_iter()
            .find_map(|s| self.try_point(s, &|l: &Leaf| point_value(s, l)))
    }
}

/// Decides `a = b` (see the module documentation).
pub fn decide(terms: &Terms, a: TermId, b: TermId, opts: &Options) -> Verdict {
    decide_with_points(terms, a, b, opts, &|_| None)
}

/// As [`decide`], trying first the point `extra` gives (leaves it has no value for take
/// [`point_value`] of [`CALLER_POINT`]); a counterexample there has `point ==
/// CALLER_POINT`.
pub fn decide_with_points(
    terms: &Terms,
    a: TermId,
    b: TermId,
    opts: &Options,
    extra: &dyn Fn(&Leaf) -> Option<f64>,
) -> Verdict {
    decide_shared(terms, a, b, opts, extra, &mut None)
}

/// As [`decide_with_points`], converting with `shared` (created on first use): the
/// canonical forms of sub-terms met in earlier pairs are reused.
fn decide_shared<'t>(
    terms: &'t Terms,
    a: TermId,
    b: TermId,
    opts: &Options,
    extra: &dyn Fn(&Leaf) -> Option<f64>,
    shared: &mut Option<Canon<'t>>,
) -> Verdict {
    if a == b {
        return Verdict::Equal {
            preconditions: Vec::new(),
        };
    }
    let dag = Dag::new(terms, &[a, b]);
    // Bit-level code is never evaluated, so random points can never refute it.
    if let Some(op) = dag.nodes.iter().find_map(|&t| match terms.node(t) {
        Node::Opaque(op, _) => Some(op.clone()),
        _ => None,
    }) {
        return Verdict::Unknown {
            reason: format!(
                "bit-level code (`{op}`) that lift does not read as real arithmetic \
                 (not a recognised libm expansion)"
            ),
        };
    }
    let leaves: Vec<(TermId, Leaf)> = dag
        .nodes
        .iter()
        .filter_map(|&t| leaf_of(terms, t).map(|l| (t, l)))
        .collect();
    let consts = dag
        .nodes
        .iter()
        .filter_map(|&t| {
            terms.as_const(t).map(|c| {
                let v = known_value(c).unwrap_or_else(|| c.to_f64().unwrap_or(f64::NAN));
                (t, v)
            })
        })
        .collect();
    let refuter = Refuter {
        terms,
        dag: &dag,
        consts,
        leaves,
        roots: [a, b],
    };
    // 1. Refuter.
    let caller = |l: &Leaf| extra(l).unwrap_or_else(|| point_value(CALLER_POINT, l));
    if let Some(cex) = refuter.try_point(CALLER_POINT, &caller) {
        return Verdict::NotEqual(cex);
    }
    // A few points before the prover; the rest only when the prover does not prove.
    let first = opts.random_points.min(2) as u64;
    if let Some(cex) = refuter.search(1..1 + first) {
        return Verdict::NotEqual(cex);
    }
    if dag.has_inf_nan {
        if let Some(cex) = refuter.search(1 + first..1 + opts.random_points as u64) {
            return Verdict::NotEqual(cex);
        }
        return Verdict::Unknown {
            reason: "the terms contain an infinity or NaN (e.g. an unsimplified masked lane)"
                .into(),
        };
    }
    // 2. Prover.
    let rest_points = 1 + first..1 + opts.random_points as u64;
    let canon = match shared {
        Some(c) => {
            c.next_pair(&dag);
            c
        }
        None => shared.insert(Canon::new(terms, &dag, opts.max_monomials)),
    };
    let mut outcome = prove(canon, a, b, opts);
    if matches!(outcome, Proof::Differ) && canon.has_extrema() {
        // Retry with the order of max/min operands split into cases.
        canon.split_extrema = true;
        if let Proof::Equal = prove(canon, a, b, opts) {
            outcome = Proof::Equal;
        }
    }
    if !matches!(outcome, Proof::Equal) {
        if let Some(cex) = refuter.search(rest_points) {
            return Verdict::NotEqual(cex);
        }
    }
    match outcome {
        Proof::Equal => {
            let sizes = tree_sizes(terms, &dag);
            // A shared `Canon` holds the preconditions of earlier pairs too: keep those
            // of terms reachable here.
            let mut pre: Vec<_> = canon
                .pre
                .iter()
                .filter(|p| dag.nodes.binary_search(&p.1).is_ok())
                .cloned()
                .collect();
            pre.sort_by_key(|p| (p.0, p.1));
            Verdict::Equal {
                preconditions: pre
                    .into_iter()
                    .map(|(kind, t, form)| Precondition {
                        kind,
                        // Display prints shared sub-terms in full: only small trees.
                        expr: if sizes.get(&t).is_some_and(|&s| s <= 2000) {
                            terms.display(t).to_string()
                        } else {
                            canon.print(&form, 2000)
                        },
                    })
                    .collect(),
            }
        }
        Proof::Stopped(reason) => {
            if let Some(cex) = refuter.search(100..132) {
                return Verdict::NotEqual(cex);
            }
            Verdict::Unknown { reason }
        }
        Proof::Differ => {
            let complete = canon.in_exp_poly_fragment();
            let tries = if complete { 256 } else { 64 };
            if let Some(cex) = refuter.search(100..100 + tries) {
                return Verdict::NotEqual(cex);
            }
            let reason = if complete {
                format!(
                    "the canonical forms differ, but no point out of {} shows it \
                     (differences may be too small for f64)",
                    tries + opts.random_points as u64
                )
            } else {
                format!(
                    "the canonical forms differ and no point shows it; the forms involve \
                     {}, where they are not complete",
                    canon.opaque_names().join(", ")
                )
            };
            Verdict::Unknown { reason }
        }
    }
}

/// Size of each term printed as a tree (saturating).
fn tree_sizes(terms: &Terms, dag: &Dag) -> FxHashMap<TermId, u64> {
    let mut size: FxHashMap<TermId, u64> = FxHashMap::default();
    for &t in &dag.nodes {
        let mut s = 1u64;
        terms.for_each_child(t, |c| s = s.saturating_add(size[&c]));
        size.insert(t, s);
    }
    size
}

enum Proof {
    Equal,
    Differ,
    Stopped(String),
}

/// Equal under every assignment of the condition atoms met along the way.
fn prove(canon: &mut Canon, a: TermId, b: TermId, opts: &Options) -> Proof {
    let mut work: Vec<FxHashMap<u32, bool>> = vec![FxHashMap::default()];
    let mut cases = 0usize;
    while let Some(assignment) = work.pop() {
        cases += 1;
        if cases > (1usize << opts.max_case_splits.min(20)) * 2 {
            return Proof::Stopped("too many cases".into());
        }
        let depth = assignment.len();
        canon.set_assignment(assignment.clone());
        // No point satisfies the case: nothing to prove there.
        if canon.case_infeasible() {
            continue;
        }
        let result = (|| -> Result<bool, Halt> {
            let ra = canon.convert(a)?;
            let rb = canon.convert(b)?;
            if ra == rb {
                return Ok(true);
            }
            let l = canon.alg.mul(&ra.n, &rb.d)?;
            let r = canon.alg.mul(&rb.n, &ra.d)?;
            if l == r {
                return Ok(true);
            }
            // Use the equalities the case implies (`d = 0` substituted for a leaf).
            Ok(canon.zero_in_case(&l.add(&r.neg()))?)
        })();
        match result {
            Ok(true) => {}
            Ok(false) => return Proof::Differ,
            Err(Halt::Stop(s)) => return Proof::Stopped(s),
            Err(Halt::Split(c)) => {
                if depth >= opts.max_case_splits {
                    return Proof::Stopped(format!(
                        "more than {} distinct select conditions",
                        opts.max_case_splits
                    ));
                }
                for v in [false, true] {
                    let mut next = assignment.clone();
                    next.insert(c, v);
                    work.push(next);
                }
            }
        }
    }
    Proof::Equal
}

/// Pairs decided in sequence with one shared `Canon` (see [`decide_all_with_points`]).
const CHUNK: usize = 16;

/// Decides many pairs in parallel; the verdicts are in the order of `pairs`.
pub fn decide_all(terms: &Terms, pairs: &[(TermId, TermId)], opts: &Options) -> Vec<Verdict> {
    decide_all_with_points(terms, pairs, opts, &|_| None)
}

/// As [`decide_with_points`] for many pairs, in parallel; the verdicts are in the order
/// of `pairs`. Consecutive pairs (chunks of a fixed size, so the grouping and hence the
/// verdicts do not depend on the thread count) share one `Canon`: the canonical form
/// of a sub-term common to several pairs (a row's max and sum, shared by every element
/// of the row) is built once per chunk. A verdict's preconditions are those the shared
/// conversion recorded for terms reachable from its pair (a superset of what a fresh
/// conversion records: possibly also for a `select` branch this pair did not need).
pub fn decide_all_with_points(
    terms: &Terms,
    pairs: &[(TermId, TermId)],
    opts: &Options,
    extra: &(dyn Fn(&Leaf) -> Option<f64> + Sync),
) -> Vec<Verdict> {
    let chunks: Vec<Vec<Verdict>> = pairs
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut shared = None;
            chunk
                .iter()
                .map(|&(a, b)| decide_shared(terms, a, b, opts, extra, &mut shared))
                .collect()
        })
        .collect();
    chunks.into_iter().flatten().collect()
}
