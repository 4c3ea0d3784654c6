//! Causal outputs: row `i` of an output reads key rows `0..=i + d` only (causal
//! attention masks the scores, `where(j <= i + d, s, -inf)`, before its softmax).
//!
//! Such elements share no root operator (row 0 of `softmax(s) @ v` is `v[0]`, row 1 a
//! quotient of two-term sums), so top-down stalls. The output is completed first:
//! element `[.., i, ..]` is replaced by the same element of the last row, which reads
//! every key, with the inputs that follow the row (the query `q[.., T - 1, :]`) renamed
//! to row `i` (the last row normalised first, so the other rows need no normalising of
//! their own). The complete list (non-causal attention) is synthesised; then the scores
//! are masked: every greatest sub-formula over the (row, key) axes that reads one
//! causal input and is a matmul times numbers becomes
//! `where(tril(ones(T, S), d) != 0, s, -inf)` (single candidates, smallest first, after
//! that). The masked formula must be `decide`d equal to the real elements on a sample
//! of rows here; the caller proves every element, as for any formula.
//!
//! Nothing here is trusted: a wrong completion or mask fails the sample or the proof,
//! and the ordinary search runs instead.

use super::{enumerate, instance, leaves::LeafSets, online, synthesize, unravel, Options, Synth};
use crate::decide::{self, Verdict};
use crate::formula::{BinaryOp, Formula};
use crate::term::CmpOp;
use crate::term::{Node, TermId, Terms};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::time::Instant;

/// The most candidate score sub-formulas tried for the mask.
const MAX_MASKS: usize = 6;

/// What [`detect`] found.
struct Causal {
    /// The output axis the rows run along.
    row_axis: usize,
    /// Row `i` reads key rows `0..=i + diagonal`.
    diagonal: i64,
    /// An input axis read causally: (tensor, axis).
    keys: (String, usize),
    /// Every input tensor read causally (attention's keys and values).
    causal_inputs: Vec<String>,
    /// The input axes whose index is the element's row: (tensor, axis).
    tracking: Vec<(String, usize)>,
}

/// The formula of a causal output whose elements are `elems`, `Some(Err(t))` where its
/// search ends at the stalled sub-term `t` (see `lift_complete`), or `None` where the
/// output is not causal or its completion does not lift. Where it is tried and fails,
/// the search that follows starts afresh (memo, step budget and work limit).
pub(super) fn lift(
    s: &mut Synth,
    opts: &Options,
    name: &str,
    shape: &[usize],
    elems: &[TermId],
) -> Option<Result<Formula, TermId>> {
    let start = Instant::now();
    let c = detect(s, shape, elems)?;
    tracing::debug!(
        "synth {name}: causal along axis {} (diagonal {}, keys {:?}), completed in {:?}",
        c.row_axis,
        c.diagonal,
        c.keys,
        start.elapsed()
    );
    s.renew(opts);
    let lifted = lift_complete(s, opts, name, &c, shape, elems);
    s.restart();
    if lifted.is_none() {
        s.renew(opts);
    }
    lifted
}

/// The complete elements synthesised, then masked: first from the last row normalised
/// (`normalised_last_row`); where that builds but does not mask, the complete list
/// through every stage; where it stalls, the complete list top-down only, unless the
/// last row rescales a running sum (then that stall is the output's: `Some(Err)`).
/// `None`: the ordinary search is to run.
///
/// A stall of the normalised rows is the dead end of every normalising stage: the
/// complete list normalised factor by factor is those rows again (normalising commutes
/// with renaming the row's query), and the later stages search the same closed forms
/// over a list every row of which reads every key (on a wrong kernel, minutes before
/// the ordinary search, which runs next, gives its own stall). Top-down over the
/// complete list as it is still runs: a causal output without a recurrence (softmax
/// over the whole row) lifts there. With one (a rescaled running sum, `online::rescales`)
/// it does not: top-down descends the recurrence step by step to the dead end the
/// normalised rows met (`fla_attn_causal_rescale_bug`: 1.2 s of its 2.8 s give-up).
/// Nor does the ordinary search: it normalises the same rows, by factor and whole, and
/// every stage stalls at row 0 (0.5–0.6 s more of that give-up). These are search
/// policies, not proofs; nothing in the suite or corpus lifts either way.
fn lift_complete(
    s: &mut Synth,
    opts: &Options,
    name: &str,
    c: &Causal,
    shape: &[usize],
    elems: &[TermId],
) -> Option<Result<Formula, TermId>> {
    let last_row = normalised_last_row(s, c, shape, elems);
    if let Some(Ok(full)) = &last_row {
        s.restart();
        if let Some(f) = mask(s, name, full.clone(), c, shape, elems) {
            return Some(Ok(f));
        }
    }
    // A stalled last row that rescales a running sum: see above; that stall is the
    // output's.
    if let Some(Err(t)) = last_row {
        if online::rescales(s.terms, elems[elems.len() - 1]) {
            tracing::debug!("synth {name}: the normalised last row stalls on an online recurrence");
            return Some(Err(t));
        }
    }
    s.restart();
    let list = complete(s.terms, shape, elems, c, s.env);
    let built = match last_row {
        Some(Err(_)) => s.build(shape, &list),
        _ => synthesize(s, opts, name, shape, &list, true),
    };
    let full = built
        .map_err(|t| {
            let stall = super::show(s.terms, t);
            tracing::debug!("synth {name}: the completed output stalls at {stall}");
        })
        .ok()?;
    s.restart();
    mask(s, name, full, c, shape, elems).map(Ok)
}

