//! Running extrema as kernels write them, read as the extrema they compute (issue 20,
//! item 2): `if (v > m) m = v` and `m = v > m ? v : m` if-convert to
//! `select(v > m, v, m)`, which is `max(v, m)`; a running maximum seeded with
//! `-FLT_MAX` over elements of float32 tensors is their maximum for every finite input;
//! a running `(best, index)` pair updated under `v > best` is PyTorch's first-index
//! `argmax`.
//!
//! Invariant: every rewrite is an identity over the reals (with ±inf), except dropping
//! a finite seed, which holds for every *finite* input of the tensors' dtypes and is
//! returned as an assumption for the verdict to state. Depends on `term` and `launch`
//! only; no I/O, never panics.

use crate::launch::{Dtype, Instance};
use crate::term::{CmpOp, Node, TermId, Terms};
use num_traits::ToPrimitive;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

use super::execution::Output;

/// The largest finite magnitude of a dtype's values (integers: the larger end of their
/// range, `Dtype::int_range`).
fn finite_bound(d: Dtype) -> f64 {
    match d {
        Dtype::F32 => f32::MAX as f64,
        Dtype::F16 => 65504.0,
        Dtype::Bf16 => 3.389_531_389_251_535_5e38,
        Dtype::F64 => f64::MAX,
        _ => d.int_range().map_or(f64::MAX, |(lo, hi)| {
            lo.unsigned_abs().max(hi.unsigned_abs()) as f64
        }),
    }
}

/// Rewrites the outputs' terms in place; returns the assumptions made (one line per
/// distinct seed dropped).
pub fn normalise(
    terms: &mut Terms,
    outputs: &mut [Output<TermId>],
    inst: &Instance,
) -> Vec<String> {
    let bounds: BTreeMap<String, f64> = inst
        .tensors
        .iter()
        .map(|t| (t.name.clone(), finite_bound(t.dtype)))
        .collect();
    let mut pass = Pass {
        bounds,
        memo: FxHashMap::default(),
        arg_memo: FxHashMap::default(),
        tree_memo: FxHashMap::default(),
        seeds: BTreeMap::new(),
    };
    // Cheap exit: nothing to do without a select, comparison, max or min anywhere in
    // the store (a matmul's 2M products are not walked twice for nothing).
    if !terms.any_node(|n| {
        matches!(
            n,
            Node::Select(..) | Node::Cmp(..) | Node::Max(_) | Node::Min(_)
        )
    }) {
        return Vec::new();
    }
    for o in outputs.iter_mut() {
        for e in o.elems.iter_mut().flatten() {
            *e = pass.rewrite(terms, *e);
        }
    }
    for o in outputs.iter_mut() {
        for e in o.elems.iter_mut().flatten() {
            *e = pass.argext_top(terms, *e);
        }
    }
    pass.seeds
        .into_iter()
        .map(|(seed, max)| {
            let (what, inf) = if max {
                ("maximum", "-inf")
            } else {
                ("minimum", "+inf")
            };
            format!(
                "a running {what} seeded with the finite {seed} is read as seeded with {inf}: \
                 equal for every finite input of the tensors' dtypes (it differs only when every \
                 value it covers is {inf})"
            )
        })
        .collect()
}

struct Pass {
    bounds: BTreeMap<String, f64>,
    memo: FxHashMap<TermId, TermId>,
    arg_memo: FxHashMap<TermId, TermId>,
    tree_memo: TreeMemo,
    /// Seeds dropped: printed value → whether from a max.
    seeds: BTreeMap<String, bool>,
}

impl Pass {
    /// Bottom-up: selects that are max/min, then finite seeds dropped.
    fn rewrite(&mut self, terms: &mut Terms, t: TermId) -> TermId {
        // `local` changes only selects, comparisons, maxes and mins.
        if !terms.has_ordered(t) {
            return t;
        }
        if let Some(&r) = self.memo.get(&t) {
            return r;
        }
        let kids = terms.children(t);
        let r = if kids.is_empty() {
            t
        } else {
            let new: Vec<TermId> = kids.iter().map(|&k| self.rewrite(terms, k)).collect();
            let rebuilt = if new == kids {
                t
            } else {
                terms.with_children(t, &new)
            };
            self.local(terms, rebuilt)
        };
        self.memo.insert(t, r);
        r
    }

