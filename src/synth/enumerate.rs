//! Semantic fallback for top-down synthesis: where [`Synth::build`] gives up on a list
//! of element terms, (1) rebuild the terms from the decider's canonical form
//! ([`decide::normalize`]) and retry top-down on them, then (2) enumerate small
//! formulas bottom-up.
//!
//! Architecture invariant: fingerprints only propose. Enumeration evaluates every
//! candidate formula at a few fixed points (f64, [`decide::point_value`] of
//! [`SAMPLE_POINTS`]), keeps the smallest candidate per fingerprint (observational
//! equivalence) and looks the target's fingerprint up; a candidate is returned only after
//! `decide` proves every element of the target equal to it. The normalised terms are
//! equal to the originals by construction, and the whole lifted formula is proved
//! against the kernel's terms by `synth::lift` in any case.
//!
//! Search space: terminals are the inputs the target reads (and their transposes), the
//! scalar params it reads and the constants 1 and 2; operators are `neg`, the unary
//! functions the target applies, `+ - * /`, `max`/`min` (when the target has them),
//! `powi 2`, `sum`/`mean` (and `max`/`min`) over one axis with or without keepdim, and
//! `@` of 2-D operands. Deterministic order, bounded by formula size and by the number
//! of candidates formed (never by time: the same candidates on every machine).

use super::Synth;
use crate::decide::{self, Leaf, Options};
use crate::formula::{BinaryOp, Formula, ReduceOp, ShapeEnv, UnaryOp};
use crate::term::{Func, Node, TermId, Terms};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::Instant;

/// The fixed points candidates and targets are evaluated at (even seeds give mixed
/// signs, odd ones positive values).
pub(crate) const SAMPLE_POINTS: [u64; 3] = [7_002, 7_004, 7_001];

/// Largest formula size enumerated.
const MAX_SIZE: usize = 6;
/// Largest number of elements of a list (or of a candidate value) handled.
const MAX_ELEMS: usize = 4096;

/// State kept across the stalls of one synthesis: the banks of enumerated candidates
/// (one per set of terminals) and the candidates they may still form.
pub(super) struct Fallback {
    banks: HashMap<Vec<String>, Bank>,
    /// `None` while disabled: a first top-down pass runs without the fallback, so ops
    /// that lift top-down pay nothing for it.
    left: Option<usize>,
    /// Candidates one stall may form.
    per_stall: usize,
    /// Candidates formed so far, for the debug log.
    formed: usize,
    /// Inside a retry on normalised terms (no second normalisation).
    normalising: bool,
    normalised: HashMap<(TermId, bool), Option<TermId>>,
    /// The other rebuild of the last roots normalised (see [`normalised`]): the roots,
    /// the `keep_exp` it was rebuilt with, and its expressions.
    unbuilt: Option<(Vec<TermId>, bool, decide::Unbuilt)>,
    /// Whether stalls enumerate (after normalising); off for a cheaper first retry
    /// that only normalises.
    pub(super) enumerate: bool,
}

impl Fallback {
    pub(super) fn new() -> Fallback {
        Fallback {
            banks: HashMap::new(),
            left: None,
            per_stall: 0,
            formed: 0,
            normalising: false,
            normalised: HashMap::new(),
            unbuilt: None,
            enumerate: false,
        }
    }
    /// Turns the fallback on, with the whole work limit of `opts`.
    pub(super) fn enable(&mut self, opts: &super::Options) {
        self.left = Some(opts.enumerated);
        self.per_stall = opts.enumerated_per_stall;
    }

    /// Candidates formed so far.
    pub(super) fn formed(&self) -> usize {
        self.formed
    }
}

