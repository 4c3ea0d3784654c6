//! Gathers: a value read at an index that depends on integer input data (`x[row,
//! label[row]]`, an embedding row, `torch.gather`).
//!
//! Invariant: a gather is an ordinary term, a balanced tree of `select(i < v, ·, ·)`
//! over the *declared* values of the index element `i` (the launch's `values`, or a
//! small dtype's whole range), one leaf per value: exact wherever `i` takes a declared
//! value, which is every input the proof speaks of (the refuter, witnesses and the
//! cross-check pick only declared values, [`Terms::fit_input_value`]). Kernel and spec
//! build it with this one function over the same declared values, so where they read
//! the same cells the trees are the same term, and `decide` case-splits over it in
//! `log2(values)` depth. A value for which a side has no cell (a path that rules the
//! value out, a spec's ignored class) gets the constant `0`, the same on both sides;
//! such a leaf is only reachable at inputs where that side's result is discarded (the
//! caller's obligation: the executors check the path, the spec selects it away).

use super::node::{CmpOp, Node, TermId};
use super::store::Terms;
use std::sync::Arc;

/// Most index combinations one gather splits over.
pub const MAX_GATHER_CASES: usize = 1 << 16;

/// Most values of a dtype's whole range split over where the launch declares none
/// (`bool`, `int8`, `uint8`).
pub const MAX_UNDECLARED_RANGE: i128 = 256;

impl Terms {
    /// Declare that the elements of integer input `tensor` take only `values` (sorted or
    /// not); the range becomes their hull.
    pub fn declare_int_values(&mut self, tensor: &str, values: &[i64]) {
        let mut v = values.to_vec();
        v.sort_unstable();
        v.dedup();
        if let (Some(&lo), Some(&hi)) = (v.first(), v.last()) {
            self.int_inputs
                .insert(tensor.into(), (lo as i128, hi as i128));
            self.int_values.insert(tensor.into(), v.into());
        }
    }

    /// The values an element of integer input `tensor` takes: the declared ones, else
    /// the dtype's whole range when it is small; `None` for reals and wide ranges.
    pub fn int_values(&self, tensor: &str) -> Option<Arc<[i64]>> {
        if let Some(v) = self.int_values.get(tensor) {
            return Some(v.clone());
        }
        let (lo, hi) = self.int_input(tensor)?;
        (hi - lo < MAX_UNDECLARED_RANGE).then(|| (lo as i64..=hi as i64).collect())
    }

    /// The integer input elements integer term `t` reads, in id order, with their
    /// values; an error naming what `t` reads otherwise (a real, an opaque node, an
    /// integer tensor without declared values).
    pub fn index_leaves(&self, t: TermId) -> Result<Vec<(TermId, Arc<[i64]>)>, String> {
        let mut leaves = Vec::new();
        let mut todo = vec![t];
        let mut seen = rustc_hash::FxHashSet::default();
        while let Some(x) = todo.pop() {
            if !seen.insert(x) {
                continue;
            }
            match self.node(x) {
                Node::Input { tensor, .. } => match self.int_values(tensor) {
                    Some(v) => leaves.push((x, v)),
                    None if self.int_input(tensor).is_some() => {
                        return Err(format!(
                            "`{tensor}` is an integer tensor whose launch declares no `values` \
                             (e.g. `values = \"0..N\"`), so the index has too many values to split over"
                        ))
                    }
                    None => {
                        return Err(format!(
                            "the index reads `{}`, a real, not an integer tensor",
                            self.display(x)
                        ))
                    }
                },
                Node::Const(_) => {}
                Node::Add(_)
                | Node::Mul(_)
                | Node::Max(_)
                | Node::Min(_)
                | Node::MaxNum(_)
                | Node::MinNum(_)
                | Node::Select(..)
                | Node::Cmp(..)
                | Node::Not(_)
                | Node::And(_)
                | Node::Or(_) => self.for_each_child(x, |c| todo.push(c)),
                _ => {
                    if let Some(name) = self.undeclared_int_input(x) {
                        return Err(format!(
                            "`{name}` is an integer tensor whose launch declares no `values` \
                             (e.g. `values = \"0..N\"`), so the index `{}` has too many values \
                             to split over (and is not exact arithmetic on them)",
                            self.display(t)
                        ));
                    }
                    return Err(format!(
                        "the index `{}` is not integer arithmetic on integer input tensors",
                        self.display(t)
                    ));
                }
            }
        }
        leaves.sort_by_key(|l| l.0);
        let cases = leaves
            .iter()
            .try_fold(1usize, |n, (_, v)| n.checked_mul(v.len()));
        match cases {
            Some(n) if n <= MAX_GATHER_CASES => Ok(leaves),
            _ => Err(format!(
                "the index reads {} integer elements whose declared values make more than \
                 {MAX_GATHER_CASES} cases",
                leaves.len()
            )),
        }
    }