    fn local(&mut self, terms: &mut Terms, t: TermId) -> TermId {
        match terms.node(t).clone() {
            // A boolean select with one non-constant side is a junction (PTX's `||` and
            // `&&` if-convert to them): select(c, 1, d) = c || d, select(c, d, 0) =
            // c && d. (select(c, 1, 0) stays: it may be an index, as in an argmax.)
            Node::Select(c, a, b)
                if terms.is_boolean(c)
                    && terms.is_boolean(a)
                    && terms.is_boolean(b)
                    && (terms.as_bool(a).is_none() || terms.as_bool(b).is_none()) =>
            {
                let r = match (terms.as_bool(a), terms.as_bool(b)) {
                    (Some(true), _) => terms.or(c, b),
                    (_, Some(false)) => terms.and(c, a),
                    (Some(false), _) => {
                        let n = terms.not(c);
                        terms.and(n, b)
                    }
                    (_, Some(true)) => {
                        let n = terms.not(c);
                        terms.or(n, a)
                    }
                    _ => return t,
                };
                self.local(terms, r)
            }
            Node::Select(c, a, b) if cond_form(terms, c) != c => {
                let c = cond_form(terms, c);
                let s = terms.select(c, a, b);
                self.local(terms, s)
            }
            // With a side that may be NaN the select is neither max nor maxNum
            // (`select(v > m, v, m)` drops a NaN `v` but returns a NaN `m`): it stays.
            Node::Select(_, a, b) if !terms.nan_free(a) || !terms.nan_free(b) => t,
            Node::Select(c, a, b) => {
                let Node::Cmp(op, l, r) = terms.node(c).clone() else {
                    // `a > b || (a == b && …)` (a tree argmax's pick): max(a, b) either way.
                    return match strict_with_ties(terms, c, a, b) {
                        Some(true) => {
                            let m = terms.max(a, b);
                            self.local(terms, m)
                        }
                        Some(false) => {
                            let m = terms.min(a, b);
                            self.local(terms, m)
                        }
                        None => t,
                    };
                };
                // select(a > b, a, b) = max(a, b); select(a > b, b, a) = min(a, b); the
                // tie a == b gives the same value either way.
                let greater = match op {
                    CmpOp::Gt | CmpOp::Ge => true,
                    CmpOp::Lt | CmpOp::Le => false,
                    _ => return t,
                };
                let same = (l, r) == (a, b);
                let swapped = (l, r) == (b, a);
                if !same && !swapped {
                    return t;
                }
                let m = if greater == same {
                    terms.max(a, b)
                } else {
                    terms.min(a, b)
                };
                self.local(terms, m)
            }
            // Nothing is above +inf or below -inf (NaN included: IEEE compares it false),
            // so a strict comparison against the wrong infinity is false: masked lanes
            // loaded as -inf never win a `v > m` update.
            Node::Cmp(op, l, r) => {
                let inf = |x: TermId| match terms.node(x) {
                    Node::Inf { negative } => Some(*negative),
                    _ => None,
                };
                let never = match op {
                    CmpOp::Gt => inf(l) == Some(true) || inf(r) == Some(false),
                    CmpOp::Lt => inf(l) == Some(false) || inf(r) == Some(true),
                    _ => false,
                };
                if never {
                    terms.zero()
                } else {
                    t
                }
            }
            Node::Max(ops) => self.drop_seed(terms, t, &ops, true),
            Node::Min(ops) => self.drop_seed(terms, t, &ops, false),
            _ => t,
        }
    }