/// Each of `list` normalised whole ([`decide::normalize_all`]), remembered per term for
/// the rest of the output's synthesis: the stalls of every pass and the last stage
/// ask for the same rows (768 elements of flash attention: 0.1–0.2 s each time).
/// The stall hook asks for both `keep_exp`, one after the other, so the roots are
/// converted once and the other rebuild kept unwritten until asked for; it is used
/// only for exactly the roots it was made from, where it gives the terms a fresh
/// normalisation would (see [`decide::normalize_all_both`]).
fn normalised(s: &mut Synth, list: &[TermId], keep_exp: bool) -> Vec<Option<TermId>> {
    let missing: Vec<TermId> = list
        .iter()
        .copied()
        .filter(|&t| !s.fallback.normalised.contains_key(&(t, keep_exp)))
        .collect();
    let fits = |u: &(Vec<TermId>, bool, _)| u.1 == keep_exp && u.0 == missing;
    let normal = match s.fallback.unbuilt.take_if(|u| fits(u)) {
        Some((_, _, unbuilt)) => unbuilt.build(s.terms),
        None if missing.is_empty() => Vec::new(),
        None => {
            let (normal, unbuilt) = decide::normalize_all_both(s.terms, &missing, keep_exp);
            s.fallback.unbuilt = Some((missing.clone(), !keep_exp, unbuilt));
            normal
        }
    };
    for (t, n) in missing.into_iter().zip(normal) {
        s.fallback.normalised.insert((t, keep_exp), n);
    }
    list.iter()
        .map(|&t| s.fallback.normalised[&(t, keep_exp)])
        .collect()
}

/// The hook: a formula for `list` (shape `shape`, or broadcastable to it) where top-down
/// gave up.
pub(super) fn stalled(s: &mut Synth, shape: &[usize], list: &[TermId]) -> Option<Formula> {
    let left = s.fallback.left?;
    if list.len() > MAX_ELEMS || left == 0 {
        return None;
    }
    if !s.fallback.normalising {
        // The exponential factor kept inside sums first (`Σ exp(x_j - m)`), then pulled
        // out (`exp(-m)·Σ exp(x_j)`).
        for keep_exp in [true, false] {
            let norm: Option<Vec<TermId>> = normalised(s, list, keep_exp).into_iter().collect();
            if let Some(norm) = norm.filter(|n| n.as_slice() != list) {
                s.fallback.normalising = true;
                let r = s.build(shape, &norm);
                s.fallback.normalising = false;
                tracing::debug!(
                    "normalised {shape:?} keep_exp={keep_exp}: {} -> {}",
                    outcome(s.terms, &r),
                    super::show(s.terms, norm[0])
                        .chars()
                        .take(600)
                        .collect::<String>()
                );
                if let Ok(f) = r {
                    return Some(f);
                }
            }
        }
    }
    if !s.fallback.enumerate {
        return None;
    }
    // Lists of bare leaves (`x[:, 0]`) have no formula top-down did not try.
    if list.iter().all(|&t| {
        matches!(
            s.terms.node(t),
            Node::Input { .. } | Node::Param(_) | Node::Const(_)
        )
    }) {
        return None;
    }
    let mut units = left.min(s.fallback.per_stall);
    let before = units;
    let r = search(
        s.terms,
        s.env,
        shape,
        list,
        &mut s.fallback.banks,
        &mut units,
    )
    .0;
    let spent = before - units;
    s.fallback.formed += spent;
    s.fallback.left = Some(left - spent);
    r
}

/// Top-down over the whole output list normalised at once, with no further
/// normalisation below: for outputs whose stalls deeper down do not resolve. With
/// `by_factor`, each factor of an element's root product is normalised on its own with
/// the exponential factor kept inside sums, so a quotient keeps the `exp(-m)` its
/// numerator and denominator share (`Σ exp(x_j - m)·v_j / Σ exp(x_j - m)`, flash
/// attention's rescalings merged); without, the element is normalised whole and that
/// factor cancels.
pub(super) fn whole_output(
    s: &mut Synth,
    shape: &[usize],
    list: &[TermId],
    by_factor: bool,
) -> Option<Formula> {
    let start = Instant::now();
    let norm = if by_factor {
        normalize_factors(s.terms, list)
    } else {
        normalised(s, list, false).into_iter().collect()
    };
    let norm = norm.filter(|n| n.as_slice() != list)?;
    let normalised = start.elapsed();
    let was = s.fallback.normalising;
    s.fallback.normalising = true;
    let r = s.build(shape, &norm);
    s.fallback.normalising = was;
    tracing::debug!(
        "whole output (by factor: {by_factor}): normalised in {normalised:?}, built in {:?}: {}",
        start.elapsed() - normalised,
        outcome(s.terms, &r)
    );
    r.ok()
}

