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
//! `random_points` deterministic points (more, and boundary points — zeros, ±1, all
//! negative, large and tiny magnitudes, around comparison constants — when the prover
//! does not prove); a side that is NaN or ±inf by IEEE's rules where the other is not
//! is a difference (a NaN element is wrong), but not a spec that is NaN because the
//! point left its domain ([`SpecSide`]: PyTorch has no value there), and two non-finite
//! values that left the real line only through the point (a pole, a log of a negative)
//! are not; (2) prover — canonical rational functions `N/D` over atoms (inputs, params,
//! known constants, exponentials with merged exponents, opaque functions of canonical
//! arguments, flattened max/min, maxNum read as max), case-split
//! over the distinct canonical condition atoms of `select`s; (3) when the prover fails,
//! a harder search for a point before answering `Unknown`.

mod canon;
mod constants;
mod evals;
mod normalize;
mod points;
mod poly;
mod precondition;
mod refute;
mod reuse;
mod symmetry;

pub use normalize::{normalize, normalize_all, normalize_all_both, Unbuilt};
pub use points::{point_value, Counterexample, Leaf, SpecSide};
pub use points::{BOUNDARY_POINT, BOUNDARY_POINTS, CALLER_POINT};
pub use precondition::{PreKind, Precondition};
pub use reuse::{Decided, EqualPairs};

use crate::term::{Node, TermId, Terms};
use canon::{Canon, Dag, Detached, Halt, Reached};
use rayon::prelude::*;
use refute::{EvalMemo, Refuter};
use rustc_hash::FxHashMap;
use std::cell::RefCell;

/// Knobs of the procedure.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Random points the refuter tries before the prover runs. 0 runs the prover
    /// alone: no refuter, no search for a point where a precondition fails.
    pub random_points: usize,
    /// Expansion guard: largest polynomial (in monomials) the prover builds.
    pub max_monomials: usize,
    /// Most condition atoms one case may fix (2^k cases at most).
    pub max_case_splits: usize,
    /// Which side of each pair is a PyTorch spec (`check`), if either (see [`SpecSide`]).
    pub spec: SpecSide,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            random_points: 6,
            max_monomials: 20_000,
            max_case_splits: 8,
            spec: SpecSide::Neither,
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
    decide_shared(terms, a, b, opts, extra, &mut Shared::default(), false)
}

/// What the pairs of one chunk share (see [`decide_all_with_points`]).
#[derive(Default)]
struct Shared<'t> {
    /// Canonical forms of sub-terms met in earlier pairs (created on first use).
    canon: Option<Canon<'t>>,
    /// The refuter's values of sub-terms at the points whose leaf values do not depend
    /// on the pair (the seeds of [`point_value`] and the caller's point): a row's max
    /// and sum are evaluated once per point, not once per element.
    evals: RefCell<EvalMemo>,
    /// The sub-terms met by earlier pairs, with what each reaches.
    reached: Reached,
    /// Sub-terms met since `canon` last recorded its facts (children first).
    pending: Vec<TermId>,
    /// Verdicts of the differing sub-terms of earlier pairs (see [`differing_pair`]).
    sub_pairs: FxHashMap<(TermId, TermId), Verdict>,
    /// The forms an earlier call's chunk left ([`Kept`]), continued by `canon` when the
    /// prover first runs here.
    kept: Option<Detached>,
}

/// The canonical forms earlier decide calls over one store built, by chunk position:
/// chunk `c` of a call continues the `Canon` chunk `c` of the call before left (where
/// that recorded no precondition, see `canon::kept`). Attention's `lse` and `o` are
/// proved in two calls whose chunks hold the same rows, each converting the rows'
/// running max and sum; a function of the calls and their pairs, never of the threads.
#[derive(Default)]
pub struct Kept {
    slots: Vec<Option<Detached>>,
    /// The store the forms are of (its address) and its size then: a store that only
    /// grew since. Another (a misuse of the cache) drops them.
    store: Option<(usize, usize)>,
}