/// Top-down over the complete list made from the last row normalised factor by factor
/// (online rescalings merged): a row's share of the work of normalising every element.
/// `None` where the last row does not normalise.
fn normalised_last_row(
    s: &mut Synth,
    c: &Causal,
    shape: &[usize],
    elems: &[TermId],
) -> Option<Result<Formula, TermId>> {
    let stride: usize = shape[c.row_axis + 1..].iter().product();
    let rows = shape[c.row_axis];
    let last: Vec<usize> = (0..elems.len())
        .filter(|&p| (p / stride) % rows == rows - 1)
        .collect();
    let last_terms: Vec<TermId> = last.iter().map(|&p| elems[p]).collect();
    let start = Instant::now();
    let norm = enumerate::normalize_factors(s.terms, &last_terms)?;
    let normalised = start.elapsed();
    let mut templates = elems.to_vec();
    for (&p, t) in last.iter().zip(norm) {
        templates[p] = t;
    }
    let list = complete(s.terms, shape, &templates, c, s.env);
    let completed = start.elapsed();
    let built = enumerate::build_normalised(s, shape, &list);
    tracing::debug!(
        "causal: last row normalised in {normalised:?}, completed at {completed:?}, built at {:?}: {} ({} steps)",
        start.elapsed(),
        enumerate::outcome(s.terms, &built),
        s.steps_taken
    );
    Some(built)
}

/// The span of an input axis one element reads: least and greatest index, and how
/// many distinct indices.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Span {
    lo: i64,
    hi: i64,
    distinct: usize,
}

/// For each (tensor, axis), the span of indices the term `t` reads.
fn spans(terms: &Terms, sets: &mut LeafSets, t: TermId) -> BTreeMap<(String, usize), Span> {
    // Keyed by the borrowed name (a row reads thousands of leaves; one key per axis).
    let mut seen: BTreeMap<(&str, usize), Vec<i64>> = BTreeMap::new();
    let bits = sets.of(terms, t);
    for leaf in sets.terms_of(&bits) {
        if let Node::Input { tensor, index } = terms.node(leaf) {
            for (axis, &i) in index.iter().enumerate() {
                seen.entry((&**tensor, axis)).or_default().push(i);
            }
        }
    }
    seen.into_iter()
        .map(|((name, axis), mut v)| {
            v.sort_unstable();
            v.dedup();
            let span = Span {
                lo: *v.first().unwrap_or(&0),
                hi: *v.last().unwrap_or(&0),
                distinct: v.len(),
            };
            ((name.to_string(), axis), span)
        })
        .collect()
}