/// Top-down over `list`, terms already normalised (no further normalisation below).
pub(super) fn build_normalised(
    s: &mut Synth,
    shape: &[usize],
    list: &[TermId],
) -> Result<Formula, TermId> {
    let was = s.fallback.normalising;
    s.fallback.normalising = true;
    let r = s.build(shape, list);
    s.fallback.normalising = was;
    r
}

/// A build's result for the debug log: the formula, or the start of the stalled term.
pub(super) fn outcome(terms: &Terms, r: &Result<Formula, TermId>) -> String {
    match r {
        Ok(f) => crate::render::text::expr(f),
        Err(t) => format!(
            "stall {}",
            super::show(terms, *t).chars().take(300).collect::<String>()
        ),
    }
}

/// Each of `list` with every factor of its root product (or the base of its root power)
/// normalised on its own, the exponential factor kept inside sums.
pub(super) fn normalize_factors(terms: &mut Terms, list: &[TermId]) -> Option<Vec<TermId>> {
    // Each element as factors (base, exponent).
    let factored: Vec<Vec<(TermId, i32)>> = list
        .iter()
        .map(|&t| {
            let factors = match terms.node(t) {
                Node::Mul(ops) => ops.to_vec(),
                _ => vec![t],
            };
            factors
                .into_iter()
                .map(|f| match *terms.node(f) {
                    Node::Pow(a, k) => (a, k),
                    _ => (f, 1),
                })
                .collect()
        })
        .collect();
    let bases: Vec<TermId> = factored.iter().flatten().map(|&(b, _)| b).collect();
    let mut normal = decide::normalize_all(terms, &bases, true).into_iter();
    let mut out = Vec::with_capacity(list.len());
    for factors in &factored {
        let mut ops = Vec::with_capacity(factors.len());
        for &(_, k) in factors {
            let b = normal.next()??;
            ops.push(terms.powi(b, k));
        }
        out.push(terms.product(&ops));
    }
    Some(out)
}

/// Enumerates for `list`; returns the proved formula (if any) and the number of
/// proposals (fingerprint matches) that `decide` did not prove.
pub(super) fn search(
    terms: &mut Terms,
    env: &ShapeEnv,
    shape: &[usize],
    list: &[TermId],
    banks: &mut HashMap<Vec<String>, Bank>,
    units: &mut usize,
) -> (Option<Formula>, usize) {
    let Some(sig) = Signature::of(terms, list) else {
        return (None, 0);
    };
    let Some(target) = fingerprint_terms(terms, list) else {
        return (None, 0);
    };
    let key = sig.key();
    let bank = banks
        .entry(key)
        .or_insert_with(|| Bank::new(&sig, env, shape.len()));
    let mut rejected = 0;
    loop {
        for idx in bank.lookup(shape, &target) {
            let f = bank.cands[idx].f.clone();
            if prove_broadcast(terms, env, &f, shape, list) {
                return (Some(f), rejected);
            }
            rejected += 1;
            if rejected >= 4 {
                return (None, rejected);
            }
        }
        if bank.size >= MAX_SIZE || *units == 0 {
            return (None, rejected);
        }
        bank.grow(units);
    }
}

/// `f`, broadcast to `shape`, proved equal to `list` element by element.
fn prove_broadcast(
    terms: &mut Terms,
    env: &ShapeEnv,
    f: &Formula,
    shape: &[usize],
    list: &[TermId],
) -> bool {
    let Ok(fs) = f.shape(env) else {
        return false;
    };
    let Ok(elems) = f.instantiate(terms, env) else {
        return false;
    };
    let Some(map) = broadcast_map(&fs, shape) else {
        return false;
    };
    let pairs: Vec<(TermId, TermId)> = map
        .iter()
        .map(|&k| elems[k])
        .zip(list.iter().copied())
        .collect();
    decide::decide_all(terms, &pairs, &Options::default())
        .iter()
        .all(|v| v.is_equal())
}