impl Kept {
    /// The forms of the first `n` chunks over `terms`, leaving their slots empty.
    fn take(&mut self, n: usize, terms: &Terms) -> Vec<Option<Detached>> {
        let here = std::ptr::from_ref(terms) as usize;
        if self
            .store
            .is_some_and(|(at, len)| at != here || terms.len() < len)
        {
            self.slots.clear();
        }
        self.store = Some((here, terms.len()));
        if self.slots.len() < n {
            self.slots.resize_with(n, || None);
        }
        self.slots[..n].iter_mut().map(Option::take).collect()
    }
}

/// The innermost pair of sub-terms in which `a` and `b` differ, where they are the same
/// context around one differing pair: `exp(x_j - m)·l^-1` against `exp(x_j - m)·S^-1`
/// differ in `(l, S)`. Operands of an n-ary node that both sides have are set aside;
/// the walk descends while exactly one operand of each side is left. `(a, b)` itself
/// where they differ at the top.
fn differing_pair(terms: &Terms, a: TermId, b: TermId) -> (TermId, TermId) {
    let (mut a, mut b) = (a, b);
    loop {
        let next = match (terms.node(a), terms.node(b)) {
            (Node::Add(x), Node::Add(y))
            | (Node::Mul(x), Node::Mul(y))
            | (Node::Max(x), Node::Max(y))
            | (Node::Min(x), Node::Min(y))
            | (Node::MaxNum(x), Node::MaxNum(y))
            | (Node::MinNum(x), Node::MinNum(y)) => only_difference(x, y),
            (Node::Pow(p, j), Node::Pow(q, k)) if j == k => Some((*p, *q)),
            (Node::Call(f, p), Node::Call(g, q)) if f == g => Some((*p, *q)),
            _ => None,
        };
        match next {
            Some((p, q)) if p != q => (a, b) = (p, q),
            _ => return (a, b),
        }
    }
}

/// The one operand of `x` and the one of `y` left after removing those both have (as
/// multisets), where exactly one is left on each side.
fn only_difference(x: &[TermId], y: &[TermId]) -> Option<(TermId, TermId)> {
    let (mut xs, mut ys) = (x.to_vec(), y.to_vec());
    xs.sort_unstable();
    ys.sort_unstable();
    let (mut i, mut j) = (0, 0);
    let (mut only_x, mut only_y) = (Vec::new(), Vec::new());
    while i < xs.len() || j < ys.len() {
        match (xs.get(i), ys.get(j)) {
            (Some(p), Some(q)) if p == q => {
                i += 1;
                j += 1;
            }
            (Some(p), Some(q)) if p < q => {
                only_x.push(*p);
                i += 1;
            }
            (Some(_), Some(q)) => {
                only_y.push(*q);
                j += 1;
            }
            (Some(p), None) => {
                only_x.push(*p);
                i += 1;
            }
            (None, Some(q)) => {
                only_y.push(*q);
                j += 1;
            }
            (None, None) => break,
        }
        if only_x.len() > 1 || only_y.len() > 1 {
            return None;
        }
    }
    match (only_x.as_slice(), only_y.as_slice()) {
        ([p], [q]) => Some((*p, *q)),
        _ => None,
    }
}