    /// `max(c, x_1, …)` with every `x_i` an input element and `c <= -B` (B the largest
    /// finite value of the inputs' dtypes) is `max(x_1, …)` for finite inputs.
    fn drop_seed(&mut self, terms: &mut Terms, t: TermId, ops: &[TermId], max: bool) -> TermId {
        let mut seed = None;
        let mut rest = Vec::new();
        let mut bound = 0.0f64;
        for &o in ops {
            match terms.node(o) {
                Node::Const(c) if seed.is_none() => seed = Some((o, c.to_f64().unwrap_or(0.0))),
                Node::Input { tensor, .. } => match self.bounds.get(&**tensor) {
                    Some(&b) => {
                        bound = bound.max(b);
                        rest.push(o);
                    }
                    None => return t,
                },
                _ => return t,
            }
        }
        let Some((s, v)) = seed else {
            return t;
        };
        let covered = if max { v <= -bound } else { v >= bound };
        if rest.is_empty() || !covered {
            return t;
        }
        let _ = s;
        let shown = if v == -(f32::MAX as f64) || v == f32::MAX as f64 {
            format!("{}FLT_MAX ({:e})", if v < 0.0 { "-" } else { "" }, v as f32)
        } else if v.abs() == f64::MAX {
            format!("{}DBL_MAX ({v:e})", if v < 0.0 { "-" } else { "" })
        } else {
            format!("{v:e}")
        };
        self.seeds.insert(shown, max);
        if max {
            terms.maxn(&rest)
        } else {
            terms.minn(&rest)
        }
    }

    /// Top-down: a first-index argmax/argmin chain becomes the spec library's form.
    fn argext_top(&mut self, terms: &mut Terms, t: TermId) -> TermId {
        // Both chains are selects.
        if !terms.has_ordered(t) {
            return t;
        }
        if let Some(&r) = self.arg_memo.get(&t) {
            return r;
        }
        let tree = argtree(terms, t, &mut self.tree_memo).and_then(|(row, max)| {
            let full = row.len() >= 2 && row.iter().enumerate().all(|(i, (p, _))| *p == i as i64);
            full.then(|| (row.into_iter().map(|(_, e)| e).collect::<Vec<_>>(), max))
        });
        let r = if let Some((row, max)) = argext(terms, t).or(tree) {
            terms.arg_extreme(&row, max)
        } else {
            let kids = terms.children(t);
            let new: Vec<TermId> = kids.iter().map(|&k| self.argext_top(terms, k)).collect();
            if new == kids {
                t
            } else {
                terms.with_children(t, &new)
            }
        };
        self.arg_memo.insert(t, r);
        r
    }
}

/// `select(x_k > max(x_0..x_{k-1}), k, T')` with `T'` the first-index argmax of
/// `x_0..x_{k-1}` (the constant 0 for `k = 1`): the first-index argmax of `x_0..x_k`,
/// which is what a running `(best, index)` pair updated under `v > best` leaves. Returns
/// the row and whether it is a max (`x_k < min(..)` gives argmin). `>=` (ties to the
/// last index) is not PyTorch's argmax and is left alone. The negated form unoptimised
/// code leaves, `select(x_k <= max(..), T', k)`, is the same over the reals (with ±inf,
/// a total order): `!(a <= b)` is `a > b`; `select(x_k < max(..), T', k)` keeps ties at
/// the last index and is left alone.
fn argext(terms: &Terms, t: TermId) -> Option<(Vec<TermId>, bool)> {
    let Node::Select(c, a, b) = terms.node(t) else {
        return None;
    };
    let Node::Cmp(op, l, r) = terms.node(*c) else {
        return None;
    };
    let (op, idx, rest) = match op {
        CmpOp::Le | CmpOp::Ge => (op.negated(), b, a),
        op => (*op, a, b),
    };
    let k = terms.as_const(*idx)?;
    if !k.is_integer() {
        return None;
    }
    let k = k.to_integer().to_i64()?;
    if k < 1 {
        return None;
    }
    // (the new element, the running extremum before it, max?)
    let candidates = match op {
        CmpOp::Gt => [(*l, *r, true), (*r, *l, false)],
        CmpOp::Lt => [(*l, *r, false), (*r, *l, true)],
        _ => return None,
    };
    for (new, before, max) in candidates {
        let ops: Vec<TermId> = match terms.node(before) {
            Node::Max(ops) if max => ops.to_vec(),
            Node::Min(ops) if !max => ops.to_vec(),
            _ => vec![before],
        };
        if ops.len() as i64 != k || ops.contains(&new) {
            continue;
        }
        let row = if k == 1 {
            let zero = terms
                .as_const(*rest)
                .is_some_and(|v| v.is_integer() && v.to_integer().to_i64() == Some(0));
            if !zero {
                continue;
            }
            vec![before]
        } else {
            match argext(terms, *rest) {
                Some((row, m)) if m == max => row,
                _ => continue,
            }
        };
        let mut a = row.clone();
        let mut b = ops;
        a.sort_unstable();
        b.sort_unstable();
        if a != b {
            continue;
        }
        let mut row = row;
        row.push(new);
        return Some((row, max));
    }
    None
}