/// For every flat index of `target`, the flat index of `from` broadcast to it; `None`
/// when `from` does not broadcast to exactly `target`.
fn broadcast_map(from: &[usize], target: &[usize]) -> Option<Vec<usize>> {
    if from.len() > target.len() {
        return None;
    }
    let off = target.len() - from.len();
    for (k, &d) in from.iter().enumerate() {
        if d != 1 && d != target[off + k] {
            return None;
        }
    }
    let n: usize = target.iter().product();
    Some(
        (0..n)
            .map(|p| {
                let idx = super::unravel(p, target);
                let fidx: Vec<usize> = from
                    .iter()
                    .enumerate()
                    .map(|(k, &d)| if d == 1 { 0 } else { idx[off + k] })
                    .collect();
                super::ravel(&fidx, from)
            })
            .collect(),
    )
}

/// What the target reads and applies: it decides the terminals and operators.
struct Signature {
    tensors: BTreeSet<String>,
    params: BTreeSet<String>,
    funcs: BTreeSet<Func>,
    extrema: bool,
}

impl Signature {
    fn of(terms: &Terms, list: &[TermId]) -> Option<Signature> {
        let mut sig = Signature {
            tensors: BTreeSet::new(),
            params: BTreeSet::new(),
            funcs: BTreeSet::new(),
            extrema: false,
        };
        let mut seen = BTreeSet::new();
        let mut stack = list.to_vec();
        while let Some(t) = stack.pop() {
            if !seen.insert(t) {
                continue;
            }
            match terms.node(t) {
                Node::Input { tensor, .. } => {
                    sig.tensors.insert(tensor.to_string());
                }
                Node::Param(p) => {
                    sig.params.insert(p.to_string());
                }
                Node::Call(f, _) => {
                    sig.funcs.insert(*f);
                }
                Node::Max(_) | Node::Min(_) => sig.extrema = true,
                Node::Select(..) | Node::Cmp(..) | Node::Inf { .. } | Node::NaN => return None,
                _ => {}
            }
            terms.for_each_child(t, |c| stack.push(c));
        }
        Some(sig)
    }
    fn key(&self) -> Vec<String> {
        let mut k: Vec<String> = self.tensors.iter().map(|t| format!("t:{t}")).collect();
        k.extend(self.params.iter().map(|p| format!("p:{p}")));
        k.extend(self.funcs.iter().map(|f| format!("f:{f:?}")));
        k.push(format!("x:{}", self.extrema));
        k
    }
}

/// Values of one candidate at every sample point: `SAMPLE_POINTS.len()` blocks of the
/// row-major elements.
type Values = Vec<f64>;

/// A value as a fingerprint entry: `None` where it is not finite or too large.
fn quantize_one(x: f64) -> Option<i64> {
    (x.is_finite() && x.abs() < 1e12).then(|| (x * 65536.0).round() as i64)
}

fn fingerprint_terms(terms: &Terms, list: &[TermId]) -> Option<Values> {
    let mut out = Vec::with_capacity(list.len() * SAMPLE_POINTS.len());
    for &seed in &SAMPLE_POINTS {
        let input = |name: &str, idx: &[i64]| {
            decide::point_value(
                seed,
                &Leaf::Input {
                    tensor: name.into(),
                    index: idx.into(),
                },
            )
        };
        let param = |name: &str| decide::point_value(seed, &Leaf::Param(name.into()));
        let mut ev = crate::term::Evaluator::new(terms, &input, &param);
        for &t in list {
            let v = ev.eval(t);
            if !v.is_finite() {
                return None;
            }
            out.push(v);
        }
    }
    Some(out)
}

struct Cand {
    f: Formula,
    shape: Vec<usize>,
    vals: Values,
}