/// As [`decide_with_points`], with `shared`: the canonical forms and point values of
/// sub-terms met in earlier pairs are reused.
fn decide_shared<'t>(
    terms: &'t Terms,
    a: TermId,
    b: TermId,
    opts: &Options,
    extra: &dyn Fn(&Leaf) -> Option<f64>,
    shared: &mut Shared<'t>,
    refute_only: bool,
) -> Verdict {
    if a == b {
        if terms.is_nan(a) {
            // The same NaN on both sides is an undefined element, never a proof.
            return Verdict::Unknown {
                reason: "both sides are NaN for every input".into(),
            };
        }
        return Verdict::Equal {
            preconditions: Vec::new(),
        };
    }
    // Only the sub-terms no earlier pair of the chunk met are walked here.
    let new_a = Dag::new_since(terms, a, &mut shared.reached);
    let new_b = Dag::new_since(terms, b, &mut shared.reached);
    shared
        .pending
        .extend(new_a.nodes.into_iter().chain(new_b.nodes));
    let flags = shared.reached.flags(a) | shared.reached.flags(b);
    // Bit-level code is never evaluated, so random points can never refute it.
    if flags & Reached::OPAQUE != 0 {
        let op = Dag::new(terms, &[a, b])
            .nodes
            .iter()
            .find_map(|&t| match terms.node(t) {
                Node::Opaque(op, _) => Some(op.clone()),
                _ => None,
            })
            // Reachable by construction of the flag; a name only for the message.
            .unwrap_or_else(|| "bit-level".into());
        return Verdict::Unknown {
            reason: format!(
                "bit-level code (`{op}`) that lift does not read as real arithmetic \
                 (not a recognised libm expansion)"
            ),
        };
    }
    let has_inf_nan = flags & Reached::INF_NAN != 0;
    let refuter = Refuter::new(terms, [a, b], &shared.evals, opts.spec);
    // 1. Refuter.
    let caller = |l: &Leaf| extra(l).unwrap_or_else(|| point_value(CALLER_POINT, l));
    if let Some(cex) = refuter.try_point(CALLER_POINT, &caller, true) {
        return Verdict::NotEqual(cex);
    }
    // A few points before the prover; the rest only when the prover does not prove.
    let first = opts.random_points.min(2) as u64;
    if let Some(cex) = refuter.search_memo(1..1 + first, true) {
        return Verdict::NotEqual(cex);
    }
    if has_inf_nan {
        if let Some(cex) = refuter.search(1 + first..1 + opts.random_points as u64) {
            return Verdict::NotEqual(cex);
        }
        if let Some(cex) = refuter.search_boundaries() {
            return Verdict::NotEqual(cex);
        }
        return Verdict::Unknown {
            reason: "the terms contain an infinity or NaN (e.g. an unsimplified masked lane)"
                .into(),
        };
    }
    if refute_only {
        // A renaming of a pair the prover proved with no precondition (see
        // `symmetry`): the proof carries over; the points above were this pair's own.
        return Verdict::Equal {
            preconditions: Vec::new(),
        };
    }
    // 2. Congruence: where the sides are one context around a differing pair of
    // sub-terms, equal sub-terms make them equal (the same function of equal values).
    // The pair's verdict is kept for the chunk: every element of a row divides by the
    // row's sum, so the sums are compared once per row, not once per element.
    let (p, q) = differing_pair(terms, a, b);
    if (p, q) != (a, b) {
        let sub = match shared.sub_pairs.get(&(p, q)) {
            Some(v) => v.clone(),
            None => {
                let v = decide_shared(terms, p, q, opts, extra, shared, false);
                shared.sub_pairs.insert((p, q), v.clone());
                v
            }
        };
        if sub.is_equal() {
            return sub;
        }
    }
    // 3. Prover.
    let refuter = Refuter::new(terms, [a, b], &shared.evals, opts.spec);
    let rest_points = 1 + first..1 + opts.random_points as u64;
    // The canonical forms record the facts of every sub-term met so far (children
    // first: a child's id is below its parents').
    shared.pending.sort_unstable();
    let met = Dag {
        nodes: std::mem::take(&mut shared.pending),
        has_inf_nan,
    };
    let canon = match &mut shared.canon {
        Some(c) => {
            c.next_pair(&met);
            c
        }
        None => {
            let kept = shared.kept.take();
            match kept.and_then(|k| Canon::attach(terms, k, opts.max_monomials)) {
                Some(mut c) => {
                    c.next_pair(&met);
                    shared.canon.insert(c)
                }
                None => shared
                    .canon
                    .insert(Canon::new(terms, &met, opts.max_monomials)),
            }
        }
    };
    let mut outcome = prove(canon, a, b, opts);
    if matches!(outcome, Proof::Differ) && canon.has_two_operand_extrema() {
        // Retry with the order of max/min operands split into cases.
        canon.split_extrema = true;
        if let Proof::Equal = prove(canon, a, b, opts) {
            outcome = Proof::Equal;
        }
    }
    if !matches!(outcome, Proof::Equal) {
        if let Some(cex) = refuter.search(rest_points.clone()) {
            return Verdict::NotEqual(cex);
        }
        if let Some(cex) = refuter.search_boundaries() {
            return Verdict::NotEqual(cex);
        }
    }
    match outcome {
        Proof::Equal => {
            // A shared `Canon` holds the preconditions of earlier pairs too: keep those
            // of terms reachable here.
            let reachable = reaches(terms, &[a, b], canon.pre.iter().map(|p| p.1));
            let mut pre: Vec<_> = canon
                .pre
                .iter()
                .filter(|p| reachable.contains(&p.1))
                .cloned()
                .collect();
            pre.sort_by_key(|p| (p.0, p.1));
            // A proof never rests on a false premise. A closed one (`0 > 0`, from a
            // constant `log(0)`) is evaluated; where the others fail, the sides are
            // compared by IEEE's rules at the refuter's points: a kernel undefined where
            // the other side is not is refuted there.
            for (kind, t, _) in &pre {
                if terms.is_closed(*t) {
                    // Exactly 0 when its canonical form is (`sqrt(2)^2 - 2` evaluates to
                    // 4e-16 in f64); otherwise its sign from f64 where that is clear.
                    canon.set_assignment(FxHashMap::default());
                    let zero = canon.convert(*t).is_ok_and(|rf| rf.n.is_zero());
                    let v = terms.eval(*t, &|_, _| f64::NAN, &|_| f64::NAN);
                    let clear = zero || v.abs() > 1e-9;
                    let holds = clear
                        && match kind {
                            PreKind::NonZero => !zero,
                            PreKind::Positive => !zero && v > 0.0,
                            PreKind::NonNegative => zero || v > 0.0,
                        };
                    if !holds {
                        let premise = Precondition {
                            kind: *kind,
                            expr: terms.display(*t).to_string(),
                        };
                        return Verdict::Unknown {
                            reason: format!(
                                "the proof needs `{premise}`, which is {}",
                                if clear {
                                    "false"
                                } else {
                                    "too close to 0 to tell"
                                }
                            ),
                        };
                    }
                }
            }
            if !pre.is_empty() && opts.random_points > 0 {
                if let Some(cex) = refuter
                    .search(rest_points)
                    .or_else(|| refuter.search_boundaries())
                {
                    return Verdict::NotEqual(cex);
                }
            }
            // Only where there is one to print: sizing walks every edge of the DAG.
            let sizes = if pre.is_empty() {
                FxHashMap::default()
            } else {
                tree_sizes(terms, &Dag::new(terms, &[a, b]))
            };
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
                    "the canonical forms differ, but no point out of {} (random, boundary \
                     and around comparison constants) shows it (differences may be too \
                     small for f64)",
                    tries + opts.random_points as u64 + BOUNDARY_POINTS
                )
            } else {
                format!(
                    "the canonical forms differ and no point shows it; the forms involve \
                     {}, where they are not complete",
                    canon.opaque_names().join(", ")
                )
            };
            let reason = match constants::close_constants(terms, a, b) {
                Some(why) => format!("{reason}: {why}"),
                None => reason,
            };
            Verdict::Unknown { reason }
        }
    }
}

