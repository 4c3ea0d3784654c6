//! The input elements below each term, as bit sets memoised per term.
//!
//! Ordering the operands of a reduction compares the input elements each operand reads;
//! the operands of big kernels (flash attention's rescaled sums) share large sub-terms
//! (a row's running max), so one walk per operand re-reads them every time. Here each
//! term's set is the union of its children's, computed once: a bit per distinct input
//! element met so far, in a dense numbering of this cache's own.

use crate::term::{Node, TermId, Terms};
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// A set of input elements: bit `i` is the `i`-th element numbered by [`LeafSets`].
pub(super) type Bits = Rc<[u64]>;

#[derive(Default)]
pub(super) struct LeafSets {
    /// Dense number → the input element's term.
    leaves: Vec<TermId>,
    index: FxHashMap<TermId, usize>,
    sets: FxHashMap<TermId, Bits>,
    /// Per numbered element, its rank in (tensor, index) order ([`LeafSets::least`]);
    /// ranked again when elements were numbered since.
    ranks: Vec<u32>,
}

impl LeafSets {
    /// The input elements below `t` (iterative, children first: terms can be deep).
    pub(super) fn of(&mut self, terms: &Terms, t: TermId) -> Bits {
        if let Some(b) = self.sets.get(&t) {
            return b.clone();
        }
        let mut stack = vec![(t, false)];
        while let Some((u, expanded)) = stack.pop() {
            if self.sets.contains_key(&u) {
                continue;
            }
            if let Node::Input { .. } = terms.node(u) {
                let i = *self.index.entry(u).or_insert_with(|| {
                    self.leaves.push(u);
                    self.leaves.len() - 1
                });
                let mut bits = vec![0u64; i / 64 + 1];
                bits[i / 64] |= 1 << (i % 64);
                self.sets.insert(u, bits.into());
                continue;
            }
            if !expanded {
                stack.push((u, true));
                terms.for_each_child(u, |c| stack.push((c, false)));
                continue;
            }
            let mut bits: Vec<u64> = Vec::new();
            terms.for_each_child(u, |c| {
                let cb = &self.sets[&c];
                if cb.len() > bits.len() {
                    bits.resize(cb.len(), 0);
                }
                for (w, x) in bits.iter_mut().zip(cb.iter()) {
                    *w |= x;
                }
            });
            self.sets.insert(u, bits.into());
        }
        self.sets[&t].clone()
    }

    /// The terms of the input elements in `bits`.
    pub(super) fn terms_of(&self, bits: &[u64]) -> Vec<TermId> {
        members(&self.leaves, bits)
    }

    /// The least input element in `bits` by (tensor, index): the minimum of
    /// `terms_of(bits)` mapped by [`input_element`], without collecting them (a
    /// product's factor can read hundreds of elements, and ordering the factors of
    /// every element of a long list asks this of each).
    pub(super) fn least(&mut self, terms: &Terms, bits: &[u64]) -> Option<TermId> {
        if self.ranks.len() != self.leaves.len() {
            let mut order: Vec<usize> = (0..self.leaves.len()).collect();
            order.sort_by_key(|&i| input_element(terms, self.leaves[i]));
            self.ranks = vec![0; order.len()];
            for (rank, i) in order.into_iter().enumerate() {
                self.ranks[i] = rank as u32;
            }
        }
        let mut best: Option<usize> = None;
        for (w, &word) in bits.iter().enumerate() {
            let mut rest = word;
            while rest != 0 {
                let i = w * 64 + rest.trailing_zeros() as usize;
                if best.is_none_or(|b| self.ranks[i] < self.ranks[b]) {
                    best = Some(i);
                }
                rest &= rest - 1;
            }
        }
        best.map(|i| self.leaves[i])
    }
}

/// The terms numbered by the bits set in `bits` (`numbered[i]` is bit `i`'s term).
fn members(numbered: &[TermId], bits: &[u64]) -> Vec<TermId> {
    let mut out = Vec::new();
    for (w, &word) in bits.iter().enumerate() {
        let mut rest = word;
        while rest != 0 {
            let b = rest.trailing_zeros() as usize;
            out.push(numbered[w * 64 + b]);
            rest &= rest - 1;
        }
    }
    out
}