/// Candidates enumerated so far, by size, one per fingerprint.
pub(super) struct Bank {
    cands: Vec<Cand>,
    by_size: Vec<Vec<usize>>,
    /// Fingerprint (the shape's number, then the quantised values) to candidate.
    seen: FxHashMap<Vec<i64>, usize>,
    /// The shapes of the candidates, each with its number, in shape order (the order
    /// `lookup` proposes in).
    shapes: BTreeMap<Vec<usize>, i64>,
    /// A fingerprint being formed (reused: most candidates repeat one already seen).
    key: Vec<i64>,
    size: usize,
    unary: Vec<UnaryOp>,
    binary: Vec<BinaryOp>,
    reduce: Vec<ReduceOp>,
    max_rank: usize,
    /// Values computed so far (every candidate formed, kept or not): the work count.
    computed: usize,
}

impl Bank {
    fn new(sig: &Signature, env: &ShapeEnv, target_rank: usize) -> Bank {
        let mut unary = vec![UnaryOp::Neg];
        unary.extend(
            UnaryOp::ALL
                .iter()
                .filter(|u| u.func().is_some_and(|f| sig.funcs.contains(&f))),
        );
        if sig.funcs.contains(&Func::Sqrt) && !unary.contains(&UnaryOp::Rsqrt) {
            unary.push(UnaryOp::Rsqrt);
        }
        let mut binary = vec![BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div];
        let mut reduce = vec![ReduceOp::Sum, ReduceOp::Mean];
        if sig.extrema {
            binary.extend([BinaryOp::Max, BinaryOp::Min]);
            reduce.extend([ReduceOp::Max, ReduceOp::Min]);
        }
        let mut bank = Bank {
            computed: 0,
            cands: Vec::new(),
            by_size: vec![Vec::new(), Vec::new()],
            seen: FxHashMap::default(),
            shapes: BTreeMap::new(),
            key: Vec::new(),
            size: 1,
            unary,
            binary,
            reduce,
            max_rank: target_rank.max(2),
        };
        for t in &sig.tensors {
            let Some(shape) = env.tensors.get(t) else {
                continue;
            };
            let x = Formula::input(t);
            bank.add_leaf(x.clone(), shape.clone(), env);
            if shape.len() == 2 {
                bank.add_leaf(x.t(), vec![shape[1], shape[0]], env);
            }
        }
        for p in &sig.params {
            bank.add_leaf(Formula::scalar(p), vec![], env);
        }
        bank.add_leaf(Formula::int(1), vec![], env);
        bank.add_leaf(Formula::int(2), vec![], env);
        bank
    }

    /// Adds a terminal (size 1), its values computed from its leaves.
    fn add_leaf(&mut self, f: Formula, shape: Vec<usize>, env: &ShapeEnv) {
        if let Some(vals) = leaf_values(&f, &shape, env) {
            self.add(1, &shape, vals, |_| f);
        }
    }

    /// Adds a candidate of size `size` with values `vals` unless its fingerprint is
    /// taken; `make` forms its formula (from the candidates so far) only where it is new.
    fn add(
        &mut self,
        size: usize,
        shape: &[usize],
        vals: Values,
        make: impl FnOnce(&[Cand]) -> Formula,
    ) {
        self.computed += vals.len().max(1);
        let shape_no = self.shapes.get(shape).copied();
        self.key.clear();
        self.key.push(shape_no.unwrap_or(-1));
        for &x in &vals {
            match quantize_one(x) {
                Some(q) => self.key.push(q),
                None => return,
            }
        }
        if shape_no.is_some() && self.seen.contains_key(self.key.as_slice()) {
            return;
        }
        let shape_no = match shape_no {
            Some(k) => k,
            None => {
                let k = self.shapes.len() as i64;
                self.shapes.insert(shape.to_vec(), k);
                self.key[0] = k;
                k
            }
        };
        debug_assert_eq!(self.key[0], shape_no);
        let f = make(&self.cands);
        let idx = self.cands.len();
        self.seen.insert(self.key.clone(), idx);
        self.cands.push(Cand {
            f,
            shape: shape.to_vec(),
            vals,
        });
        while self.by_size.len() <= size {
            self.by_size.push(Vec::new());
        }
        self.by_size[size].push(idx);
    }