    /// An integer input tensor under `t` whose values are not declared (and whose dtype
    /// range is too wide to split over).
    fn undeclared_int_input(&self, t: TermId) -> Option<String> {
        let mut todo = vec![t];
        let mut seen = rustc_hash::FxHashSet::default();
        while let Some(x) = todo.pop() {
            if !seen.insert(x) {
                continue;
            }
            match self.node(x) {
                Node::Input { tensor, .. }
                    if self.int_input(tensor).is_some() && self.int_values(tensor).is_none() =>
                {
                    return Some(tensor.to_string())
                }
                _ => self.for_each_child(x, |c| todo.push(c)),
            }
        }
        None
    }

    /// `t` with each of `leaves` replaced by the matching integer of `values`.
    pub fn fix_leaves(&mut self, t: TermId, leaves: &[TermId], values: &[i64]) -> TermId {
        let map = leaves
            .iter()
            .zip(values)
            .map(|(&l, &v)| (l, self.int(v)))
            .collect();
        self.substitute(t, &map)
    }

    /// Every combination of the leaves' values, in the order [`Terms::gather`] asks for
    /// cells.
    pub fn index_cases(leaves: &[(TermId, Arc<[i64]>)]) -> Vec<Vec<i64>> {
        let mut out = vec![Vec::new()];
        for (_, vals) in leaves {
            out = out
                .into_iter()
                .flat_map(|p| {
                    vals.iter().map(move |&v| {
                        let mut q = p.clone();
                        q.push(v);
                        q
                    })
                })
                .collect();
        }
        out
    }

    /// The gather tree over `leaves` (from [`Terms::index_leaves`]): `cells[k]` is the
    /// value at the `k`-th combination of [`Terms::index_cases`], `None` where the
    /// caller has no cell (the leaf is then `0`).
    pub fn gather(&mut self, leaves: &[(TermId, Arc<[i64]>)], cells: &[Option<TermId>]) -> TermId {
        let mut next = 0usize;
        self.gather_level(leaves, cells, &mut next)
    }

    fn gather_level(
        &mut self,
        leaves: &[(TermId, Arc<[i64]>)],
        cells: &[Option<TermId>],
        next: &mut usize,
    ) -> TermId {
        let Some(((leaf, vals), rest)) = leaves.split_first() else {
            let c = cells.get(*next).copied().flatten();
            *next += 1;
            return c.unwrap_or_else(|| self.zero());
        };
        let subs: Vec<TermId> = (0..vals.len())
            .map(|_| self.gather_level(rest, cells, next))
            .collect();
        self.split(*leaf, vals, &subs)
    }

    /// `select(i < v_mid, low half, high half)`, recursively: the branch for value
    /// `vals[k]` is `subs[k]`.
    fn split(&mut self, leaf: TermId, vals: &[i64], subs: &[TermId]) -> TermId {
        if subs.len() == 1 {
            return subs[0];
        }
        let mid = subs.len() / 2;
        let lo = self.split(leaf, &vals[..mid], &subs[..mid]);
        let hi = self.split(leaf, &vals[mid..], &subs[mid..]);
        if lo == hi {
            return lo;
        }
        let v = self.int(vals[mid]);
        let c = self.cmp(CmpOp::Lt, leaf, v);
        self.select(c, lo, hi)
    }
}