/// Size of each term printed as a tree (saturating).
/// Which of `targets` are reachable from `roots`. A node's children have smaller ids
/// than the node (the store interns children first), so the walk never descends below
/// the smallest target: a denominator shared by a row is found without walking the row.
fn reaches(
    terms: &Terms,
    roots: &[TermId],
    targets: impl Iterator<Item = TermId>,
) -> rustc_hash::FxHashSet<TermId> {
    let targets: rustc_hash::FxHashSet<TermId> = targets.collect();
    let mut found = rustc_hash::FxHashSet::default();
    let Some(&lowest) = targets.iter().min() else {
        return found;
    };
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack: Vec<TermId> = roots.to_vec();
    while let Some(t) = stack.pop() {
        if t < lowest || !seen.insert(t) {
            continue;
        }
        if targets.contains(&t) {
            found.insert(t);
        }
        terms.for_each_child(t, |c| stack.push(c));
    }
    found
}

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
            // Denominators equal up to a monomial `q` (`rb.d = q·ra.d`): the numerators
            // are compared over the common one, without cross-multiplying.
            if let Some(q) = canon.monomial_ratio(&rb.d, &ra.d)? {
                let diff = canon.alg.mul(&ra.n, &q)?.add(&rb.n.neg());
                return Ok(canon.zero_in_case(&diff)?);
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
                        "more than {} distinct select conditions in one element (each \
                         doubles the cases; raise the cap with --max-case-splits)",
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

/// Fewest pairs decided in sequence with one shared `Canon` (see
/// [`decide_all_with_points`]).
const CHUNK: usize = 16;

/// Most chunks one call splits its pairs into: a large call (every element of a wide
/// row) gets chunks of `len / MAX_CHUNKS` pairs, so that sub-terms shared by a row
/// are converted a bounded number of times, not once per 16 elements.
const MAX_CHUNKS: usize = 8;

/// The most pairs one grown chunk shares a `Canon` with: flash attention's 8192
/// elements in chunks of 1024 (16 rows that share nothing) held 17.5 GB of canonical
/// forms at N = 128; 128 pairs keep a long row's benefit at a bounded cost.
const MAX_SHARED_CHUNK: usize = 128;

/// The chunk size for `pairs`: a function of the pairs alone, never of the thread
/// count. Larger chunks only where neighbouring pairs share most of their sub-terms
/// (elsewhere a larger shared `Canon` only costs memory).
fn chunk_size(terms: &Terms, pairs: &[(TermId, TermId)]) -> usize {
    match pairs {
        [(a0, b0), (a1, b1), ..] if pairs.len() > CHUNK => {
            if canon::neighbours_share(terms, &[*a0, *b0], &[*a1, *b1]) {
                CHUNK
                    .max(pairs.len().div_ceil(MAX_CHUNKS))
                    .min(MAX_SHARED_CHUNK)
            } else {
                CHUNK
            }
        }
        _ => CHUNK,
    }
}

/// Decides many pairs in parallel; the verdicts are in the order of `pairs`.
pub fn decide_all(terms: &Terms, pairs: &[(TermId, TermId)], opts: &Options) -> Vec<Verdict> {
    decide_up_to_renaming(terms, pairs, opts, chunk_size(terms, pairs), &[], None)
}

/// The counterexample [`decide`] finds for `(a, b)` before its prover runs, if any: at
/// the points every pair tries first (the caller's, here none, and the first random
/// ones; every point, for terms with an infinity or NaN). [`decide_all`] tries them on
/// each of its pairs, in whatever chunk or class up to renaming the pair falls (a
/// renaming of a proved pair still tries its own), at the same values (a point's value
/// of a sub-term is a function of the two), so it answers this pair `NotEqual` with
/// the same counterexample: a caller that only needs to know whether a batch holds a
/// pair not proved need not decide the batch.
pub fn refuted_before_proving(
    terms: &Terms,
    a: TermId,
    b: TermId,
    opts: &Options,
) -> Option<Counterexample> {
    match decide_shared(terms, a, b, opts, &|_| None, &mut Shared::default(), true) {
        Verdict::NotEqual(cex) => Some(cex),
        _ => None,
    }
}

/// [`decide_all`] for the elements of a tensor in row-major order, rows of `row`
/// elements: where neighbouring elements share most of their sub-terms (a softmax row's
/// max and sum), each chunk is one row, so a long row's shared canonical forms are built
/// once (chunks of [`MAX_SHARED_CHUNK`] would build them once per 128 elements; an
/// online softmax row of 4096 elements rescales its running sum in each). The chunks
/// depend on the pairs and `row` alone, never on the thread count.
pub fn decide_rows(
    terms: &Terms,
    pairs: &[(TermId, TermId)],
    opts: &Options,
    row: usize,
) -> Vec<Verdict> {
    decide_rows_reusing(terms, pairs, opts, row, &Decided::none())
}

/// [`decide_rows`] where the pairs `decided` knows (the same terms decided `Equal` in
/// another store, see `reuse`) are `Equal` without deciding them again; every other
/// pair is decided as there (in chunks without the known pairs where it is the first of
/// its class up to renaming).
pub fn decide_rows_reusing(
    terms: &Terms,
    pairs: &[(TermId, TermId)],
    opts: &Options,
    row: usize,
    decided: &Decided,
) -> Vec<Verdict> {
    rows(terms, pairs, opts, row, decided, None)
}

/// [`decide_rows_reusing`] continuing the canonical forms `kept` holds from earlier
/// calls over `terms` and leaving this call's there.
pub fn decide_rows_continuing(
    terms: &Terms,
    pairs: &[(TermId, TermId)],
    opts: &Options,
    row: usize,
    decided: &Decided,
    kept: &mut Kept,
) -> Vec<Verdict> {
    rows(terms, pairs, opts, row, decided, Some(kept))
}

fn rows(
    terms: &Terms,
    pairs: &[(TermId, TermId)],
    opts: &Options,
    row: usize,
    decided: &Decided,
    kept: Option<&mut Kept>,
) -> Vec<Verdict> {
    let by_row = row > MAX_SHARED_CHUNK
        && pairs.len() >= row
        && pairs.len().is_multiple_of(row)
        && chunk_size(terms, pairs) > CHUNK;
    let size = if by_row {
        row
    } else {
        chunk_size(terms, pairs)
    };
    let known = if decided.is_empty() {
        Vec::new()
    } else {
        decided.known(terms, pairs, opts)
    };
    decide_up_to_renaming(terms, pairs, opts, size, &known, kept)
}

/// How [`decide_chunks`] treats one pair.
enum Plan {
    Decide,
    /// A renaming of a pair proved equal with no precondition: its own refuter points
    /// only (see [`decide_up_to_renaming`]).
    RefuteOnly,
    Done(Verdict),
}

/// [`decide_chunks`] of `size` with no caller's point, the prover run once per class of
/// pairs equal up to a one-to-one renaming of input elements (`symmetry`): the first
/// pair of each class is decided; the others of a class whose first pair proved equal
/// with no precondition try their own refuter points and are otherwise equal (what
/// their own prover would find); the rest are decided as ever. A pair `known[i]` (an
/// empty `known`: none) is `Equal` undecided, as the same terms were elsewhere. Both
/// passes continue `kept` (see [`Kept`]) where given.
fn decide_up_to_renaming(
    terms: &Terms,
    pairs: &[(TermId, TermId)],
    opts: &Options,
    size: usize,
    known: &[bool],
    mut kept: Option<&mut Kept>,
) -> Vec<Verdict> {
    let is_known = |i: usize| known.get(i).copied().unwrap_or(false);
    let equal = || Verdict::Equal {
        preconditions: Vec::new(),
    };
    // Every pair known: each is planned `Equal` below before its class is read, so the
    // classes, a walk of every pair's whole DAG, would change nothing (a replay along
    // a sequence often meets only rows proved before).
    if (0..pairs.len()).all(is_known) {
        return vec![equal(); pairs.len()];
    }
    let class = symmetry::classes(terms, pairs);
    let firsts: Vec<usize> = (0..pairs.len()).filter(|&i| class[i] == i).collect();
    if firsts.len() == pairs.len() {
        let plan = |i| {
            if is_known(i) {
                Plan::Done(equal())
            } else {
                Plan::Decide
            }
        };
        return decide_chunks(terms, pairs, opts, &|_| None, size, &plan, kept);
    }
    tracing::debug!(
        "decide: {} pairs in {} classes up to renaming",
        pairs.len(),
        firsts.len()
    );
    let mut verdict_of: Vec<Option<Verdict>> = vec![None; pairs.len()];
    let (firsts, undecided): (Vec<usize>, Vec<usize>) =
        firsts.into_iter().partition(|&i| !is_known(i));
    for i in undecided {
        verdict_of[i] = Some(equal());
    }
    let first_pairs: Vec<_> = firsts.iter().map(|&i| pairs[i]).collect();
    let first_size = chunk_size(terms, &first_pairs);
    let decide = |_| Plan::Decide;
    let decided = decide_chunks(
        terms,
        &first_pairs,
        opts,
        &|_| None,
        first_size,
        &decide,
        kept.as_deref_mut(),
    );
    for (i, v) in firsts.into_iter().zip(decided) {
        verdict_of[i] = Some(v);
    }
    let plan = |i: usize| match &verdict_of[class[i]] {
        _ if is_known(i) => Plan::Done(equal()),
        Some(v) if class[i] == i => Plan::Done(v.clone()),
        Some(Verdict::Equal { preconditions }) if preconditions.is_empty() => Plan::RefuteOnly,
        _ => Plan::Decide,
    };
    decide_chunks(terms, pairs, opts, &|_| None, size, &plan, kept)
}

/// As [`decide_with_points`] for many pairs, in parallel; the verdicts are in the order
/// of `pairs`. Consecutive pairs (chunks whose size is a function of the pair count, `chunk_size`, so the grouping and hence the
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
    decide_chunks(
        terms,
        pairs,
        opts,
        extra,
        chunk_size(terms, pairs),
        &|_| Plan::Decide,
        None,
    )
}