    /// Candidates whose value, broadcast to `shape`, has the fingerprint `target`.
    fn lookup(&self, shape: &[usize], target: &Values) -> Vec<usize> {
        let n: usize = shape.iter().product();
        let mut out = Vec::new();
        for (s, &shape_no) in &self.shapes {
            let Some(map) = broadcast_map(s, shape) else {
                continue;
            };
            let m: usize = s.iter().product();
            // The target restricted to `s`: constant along the broadcast axes.
            let mut proj = vec![f64::NAN; m * SAMPLE_POINTS.len()];
            let mut ok = true;
            for p in 0..SAMPLE_POINTS.len() {
                for (k, &j) in map.iter().enumerate() {
                    let v = target[p * n + k];
                    let slot = &mut proj[p * m + j];
                    if slot.is_nan() {
                        *slot = v;
                    } else if (*slot - v).abs() > 1e-9 * (1.0 + v.abs()) {
                        ok = false;
                    }
                }
            }
            if !ok {
                continue;
            }
            let key: Option<Vec<i64>> = std::iter::once(Some(shape_no))
                .chain(proj.iter().map(|&x| quantize_one(x)))
                .collect();
            if let Some(&i) = key.and_then(|k| self.seen.get(&k)) {
                out.push(i);
            }
        }
        out.sort_by_key(|&i| (self.cands[i].f.size(), i));
        out
    }

    /// Enumerates the candidates of the next size, one of `units` per value computed
    /// (stopping where they run out).
    fn grow(&mut self, units: &mut usize) {
        let start = self.computed;
        self.grow_within(start.saturating_add(*units));
        *units = units.saturating_sub(self.computed - start);
    }

    /// [`Self::grow`] until `self.computed` reaches `limit`.
    fn grow_within(&mut self, limit: usize) {
        let size = self.size + 1;
        self.size = size;
        // Unary, powi, reductions of size - 1.
        let prev: Vec<usize> = self.by_size.get(size - 1).cloned().unwrap_or_default();
        let unary = self.unary.clone();
        let reduce = self.reduce.clone();
        for &i in &prev {
            if self.computed >= limit {
                return;
            }
            let shape = self.cands[i].shape.clone();
            for &op in &unary {
                let v: Values = self.cands[i]
                    .vals
                    .iter()
                    .map(|&x| apply_unary(op, x))
                    .collect();
                self.add(size, &shape, v, |c| Formula::unary(op, c[i].f.clone()));
            }
            let v: Values = self.cands[i].vals.iter().map(|&x| x * x).collect();
            self.add(size, &shape, v, |c| c[i].f.clone().powi(2));
            for axis in 0..shape.len() {
                for keepdim in [true, false] {
                    for &op in &reduce {
                        let (s2, v) = reduce_vals(op, &shape, &self.cands[i].vals, axis, keepdim);
                        self.add(size, &s2, v, |c| {
                            Formula::reduce(op, c[i].f.clone(), axis, keepdim)
                        });
                    }
                }
            }
        }
        // Binary and matmul: sizes a + b = size - 1.
        for sa in 1..size - 1 {
            let sb = size - 1 - sa;
            let la: Vec<usize> = self.by_size.get(sa).cloned().unwrap_or_default();
            let lb: Vec<usize> = self.by_size.get(sb).cloned().unwrap_or_default();
            for &a in &la {
                if self.computed >= limit {
                    return;
                }
                for &b in &lb {
                    self.combine(size, a, b);
                }
            }
        }
    }