/// Finds a row axis along which the elements read a growing prefix of some input axis
/// while another input follows the row (see the module documentation).
fn detect(s: &mut Synth, shape: &[usize], elems: &[TermId]) -> Option<Causal> {
    let n = elems.len();
    if n < 2 {
        return None;
    }
    // Cheap refusal: a causal output's first element reads fewer inputs than its last.
    let sets = &mut s.leaf_sets;
    let count = |b: &[u64]| b.iter().map(|w| w.count_ones()).sum::<u32>();
    if count(&sets.of(s.terms, elems[0])) >= count(&sets.of(s.terms, elems[n - 1])) {
        return None;
    }
    for row_axis in (0..shape.len()).filter(|&a| shape[a] > 1) {
        // The probes: the elements at index 0 on every other axis.
        let stride: usize = shape[row_axis + 1..].iter().product();
        let probes: Vec<BTreeMap<(String, usize), Span>> = (0..shape[row_axis])
            .map(|r| spans(s.terms, &mut s.leaf_sets, elems[r * stride]))
            .collect();
        let last_row = shape[row_axis] - 1;
        let mut tracking: Vec<(String, usize)> = Vec::new();
        let mut keys: Vec<((String, usize), i64)> = Vec::new();
        // An element need not read every input its row could: row 0 of
        // `softmax(s) @ v` is `v[0]`, which reads neither `q` nor `k`.
        for key in probes[last_row].keys() {
            let extent = s.env.tensors.get(&key.0).and_then(|sh| sh.get(key.1));
            let Some(&extent) = extent else { continue };
            let extent = extent as i64;
            let present: Vec<(i64, Span)> = (0..=last_row)
                .filter_map(|r| probes[r].get(key).map(|&sp| (r as i64, sp)))
                .collect();
            let row = |r: i64| Span {
                lo: r,
                hi: r,
                distinct: 1,
            };
            if present.iter().all(|&(r, sp)| sp == row(r)) {
                tracking.push(key.clone());
                continue;
            }
            // A prefix `0..=r + d`, clipped at the axis' end, shorter in some row.
            let (r0, span0) = present[0];
            let d = span0.hi - r0;
            let prefix = |r: i64| {
                let hi = (r + d).min(extent - 1);
                Span {
                    lo: 0,
                    hi,
                    distinct: hi as usize + 1,
                }
            };
            if span0.hi < extent - 1 && present.iter().all(|&(r, sp)| sp == prefix(r)) {
                keys.push((key.clone(), d));
            }
        }
        let Some((first_key, diagonal)) = keys.first().cloned() else {
            continue;
        };
        if tracking.is_empty() || keys.iter().any(|(_, d)| *d != diagonal) {
            continue;
        }
        return Some(Causal {
            row_axis,
            diagonal,
            keys: first_key,
            causal_inputs: keys.iter().map(|((t, _), _)| t.clone()).collect(),
            tracking,
        });
    }
    None
}

/// Every element replaced by its last-row twin in `templates` (the elements, or the
/// last row normalised), with the tracking input axes renamed from the last row to the
/// element's row.
fn complete(
    terms: &mut Terms,
    shape: &[usize],
    templates: &[TermId],
    c: &Causal,
    env: &crate::formula::ShapeEnv,
) -> Vec<TermId> {
    let (row_axis, tracking) = (c.row_axis, &c.tracking);
    let rows = shape[row_axis];
    let stride: usize = shape[row_axis + 1..].iter().product();
    let last = (rows - 1) as i64;
    // The tracking axes of each tensor.
    let mut axes: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (t, a) in tracking {
        axes.entry(t.as_str()).or_default().push(*a);
    }
    // The elements of the tracking tensors in the last row: (tensor, its axes, index).
    let mut in_last_row: Vec<(&str, &[usize], Vec<i64>)> = Vec::new();
    for (tensor, ax) in &axes {
        let Some(tshape) = env.tensors.get(*tensor) else {
            continue;
        };
        let total: usize = tshape.iter().product();
        for flat in 0..total {
            let idx: Vec<i64> = unravel(flat, tshape).iter().map(|&i| i as i64).collect();
            if ax.iter().all(|&a| idx[a] == last) {
                in_last_row.push((tensor, ax, idx));
            }
        }
    }
    let mut out = templates.to_vec();
    for r in 0..rows - 1 {
        // The renaming of row `last` to row `r` (one memo for the row: its elements
        // share their scores).
        let mut map: FxHashMap<TermId, TermId> = FxHashMap::default();
        for (tensor, ax, idx) in &in_last_row {
            let mut to = idx.clone();
            for &a in ax.iter() {
                to[a] = r as i64;
            }
            map.insert(terms.input(tensor, idx), terms.input(tensor, &to));
        }
        let mut memo = FxHashMap::default();
        for (p, slot) in out.iter_mut().enumerate() {
            if (p / stride) % rows != r {
                continue;
            }
            let template = templates[p + (rows - 1 - r) * stride];
            *slot = terms.substitute_memo(template, &map, &mut memo);
        }
    }
    out
}