/// A condition in the form comparisons take: `select(c, 1, 0)` is `c`, `select(c, 0, 1)`
/// is `!c`, `a == min(a, b)` is `a <= b` and `a == max(a, b)` is `a >= b` (the forms
/// PTX's predicate moves and if-conversion leave); otherwise `c` itself.
fn cond_form(terms: &mut Terms, c: TermId) -> TermId {
    match terms.node(c).clone() {
        Node::Select(p, a, b) if terms.is_boolean(p) => {
            match (terms.as_bool(a), terms.as_bool(b)) {
                (Some(true), Some(false)) => cond_form(terms, p),
                (Some(false), Some(true)) => {
                    let p = cond_form(terms, p);
                    terms.not(p)
                }
                _ => c,
            }
        }
        Node::Cmp(CmpOp::Eq, l, r) => {
            let ext = |t: TermId| match terms.node(t) {
                Node::Min(ops) => Some((true, ops.clone())),
                Node::Max(ops) => Some((false, ops.clone())),
                _ => None,
            };
            let (x, (is_min, ops)) = match (ext(l), ext(r)) {
                (_, Some(e)) => (l, e),
                (Some(e), None) => (r, e),
                (None, None) => return c,
            };
            if ops.len() != 2 || !ops.contains(&x) {
                return c;
            }
            let y = if ops[0] == x { ops[1] } else { ops[0] };
            terms.cmp(if is_min { CmpOp::Le } else { CmpOp::Ge }, x, y)
        }
        _ => c,
    }
}

/// `c` is `a > b`, or `a > b || <tie part>` with the tie part `a == b` or
/// `a == b && …`: `Some(true)` (a max pick), `Some(false)` for `<` (a min pick).
fn strict_with_ties(terms: &Terms, c: TermId, a: TermId, b: TermId) -> Option<bool> {
    let ops: Vec<TermId> = match terms.node(c) {
        Node::Or(ops) => ops.to_vec(),
        _ => vec![c],
    };
    // Exactly one strict comparison: `a > b || a < b` is `a != b`, neither max nor min.
    let stricts: Vec<bool> = ops
        .iter()
        .filter_map(|&o| match terms.node(o) {
            Node::Cmp(CmpOp::Gt, l, r) if (*l, *r) == (a, b) => Some(true),
            Node::Cmp(CmpOp::Lt, l, r) if (*l, *r) == (b, a) => Some(true),
            Node::Cmp(CmpOp::Lt, l, r) if (*l, *r) == (a, b) => Some(false),
            Node::Cmp(CmpOp::Gt, l, r) if (*l, *r) == (b, a) => Some(false),
            _ => None,
        })
        .collect();
    let [strict] = stricts[..] else {
        return None;
    };
    let is_tie = |o: TermId| match terms.node(o) {
        Node::Cmp(CmpOp::Eq, l, r) => (*l, *r) == (a, b) || (*l, *r) == (b, a),
        _ => false,
    };
    let tie_ok = ops.iter().all(|&o| match terms.node(o) {
        Node::Cmp(CmpOp::Gt | CmpOp::Lt, l, r) if (*l, *r) == (a, b) || (*l, *r) == (b, a) => true,
        Node::And(parts) => parts.iter().any(|&p| is_tie(p)),
        _ => is_tie(o),
    });
    tie_ok.then_some(strict)
}