    fn combine(&mut self, size: usize, a: usize, b: usize) {
        let (ca, cb) = (&self.cands[a], &self.cands[b]);
        if let Some((shape, ma, mb)) = broadcast_pair(&ca.shape, &cb.shape) {
            if shape.len() <= self.max_rank && shape.iter().product::<usize>() <= MAX_ELEMS {
                let n: usize = shape.iter().product();
                let (na, nb) = (
                    ca.shape.iter().product::<usize>(),
                    cb.shape.iter().product::<usize>(),
                );
                for k in 0..self.binary.len() {
                    let op = self.binary[k];
                    let commutative = matches!(
                        op,
                        BinaryOp::Add
                            | BinaryOp::Mul
                            | BinaryOp::Max
                            | BinaryOp::Min
                            | BinaryOp::FMax
                            | BinaryOp::FMin
                    );
                    if commutative && a > b {
                        continue;
                    }
                    let (ca, cb) = (&self.cands[a], &self.cands[b]);
                    let mut v = Vec::with_capacity(n * SAMPLE_POINTS.len());
                    for p in 0..SAMPLE_POINTS.len() {
                        for k in 0..n {
                            let x = ca.vals[p * na + ma[k]];
                            let y = cb.vals[p * nb + mb[k]];
                            v.push(apply_binary(op, x, y));
                        }
                    }
                    self.add(size, &shape, v, |c| {
                        Formula::binary(op, c[a].f.clone(), c[b].f.clone())
                    });
                }
            }
        }
        let (ca, cb) = (&self.cands[a], &self.cands[b]);
        if ca.shape.len() == 2
            && cb.shape.len() == 2
            && ca.shape[1] == cb.shape[0]
            && ca.shape[1] > 1
        {
            let (m, k, n) = (ca.shape[0], ca.shape[1], cb.shape[1]);
            let mut v = Vec::with_capacity(m * n * SAMPLE_POINTS.len());
            for p in 0..SAMPLE_POINTS.len() {
                for i in 0..m {
                    for j in 0..n {
                        let mut acc = 0.0;
                        for q in 0..k {
                            acc += ca.vals[p * m * k + i * k + q] * cb.vals[p * k * n + q * n + j];
                        }
                        v.push(acc);
                    }
                }
            }
            self.add(size, &[m, n], v, |c| c[a].f.clone().matmul(c[b].f.clone()));
        }
    }
}

/// The broadcast shape of two shapes and, for each of its flat indices, the flat index
/// into each operand.
fn broadcast_pair(a: &[usize], b: &[usize]) -> Option<(Vec<usize>, Vec<usize>, Vec<usize>)> {
    let r = a.len().max(b.len());
    let mut shape = Vec::with_capacity(r);
    for i in 0..r {
        let da = (i + a.len()).checked_sub(r).map_or(1, |k| a[k]);
        let db = (i + b.len()).checked_sub(r).map_or(1, |k| b[k]);
        shape.push(match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        });
    }
    let ma = broadcast_map(a, &shape)?;
    let mb = broadcast_map(b, &shape)?;
    Some((shape, ma, mb))
}

fn apply_unary(op: UnaryOp, x: f64) -> f64 {
    match op.func() {
        None => -x,
        Some(f) => crate::term::eval_func(f, x),
    }
}

fn apply_binary(op: BinaryOp, x: f64, y: f64) -> f64 {
    match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x * y,
        BinaryOp::Div => x / y,
        BinaryOp::Max => x.max(y),
        BinaryOp::Min => x.min(y),
        BinaryOp::FMax => x.max(y),
        BinaryOp::FMin => x.min(y),
    }
}