/// `f` with each greatest sub-formula that `is_scores` and is a matmul times numbers
/// replaced by `masked` of it.
fn mask_scores(
    f: Formula,
    is_scores: &dyn Fn(&Formula) -> bool,
    masked: &dyn Fn(&Formula) -> Formula,
) -> Formula {
    fn scaled(f: &Formula) -> bool {
        match f {
            Formula::MatMul(..) => true,
            Formula::Binary(BinaryOp::Mul, a, b) => {
                (scaled(a) && b.is_number()) || (a.is_number() && scaled(b))
            }
            Formula::Binary(BinaryOp::Div, a, b) => scaled(a) && b.is_number(),
            _ => false,
        }
    }
    if is_scores(&f) && scaled(&f) {
        return masked(&f);
    }
    f.map_children(&mut |c| mask_scores(c, is_scores, masked))
}

/// `full` with its scores masked (see the module documentation), checked on a sample of
/// rows against the real elements.
fn mask(
    s: &mut Synth,
    name: &str,
    full: Formula,
    c: &Causal,
    shape: &[usize],
    elems: &[TermId],
) -> Option<Formula> {
    let rows = shape[c.row_axis];
    let key_extent = *s.env.tensors.get(&c.keys.0)?.get(c.keys.1)?;
    let row_size = s.env.dim_exprs.get(name)?.get(c.row_axis)?.clone();
    let key_size = s.env.dim_exprs.get(&c.keys.0)?.get(c.keys.1)?.clone();
    let ones = Formula::Broadcast {
        arg: Box::new(Formula::int(1)),
        shape: vec![row_size, key_size],
    };
    let visible = Formula::Cmp(
        CmpOp::Ne,
        Box::new(Formula::Tri {
            arg: Box::new(ones),
            upper: false,
            diagonal: c.diagonal,
        }),
        Box::new(Formula::int(0)),
    );
    let masked = |scores: &Formula| {
        Formula::Select(
            Box::new(visible.clone()),
            Box::new(scores.clone()),
            Box::new(Formula::Inf { negative: true }),
        )
    };
    let is_scores = |f: &Formula| {
        f.shape(s.env)
            .is_ok_and(|fs| fs.len() >= 2 && fs[fs.len() - 2..] == [rows, key_extent])
            && f.reads(&c.keys.0)
            && c.causal_inputs.iter().filter(|t| f.reads(t)).count() == 1
    };
    // First every score at once: the greatest sub-formulas over the (row, key) axes
    // that are a matmul times numbers (a softmax's max and its exponential may hold
    // the same scores in different forms, `(c·q) @ k.T` and `c·(q @ k.T)`). Then
    // each sub-formula over those axes alone, smallest first.
    let mut tries = vec![mask_scores(full.clone(), &is_scores, &masked)];
    let mut cands: Vec<&Formula> = Vec::new();
    let mut stack = vec![&full];
    while let Some(f) = stack.pop() {
        stack.extend(f.children());
        if is_scores(f) && !cands.contains(&f) {
            cands.push(f);
        }
    }
    cands.sort_by_key(|f| f.size());
    tries.extend(
        cands
            .into_iter()
            .take(MAX_MASKS)
            .map(|scores| full.clone().replace(scores, &masked(scores))),
    );
    // The sample: the first, second and last rows at index 0 elsewhere.
    let stride: usize = shape[c.row_axis + 1..].iter().product();
    let sample: Vec<usize> = [0, 1, rows - 1].iter().map(|r| r * stride).collect();
    for f in tries {
        let Ok(inst) = instance(s.terms, s.env, &f, &mut s.instances) else {
            continue;
        };
        if inst.len() != elems.len() {
            continue;
        }
        let pairs: Vec<(TermId, TermId)> = sample.iter().map(|&p| (inst[p], elems[p])).collect();
        let verdicts = decide::decide_rows(s.terms, &pairs, &decide::Options::default(), 1);
        if verdicts.iter().all(|v| matches!(v, Verdict::Equal { .. })) {
            return Some(f);
        }
        tracing::debug!(
            "synth {name}: mask {} fails on the sample: {verdicts:?}",
            crate::render::text::expr(&f)
        );
    }
    None
}