/// The pairs in chunks of `size`, each chunk deciding in sequence with one shared
/// `Canon` (continuing chunk `c`'s of `kept`, and leaving its own there, where given).
fn decide_chunks(
    terms: &Terms,
    pairs: &[(TermId, TermId)],
    opts: &Options,
    extra: &(dyn Fn(&Leaf) -> Option<f64> + Sync),
    size: usize,
    plan: &(dyn Fn(usize) -> Plan + Sync),
    mut kept: Option<&mut Kept>,
) -> Vec<Verdict> {
    let carry = kept.is_some();
    let count = pairs.len().div_ceil(size.max(1));
    let slots = match kept.as_deref_mut() {
        Some(k) => k.take(count, terms),
        None => (0..count).map(|_| None).collect(),
    };
    let chunks: Vec<(Vec<Verdict>, Option<Detached>)> = pairs
        .par_chunks(size)
        .zip(slots)
        .enumerate()
        .map(|(c, (chunk, slot))| {
            let mut shared = Shared {
                kept: slot,
                ..Shared::default()
            };
            let verdicts = chunk
                .iter()
                .enumerate()
                .map(|(j, &(a, b))| {
                    let refute_only = match plan(c * size + j) {
                        Plan::Done(v) => return v,
                        Plan::RefuteOnly => true,
                        Plan::Decide => false,
                    };
                    decide_shared(terms, a, b, opts, extra, &mut shared, refute_only)
                })
                .collect();
            let left = match shared.canon.take() {
                Some(canon) if carry => canon.detach(opts.max_monomials),
                _ => shared.kept.take(),
            };
            (verdicts, left)
        })
        .collect();
    let mut verdicts = Vec::with_capacity(pairs.len());
    for (c, (v, left)) in chunks.into_iter().enumerate() {
        verdicts.extend(v);
        if let Some(k) = kept.as_deref_mut() {
            k.slots[c] = left;
        }
    }
    verdicts
}