/// Whether `t` has no children (an input element, a param, a constant).
pub(super) fn is_leaf(terms: &Terms, t: TermId) -> bool {
    matches!(
        terms.node(t),
        Node::Input { .. } | Node::Param(_) | Node::Const(_) | Node::Inf { .. } | Node::NaN
    )
}

/// `t` as (tensor, index) where it is an input element.
pub(super) fn input_element(terms: &Terms, t: TermId) -> Option<(&str, &[i64])> {
    match terms.node(t) {
        Node::Input { tensor, index } => Some((&**tensor, &**index)),
        _ => None,
    }
}

/// `a ← a ∨ b`.
pub(super) fn or_into(a: &mut Vec<u64>, b: &[u64]) {
    if b.len() > a.len() {
        a.resize(b.len(), 0);
    }
    for (w, x) in a.iter_mut().zip(b) {
        *w |= x;
    }
}

/// `a ∧ b`.
pub(super) fn intersect(a: &[u64], b: &[u64]) -> Vec<u64> {
    a.iter().zip(b).map(|(x, y)| x & y).collect()
}

/// `a ∨ b`.
pub(super) fn union(a: &[u64], b: &[u64]) -> Vec<u64> {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut out = long.to_vec();
    for (w, x) in out.iter_mut().zip(short) {
        *w |= x;
    }
    out
}

/// `a ∖ b`.
pub(super) fn minus(a: &[u64], b: &[u64]) -> Vec<u64> {
    a.iter()
        .enumerate()
        .map(|(i, x)| x & !b.get(i).copied().unwrap_or(0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_are_the_input_elements_below() {
        let mut terms = Terms::new();
        let x0 = terms.input("x", &[0]);
        let x1 = terms.input("x", &[1]);
        let y0 = terms.input("y", &[0]);
        let a = terms.sum(&[x0, x1]);
        let b = terms.product(&[a, y0]);
        let e = terms.call(crate::term::Func::Exp, x1);
        let mut sets = LeafSets::default();
        let of = |sets: &mut LeafSets, t| {
            let bits = sets.of(&terms, t);
            let mut v = sets.terms_of(&bits);
            v.sort();
            v
        };
        let mut want = vec![x0, x1, y0];
        want.sort();
        assert_eq!(of(&mut sets, b), want);
        assert_eq!(of(&mut sets, e), vec![x1]);
        let (bb, be) = (sets.of(&terms, b), sets.of(&terms, e));
        let common = sets.terms_of(&intersect(&bb, &be));
        assert_eq!(common, vec![x1]);
        let mut own = sets.terms_of(&minus(&bb, &be));
        own.sort();
        let mut want = vec![x0, y0];
        want.sort();
        assert_eq!(own, want);
        let mut all = sets.terms_of(&union(&be, &bb));
        all.sort();
        let mut want = vec![x0, x1, y0];
        want.sort();
        assert_eq!(all, want);
    }

    /// Numbered out of (tensor, index) order (`y` and `x[2]` first), the least element
    /// is still the least by (tensor, index), and ranking again after more elements are
    /// numbered keeps it so.
    #[test]
    fn least_is_by_tensor_then_index_not_by_numbering() {
        let mut terms = Terms::new();
        let y0 = terms.input("y", &[0]);
        let x2 = terms.input("x", &[2]);
        let x10 = terms.input("x", &[10]);
        let first = terms.sum(&[y0, x2, x10]);
        let mut sets = LeafSets::default();
        let bits = sets.of(&terms, first);
        assert_eq!(sets.least(&terms, &bits), Some(x2));
        let without_x2 = minus(&bits, &sets.of(&terms, x2));
        assert_eq!(sets.least(&terms, &without_x2), Some(x10));
        let x1 = terms.input("x", &[1]);
        let later = terms.sum(&[y0, x1]);
        let bits = sets.of(&terms, later);
        assert_eq!(sets.least(&terms, &bits), Some(x1));
        let just_y0 = sets.of(&terms, y0);
        assert_eq!(sets.least(&terms, &just_y0), Some(y0));
        assert_eq!(sets.least(&terms, &[0]), None);
    }
}