/// A tree argmax as `tl.argmax` and shared-memory (value, index) trees combine pairs:
/// `i = select(va > vb || (va == vb && ia < ib), ia, ib)` (or the tie part folded where
/// `ia`, `ib` are constants). Returns the `(position, element)` row it is the
/// first-index argmax of (elements loaded as the infinity that never wins are left out:
/// masked lanes), and whether it is a max. Each combine is checked: the two sides'
/// rows are disjoint, their values are the extrema of their rows, and a tie goes to the
/// side with the lower first index.
fn argtree(terms: &Terms, t: TermId, memo: &mut TreeMemo) -> Option<(Vec<(i64, TermId)>, bool)> {
    if let Some(r) = memo.get(&t) {
        return r.clone();
    }
    let r = argtree_uncached(terms, t, memo);
    memo.insert(t, r.clone());
    r
}

/// Results of [`argtree`] per term: a tree's sides are shared, and an unrecognised tree
/// would otherwise be searched once per path to each node.
type TreeMemo = FxHashMap<TermId, Option<(Vec<(i64, TermId)>, bool)>>;

fn argtree_uncached(
    terms: &Terms,
    t: TermId,
    memo: &mut TreeMemo,
) -> Option<(Vec<(i64, TermId)>, bool)> {
    let Node::Select(c, ia, ib) = terms.node(t) else {
        return None;
    };
    let (ia, ib) = (*ia, *ib);
    let ops: Vec<TermId> = match terms.node(*c) {
        Node::Or(ops) => ops.to_vec(),
        _ => vec![*c],
    };
    // Each strict comparison, read both ways: `l > r` picks the true side as a max when
    // `l` is its value, as a min when `r` is (the sides' values decide which holds).
    let strict: Vec<(TermId, bool, TermId, TermId)> = ops
        .iter()
        .flat_map(|&o| match terms.node(o) {
            Node::Cmp(CmpOp::Gt, l, r) => vec![(o, true, *l, *r), (o, false, *r, *l)],
            Node::Cmp(CmpOp::Lt, l, r) => vec![(o, false, *l, *r), (o, true, *r, *l)],
            _ => Vec::new(),
        })
        .collect();
    for (o, max, va, vb) in strict {
        let is_tie = |x: TermId| match terms.node(x) {
            Node::Cmp(CmpOp::Eq, l, r) => (*l, *r) == (va, vb) || (*l, *r) == (vb, va),
            _ => false,
        };
        let index_lt = |x: TermId| match terms.node(x) {
            Node::Cmp(CmpOp::Lt, l, r) => (*l, *r) == (ia, ib),
            Node::Cmp(CmpOp::Gt, l, r) => (*l, *r) == (ib, ia),
            _ => false,
        };
        // How a tie is resolved: to a, to b, or to the lower first index.
        let mut tie = Tie::ToB;
        let mut ok = true;
        for &p in &ops {
            if p == o {
                continue;
            }
            match terms.node(p) {
                _ if is_tie(p) => tie = Tie::ToA,
                Node::And(parts) if parts.len() == 2 && parts.iter().any(|&q| is_tie(q)) => {
                    if parts.iter().any(|&q| index_lt(q)) {
                        tie = Tie::Lower;
                    } else {
                        ok = false;
                    }
                }
                _ => ok = false,
            }
        }
        if !ok {
            continue;
        }
        let (Some(a), Some(b)) = (
            side(terms, ia, va, max, memo),
            side(terms, ib, vb, max, memo),
        ) else {
            continue;
        };
        if a.iter().any(|(p, _)| b.iter().any(|(q, _)| p == q)) {
            continue;
        }
        let first = |r: &[(i64, TermId)]| r.iter().map(|(p, _)| *p).min();
        let tie_right = match tie {
            Tie::Lower => true,
            // A tie between non-empty sides must go to the lower first index.
            Tie::ToA => {
                a.is_empty() || b.is_empty() || a.iter().all(|(p, _)| b.iter().all(|(q, _)| p < q))
            }
            Tie::ToB => {
                a.is_empty() || b.is_empty() || b.iter().all(|(q, _)| a.iter().all(|(p, _)| q < p))
            }
        };
        if !tie_right || (first(&a).is_none() && first(&b).is_none()) {
            continue;
        }
        let mut row = a;
        row.extend(b);
        row.sort_unstable();
        return Some((row, max));
    }
    None
}