fn reduce_vals(
    op: ReduceOp,
    shape: &[usize],
    vals: &[f64],
    axis: usize,
    keepdim: bool,
) -> (Vec<usize>, Values) {
    let n: usize = shape.iter().product();
    let mut out_shape = shape.to_vec();
    out_shape[axis] = 1;
    let m: usize = out_shape.iter().product();
    let stride: usize = shape[axis + 1..].iter().product();
    let len = shape[axis];
    let mut v = Vec::with_capacity(m * SAMPLE_POINTS.len());
    for p in 0..SAMPLE_POINTS.len() {
        for o in 0..m {
            let (outer, inner) = (o / stride, o % stride);
            let base = p * n + outer * len * stride + inner;
            let it = (0..len).map(|j| vals[base + j * stride]);
            v.push(match op {
                ReduceOp::Sum => it.sum(),
                ReduceOp::Mean => it.sum::<f64>() / len as f64,
                ReduceOp::Max => it.fold(f64::NEG_INFINITY, f64::max),
                ReduceOp::Min => it.fold(f64::INFINITY, f64::min),
                ReduceOp::Prod => it.product(),
                // Enumeration proposes sum/max/min/mean only.
                ReduceOp::ArgMax | ReduceOp::ArgMin => f64::NAN,
            });
        }
    }
    if !keepdim {
        out_shape.remove(axis);
    }
    (out_shape, v)
}

/// Values of a terminal (input, transposed input, scalar, constant).
fn leaf_values(f: &Formula, shape: &[usize], _env: &ShapeEnv) -> Option<Values> {
    let n: usize = shape.iter().product();
    let mut v = Vec::with_capacity(n * SAMPLE_POINTS.len());
    for &seed in &SAMPLE_POINTS {
        for k in 0..n {
            let idx = super::unravel(k, shape);
            v.push(match f {
                Formula::Input(t) => decide::point_value(seed, &input_leaf(t, &idx)),
                Formula::Transpose(x) => match &**x {
                    Formula::Input(t) => {
                        decide::point_value(seed, &input_leaf(t, &[idx[1], idx[0]]))
                    }
                    _ => return None,
                },
                Formula::Scalar(p) => decide::point_value(seed, &Leaf::Param(p.as_str().into())),
                Formula::Const(c) => num_traits::ToPrimitive::to_f64(c)?,
                _ => return None,
            });
        }
    }
    Some(v)
}

fn input_leaf(t: &str, idx: &[usize]) -> Leaf {
    Leaf::Input {
        tensor: t.into(),
        index: idx.iter().map(|&i| i as i64).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> ShapeEnv {
        ShapeEnv::new().tensor("x", &[3, 4])
    }

    fn far() -> usize {
        usize::MAX
    }

    #[test]
    fn finds_a_row_mean() {
        let mut terms = Terms::new();
        let env = env();
        let list: Vec<TermId> = (0..3)
            .map(|i| {
                let xs: Vec<TermId> = (0..4).map(|j| terms.input("x", &[i, j])).collect();
                let s = terms.sum(&xs);
                let q = terms.constant(num_rational::BigRational::new(1.into(), 4.into()));
                terms.mul(s, q)
            })
            .collect();
        let (f, rejected) = search(
            &mut terms,
            &env,
            &[3],
            &list,
            &mut HashMap::new(),
            &mut far(),
        );
        assert_eq!(f.map(|f| f.to_string()).as_deref(), Some("mean(x, axis=1)"));
        assert_eq!(rejected, 0);
    }

    /// `x + Π_p (x - v_p)` equals `x` at every sample point `p` (where `x = v_p`), but
    /// not elsewhere: the fingerprint proposes `x`, `decide` refutes it.
    #[test]
    fn a_fingerprint_match_that_decide_refutes_is_rejected() {
        let mut terms = Terms::new();
        let env = env();
        let mut list = Vec::new();
        for i in 0..3 {
            for j in 0..4 {
                let x = terms.input("x", &[i, j]);
                let mut factors = Vec::new();
                for &seed in &SAMPLE_POINTS {
                    let v = decide::point_value(seed, &input_leaf("x", &[i as usize, j as usize]));
                    let c = terms.float(-v);
                    factors.push(terms.add(x, c));
                }
                let p = terms.product(&factors);
                list.push(terms.add(x, p));
            }
        }
        let (f, rejected) = search(
            &mut terms,
            &env,
            &[3, 4],
            &list,
            &mut HashMap::new(),
            &mut far(),
        );
        assert!(f.is_none(), "accepted {f:?}");
        assert!(rejected >= 1, "the fingerprint should have proposed x");
    }
}
