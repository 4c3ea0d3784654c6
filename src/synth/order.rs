//! The order of a reduction's operands: by the input elements that tell them apart, so
//! that the elements of a row line up along the reduced axis.
//!
//! Invariant: the order is a function of the operand terms alone (never of the thread
//! count or of earlier calls); ties are broken by term id.

use super::{leaves, Synth};
use crate::term::{Node, TermId, Terms};
use rustc_hash::{FxHashMap, FxHashSet};

impl Synth<'_> {
    /// Operands sorted by the input elements not shared by all of them (then by id).
    pub(super) fn order_operands(&mut self, ops: &[TermId]) -> Vec<TermId> {
        let sets: Vec<leaves::Bits> = ops
            .iter()
            .map(|&o| self.leaf_sets.of(self.terms, o))
            .collect();
        let common = sets
            .iter()
            .skip(1)
            .fold(sets[0].to_vec(), |acc, s| leaves::intersect(&acc, s));
        let own: Vec<Vec<u64>> = sets.iter().map(|l| leaves::minus(l, &common)).collect();
        let least: Vec<Option<TermId>> = own
            .iter()
            .map(|l| self.leaf_sets.least(self.terms, l))
            .collect();
        let element = |t: TermId| leaves::input_element(self.terms, t);
        // Keys compare as sorted lists: where their first (least) elements all differ,
        // those alone order them, without sorting a running max's thousands of leaves.
        let mut by_least: Vec<(Option<(&str, &[i64])>, TermId)> = least
            .iter()
            .zip(ops)
            .map(|(l, &o)| (l.and_then(element), o))
            .collect();
        by_least.sort();
        if by_least.windows(2).all(|w| w[0].0 != w[1].0) {
            return by_least.into_iter().map(|(_, o)| o).collect();
        }
        let mut keyed: Vec<(Vec<(&str, &[i64])>, TermId)> = own
            .iter()
            .zip(ops)
            .map(|(l, &o)| {
                let mut key: Vec<(&str, &[i64])> = self
                    .leaf_sets
                    .terms_of(l)
                    .into_iter()
                    .filter_map(element)
                    .collect();
                key.sort();
                (key, o)
            })
            .collect();
        keyed.sort();
        let distinct = keyed.windows(2).all(|w| w[0].0 != w[1].0);
        let order: Vec<TermId> = keyed.into_iter().map(|(_, o)| o).collect();
        if !distinct {
            // Every operand reads every input element (`exp(x_j - max(x))`): the input
            // elements read outside the sub-terms common to all operands tell them apart.
            if let Some(order) = self.order_by_own_leaves(ops) {
                return order;
            }
        }
        order
    }

    /// Operands sorted by the input elements they read outside the compound sub-terms
    /// common to all of them; `None` where those do not tell them apart.
    ///
    /// First stopping at every common sub-term (`exp(x_j - max(x))` reads `x_j` outside
    /// the shared max); then, where that leaves nothing apart, only at common sub-terms
    /// that read every input element the operands read: in `exp(q_i·k_j - max_j(q_i·k_j))`
    /// the products `q_i·k_j` are common too (the max reads them all) but tell `j` apart.
    pub(super) fn order_by_own_leaves(&mut self, ops: &[TermId]) -> Option<Vec<TermId>> {
        let dag = Below::new(self.terms, ops);
        let common = dag.common();
        if let Some(order) = self.order_by_leaves_outside(&dag, ops, &common, false) {
            return Some(order);
        }
        let mut union: Vec<u64> = Vec::new();
        for &o in ops {
            union = leaves::union(&union, &self.leaf_sets.of(self.terms, o));
        }
        let covering: Vec<TermId> = common
            .into_iter()
            .filter(|&t| {
                let bits = self.leaf_sets.of(self.terms, t);
                leaves::minus(&union, &bits).iter().all(|&w| w == 0)
            })
            .collect();
        self.order_by_leaves_outside(&dag, ops, &covering, true)
    }

    /// Operands sorted by the input elements they read outside the sub-terms `stop`
    /// (with `less_shared`, less those every operand reads that way); `None` where
    /// those tie.
    fn order_by_leaves_outside(
        &mut self,
        dag: &Below,
        ops: &[TermId],
        stop: &[TermId],
        less_shared: bool,
    ) -> Option<Vec<TermId>> {
        // An input element counts wherever the walk meets it, and the walk ends at any
        // other leaf anyway: only compound stops stop.
        let stop_set: rustc_hash::FxHashSet<TermId> = stop
            .iter()
            .copied()
            .filter(|&t| !leaves::is_leaf(self.terms, t))
            .collect();
        // Below a term that reaches no stop, the walk would read every input element,
        // which its leaf set already holds.
        let reaches = dag.reaching(self.terms, &stop_set);
        let mut owns: Vec<Vec<u64>> = Vec::with_capacity(ops.len());
        for &o in ops {
            let mut own: Vec<u64> = Vec::new();
            let mut seen = rustc_hash::FxHashSet::default();
            let mut stack = vec![o];
            while let Some(t) = stack.pop() {
                if !seen.insert(t) {
                    continue;
                }
                match self.terms.node(t) {
                    Node::Input { .. } => {
                        leaves::or_into(&mut own, &self.leaf_sets.of(self.terms, t));
                    }
                    _ if t != o && stop_set.contains(&t) => {}
                    _ if !reaches.contains(&t) => {
                        leaves::or_into(&mut own, &self.leaf_sets.of(self.terms, t));
                    }
                    _ => self.terms.for_each_child(t, |c| stack.push(c)),
                }
            }
            owns.push(own);
        }
        let shared: Vec<u64> = if less_shared {
            owns.iter()
                .skip(1)
                .fold(owns[0].clone(), |acc, s| leaves::intersect(&acc, s))
        } else {
            Vec::new()
        };
        let element = |t: TermId| leaves::input_element(self.terms, t);
        let mut keyed: Vec<(Vec<(&str, &[i64])>, TermId)> = owns
            .iter()
            .zip(ops)
            .map(|(own, &o)| {
                let mut key: Vec<(&str, &[i64])> = self
                    .leaf_sets
                    .terms_of(&leaves::minus(own, &shared))
                    .into_iter()
                    .filter_map(element)
                    .collect();
                key.sort();
                (key, o)
            })
            .collect();
        keyed.sort();
        keyed
            .windows(2)
            .all(|w| w[0].0 != w[1].0)
            .then(|| keyed.into_iter().map(|(_, o)| o).collect())
    }
}