enum Tie {
    ToA,
    ToB,
    Lower,
}

/// One side of a combine: a constant index beside an input element (a leaf), beside
/// the infinity that never wins (a masked lane: no element), or a recognised subtree
/// whose value `v` is its row's extremum.
fn side(
    terms: &Terms,
    idx: TermId,
    v: TermId,
    max: bool,
    memo: &mut TreeMemo,
) -> Option<Vec<(i64, TermId)>> {
    if let Some(k) = terms.as_const(idx) {
        let k = k.is_integer().then(|| k.to_integer().to_i64())??;
        return match terms.node(v) {
            Node::Input { .. } => Some(vec![(k, v)]),
            Node::Inf { negative } if *negative == max => Some(Vec::new()),
            _ => None,
        };
    }
    let (row, m) = argtree(terms, idx, memo)?;
    if m != max {
        return None;
    }
    let mut elems: Vec<TermId> = row.iter().map(|(_, e)| *e).collect();
    let mut have: Vec<TermId> = match (terms.node(v), elems.len()) {
        (Node::Max(ops), _) if max => ops.to_vec(),
        (Node::Min(ops), _) if !max => ops.to_vec(),
        (_, 1) => vec![v],
        _ => return None,
    };
    elems.sort_unstable();
    have.sort_unstable();
    (elems == have).then_some(row)
}

