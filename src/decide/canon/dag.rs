//! The reachable sub-DAG of the terms a conversion reads ([`Dag`], children first), the
//! nodes already converted ([`Reached`]), and whether two groups of roots share most
//! of their sub-terms.
//!
//! Invariant: a `Dag`'s nodes are in ascending id order, children before parents.

use crate::term::{Node, TermId, Terms};
use rustc_hash::{FxHashMap, FxHashSet};

/// Reachable sub-DAG of a pair of terms, in ascending id order (children first).
pub(crate) struct Dag {
    pub nodes: Vec<TermId>,
    pub has_inf_nan: bool,
}

impl Dag {
    pub fn new(terms: &Terms, roots: &[TermId]) -> Dag {
        let mut seen = FxHashSet::default();
        let mut stack: Vec<TermId> = roots.to_vec();
        let mut nodes = Vec::new();
        let mut has_inf_nan = false;
        while let Some(t) = stack.pop() {
            if !seen.insert(t) {
                continue;
            }
            nodes.push(t);
            if matches!(terms.node(t), Node::Inf { .. } | Node::NaN) {
                has_inf_nan = true;
            }
            terms.for_each_child(t, |c| stack.push(c));
        }
        nodes.sort_unstable();
        Dag { nodes, has_inf_nan }
    }
}

/// Reachability facts kept across the roots of one chunk (see [`Dag::new_since`]):
/// for every node met so far, which of [`Reached::INF_NAN`] and [`Reached::OPAQUE`]
/// are reachable from it.
#[derive(Default)]
pub(crate) struct Reached {
    flags: FxHashMap<TermId, u8>,
}

impl Reached {
    /// An infinity or a NaN.
    pub const INF_NAN: u8 = 1;
    /// Bit-level code (`Node::Opaque`).
    pub const OPAQUE: u8 = 2;

    /// The flags reachable from `t`, a node met by an earlier [`Dag::new_since`].
    pub fn flags(&self, t: TermId) -> u8 {
        self.flags[&t]
    }
}

impl Dag {
    /// The nodes reachable from `root` that no earlier root of `reached` reached, in
    /// ascending id order, and whether an infinity or NaN is reachable from `root`
    /// (from it or from a node met earlier). Each node's children are walked once per
    /// `Reached`, so a row's shared sub-terms (a running max with one operand per
    /// element) cost once per chunk, not once per root.
    pub fn new_since(terms: &Terms, root: TermId, reached: &mut Reached) -> Dag {
        let mut nodes = Vec::new();
        // (node, children pushed)
        let mut stack: Vec<(TermId, bool)> = vec![(root, false)];
        while let Some((t, expanded)) = stack.pop() {
            if reached.flags.contains_key(&t) {
                continue;
            }
            if expanded {
                let mut f = match terms.node(t) {
                    Node::Inf { .. } | Node::NaN => Reached::INF_NAN,
                    Node::Opaque(..) => Reached::OPAQUE,
                    _ => 0,
                };
                terms.for_each_child(t, |c| f |= reached.flags[&c]);
                reached.flags.insert(t, f);
                nodes.push(t);
                continue;
            }
            stack.push((t, true));
            terms.for_each_child(t, |c| {
                if !reached.flags.contains_key(&c) {
                    stack.push((c, false));
                }
            });
        }
        nodes.sort_unstable();
        nodes.dedup();
        let has_inf_nan = reached.flags[&root] & Reached::INF_NAN != 0;
        Dag { nodes, has_inf_nan }
    }
}

/// Whether the first two groups of `roots` share most of their sub-terms (at least
/// half of the smaller reachable DAG): the elements of a row whose sum or max every
/// element reads. Callers that convert in chunks use larger chunks then, so a shared
/// sub-term is converted a bounded number of times; a function of the terms alone.
pub(crate) fn neighbours_share(terms: &Terms, first: &[TermId], second: &[TermId]) -> bool {
    let a = Dag::new(terms, first);
    let b = Dag::new(terms, second);
    let common = a
        .nodes
        .iter()
        .filter(|t| b.nodes.binary_search(t).is_ok())
        .count();
    let smaller = a.nodes.len().min(b.nodes.len());
    smaller >= 64 && 2 * common >= smaller
}