/// The sub-terms below some operands, children first, each with the set of operands
/// it is below (bit `j`: `ops[j]`). Linear in the size of that sub-DAG: a row's
/// operands share most of it (the row's max), and a set over every term of the store
/// per term would be quadratic.
struct Below {
    /// Children before parents.
    post: Vec<TermId>,
    /// `words` words per term, in `post` order.
    owners: Vec<u64>,
    words: usize,
    n: usize,
}

impl Below {
    fn new(terms: &Terms, ops: &[TermId]) -> Below {
        let mut post = Vec::new();
        let mut position: FxHashMap<TermId, usize> = FxHashMap::default();
        let mut stack: Vec<(TermId, bool)> = ops.iter().rev().map(|&o| (o, false)).collect();
        while let Some((t, expanded)) = stack.pop() {
            if position.contains_key(&t) {
                continue;
            }
            if expanded {
                position.insert(t, post.len());
                post.push(t);
                continue;
            }
            stack.push((t, true));
            terms.for_each_child(t, |c| {
                if !position.contains_key(&c) {
                    stack.push((c, false));
                }
            });
        }
        let n = ops.len();
        let words = n.div_ceil(64);
        let mut owners = vec![0u64; post.len() * words];
        for (j, o) in ops.iter().enumerate() {
            owners[position[o] * words + j / 64] |= 1 << (j % 64);
        }
        // Parents first: a term's set is final before it is passed to its children.
        for i in (0..post.len()).rev() {
            let mine: Vec<u64> = owners[i * words..(i + 1) * words].to_vec();
            terms.for_each_child(post[i], |c| {
                let ci = position[&c];
                for (w, x) in owners[ci * words..(ci + 1) * words].iter_mut().zip(&mine) {
                    *w |= x;
                }
            });
        }
        Below {
            post,
            owners,
            words,
            n,
        }
    }

    /// The sub-terms below every operand.
    fn common(&self) -> Vec<TermId> {
        let full = |w: usize| match (w + 1) * 64 <= self.n {
            true => u64::MAX,
            false => (1u64 << (self.n - w * 64)) - 1,
        };
        (0..self.post.len())
            .filter(|&i| (0..self.words).all(|w| self.owners[i * self.words + w] == full(w)))
            .map(|i| self.post[i])
            .collect()
    }

    /// The sub-terms that are in `stops` or have one below them.
    fn reaching(&self, terms: &Terms, stops: &FxHashSet<TermId>) -> FxHashSet<TermId> {
        let mut out = FxHashSet::default();
        for &t in &self.post {
            let mut hit = stops.contains(&t);
            terms.for_each_child(t, |c| hit |= out.contains(&c));
            if hit {
                out.insert(t);
            }
        }
        out
    }
}