/// Input values under which a finite seed of a running extremum shows: for every
/// `max(c, x_1, …)` with a finite constant `c` and input elements `x_i`, each `x_i` set
/// below `c` (above it for a min), so the kernel returns the seed where the op returns
/// the inputs' extremum. A refuter tries this point first: a seed like `-1e10` is wrong
/// only for inputs random points never reach.
pub fn seed_witness(terms: &Terms, roots: &[TermId]) -> BTreeMap<(String, Vec<i64>), f64> {
    let mut out = BTreeMap::new();
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack: Vec<TermId> = roots.to_vec();
    while let Some(t) = stack.pop() {
        if !seen.insert(t) {
            continue;
        }
        let (ops, max) = match terms.node(t) {
            Node::Max(ops) => (ops, true),
            Node::Min(ops) => (ops, false),
            _ => {
                stack.extend(terms.children(t));
                continue;
            }
        };
        let seed = ops.iter().find_map(|&o| terms.as_const(o)?.to_f64());
        let inputs: Vec<_> = ops
            .iter()
            .filter_map(|&o| match terms.node(o) {
                Node::Input { tensor, index } => Some((tensor.to_string(), index.to_vec())),
                _ => None,
            })
            .collect();
        match seed {
            Some(c) if c.is_finite() && inputs.len() + 1 == ops.len() => {
                let v = if max {
                    c - c.abs().max(1.0)
                } else {
                    c + c.abs().max(1.0)
                };
                for key in inputs {
                    out.entry(key).or_insert(v);
                }
            }
            _ => stack.extend(ops.iter().copied()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::Launch;

    fn inst() -> Instance {
        let l = Launch::parse(
            "grid = [1]\nsizes = { N = 3 }\n[args]\nx = { tensor = \"x\", shape = [\"N\"] }\ny = { tensor = \"y\", shape = [], role = \"out\" }\n",
            "test.launch.toml",
        )
        .unwrap();
        l.instantiate(&BTreeMap::new()).unwrap()
    }

    fn run(t: &mut Terms, e: TermId) -> (TermId, Vec<String>) {
        let mut outs = vec![Output {
            tensor: 1,
            name: "y".into(),
            shape: vec![],
            elems: vec![Some(e)],
            writers: vec![None],
        }];
        let a = normalise(t, &mut outs, &inst());
        (outs[0].elems[0].unwrap(), a)
    }

    #[test]
    fn selects_that_are_extrema_become_max_and_min() {
        let mut t = Terms::new();
        let (a, b) = (t.input("x", &[0]), t.input("x", &[1]));
        for (op, swap, want_max) in [
            (CmpOp::Gt, false, true),
            (CmpOp::Ge, false, true),
            (CmpOp::Gt, true, false),
            (CmpOp::Lt, false, false),
            (CmpOp::Le, true, true),
        ] {
            let c = t.cmp(op, a, b);
            let s = if swap {
                t.select(c, b, a)
            } else {
                t.select(c, a, b)
            };
            let want = if want_max { t.max(a, b) } else { t.min(a, b) };
            assert_eq!(run(&mut t, s).0, want, "{op:?} swap {swap}");
        }
        // a > b || a < b is a != b: select(a != b, a, b) is a, neither max nor min.
        let (gt, lt) = (t.cmp(CmpOp::Gt, a, b), t.cmp(CmpOp::Lt, a, b));
        let ne = t.or(gt, lt);
        let s = t.select(ne, a, b);
        assert_eq!(run(&mut t, s).0, s);
        // A tie part does not change the value.
        let eq = t.cmp(CmpOp::Eq, a, b);
        let ge = t.or(gt, eq);
        let s = t.select(ge, a, b);
        let m = t.max(a, b);
        assert_eq!(run(&mut t, s).0, m);
    }

    #[test]
    fn only_a_seed_beyond_every_finite_input_is_dropped_and_it_is_stated() {
        let mut t = Terms::new();
        let (a, b) = (t.input("x", &[0]), t.input("x", &[1]));
        let flt = t.float(-(f32::MAX as f64));
        let m = t.maxn(&[flt, a, b]);
        let (r, said) = run(&mut t, m);
        assert_eq!(r, t.max(a, b));
        assert!(said.len() == 1 && said[0].contains("-FLT_MAX"), "{said:?}");
        let big = t.float(-1e10);
        let m = t.maxn(&[big, a, b]);
        let (r, said) = run(&mut t, m);
        assert_eq!(r, m);
        assert!(said.is_empty());
        // Not over a computed operand (a * b may be below -FLT_MAX over the reals).
        let p = t.mul(a, b);
        let m = t.maxn(&[flt, p]);
        assert_eq!(run(&mut t, m).0, m);
    }

    #[test]
    fn a_running_argmax_pair_is_the_first_index_argmax_and_ties_to_the_last_are_not() {
        let mut t = Terms::new();
        let xs: Vec<TermId> = (0..3).map(|i| t.input("x", &[i])).collect();
        let build = |t: &mut Terms, op: CmpOp| {
            let mut best = xs[0];
            let mut idx = t.int(0);
            for (j, &x) in xs.iter().enumerate().skip(1) {
                let c = t.cmp(op, x, best);
                let k = t.int(j as i64);
                idx = t.select(c, k, idx);
                best = t.select(c, x, best);
            }
            idx
        };
        let first = build(&mut t, CmpOp::Gt);
        let want = t.arg_extreme(&xs, true);
        assert_eq!(run(&mut t, first).0, want);
        let last = build(&mut t, CmpOp::Ge);
        assert_ne!(run(&mut t, last).0, want);
        // The negated forms -G code leaves: `select(v <= best, idx, j)` is the first
        // index, `select(v < best, idx, j)` the last.
        let negated = |t: &mut Terms, op: CmpOp| {
            let mut best = xs[0];
            let mut idx = t.int(0);
            for (j, &x) in xs.iter().enumerate().skip(1) {
                let c = t.cmp(op, x, best);
                let k = t.int(j as i64);
                idx = t.select(c, idx, k);
                best = t.select(c, best, x);
            }
            idx
        };
        let first = negated(&mut t, CmpOp::Le);
        assert_eq!(run(&mut t, first).0, want);
        let last = negated(&mut t, CmpOp::Lt);
        assert_ne!(run(&mut t, last).0, want);
    }
}
