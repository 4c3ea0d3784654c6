//! A term of one store found in another: the same nodes, children translated first.
//!
//! Why: a bounded replay builds its terms in a fresh store, and many of them (a batch
//! element the launch's instance already had) are nodes another store already holds;
//! a verdict about those nodes there is a verdict about these.
//!
//! Invariant: [`Terms::translate`] gives `Some(u)` only when `u`'s node in `into` is the
//! term's node with each child replaced by its own translation, an operand list in the
//! order `into`'s constructors sort it (by id, an `Add`'s or `Mul`'s constant first):
//! by hash-consing, the very term, node for node. Nothing is created in `into`.

use super::node::Node;
use super::{TermId, Terms};
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::hash::BuildHasher;

impl Terms {
    /// The id in `into` of the term `id` of this store (see the module documentation),
    /// `None` when `into` lacks one of its nodes. `memo` holds the translations found
    /// so far (from this store into `into`): pairs sharing sub-terms walk them once.
    pub fn translate(
        &self,
        id: TermId,
        into: &Terms,
        memo: &mut FxHashMap<TermId, Option<TermId>>,
    ) -> Option<TermId> {
        if let Some(&u) = memo.get(&id) {
            return u;
        }
        // Every node below `id` not translated yet, in ascending id order: children
        // have smaller ids than their parents, so each comes after its children.
        let mut todo = vec![id];
        let mut below = Vec::new();
        let mut seen = rustc_hash::FxHashSet::default();
        seen.insert(id);
        while let Some(t) = todo.pop() {
            below.push(t);
            self.for_each_child(t, |c| {
                if !memo.contains_key(&c) && seen.insert(c) {
                    todo.push(c);
                }
            });
        }
        below.sort_unstable();
        for t in below {
            let u = self.translate_node(t, into, memo);
            memo.insert(t, u);
        }
        memo[&id]
    }

    /// `t`'s node in `into`, its children already in `memo`.
    fn translate_node(
        &self,
        t: TermId,
        into: &Terms,
        memo: &FxHashMap<TermId, Option<TermId>>,
    ) -> Option<TermId> {
        let one = |c: &TermId| memo.get(c).copied().flatten();
        let sorted = |ops: &[TermId], constant_first: bool| -> Option<Box<[TermId]>> {
            let mut out: Vec<TermId> = ops.iter().map(one).collect::<Option<_>>()?;
            let lead = usize::from(
                constant_first
                    && out
                        .first()
                        .is_some_and(|&c| matches!(into.node(c), Node::Const(_))),
            );
            out[lead..].sort_unstable();
            Some(out.into())
        };
        let node = match self.node(t) {
            n @ (Node::Input { .. }
            | Node::Param(_)
            | Node::Const(_)
            | Node::Inf { .. }
            | Node::NaN) => n.clone(),
            Node::Add(ops) => Node::Add(sorted(ops, true)?),
            Node::Mul(ops) => Node::Mul(sorted(ops, true)?),
            Node::Max(ops) => Node::Max(sorted(ops, false)?),
            Node::Min(ops) => Node::Min(sorted(ops, false)?),
            Node::MaxNum(ops) => Node::MaxNum(sorted(ops, false)?),
            Node::MinNum(ops) => Node::MinNum(sorted(ops, false)?),
            Node::And(ops) => Node::And(sorted(ops, false)?),
            Node::Or(ops) => Node::Or(sorted(ops, false)?),
            Node::Pow(a, k) => Node::Pow(one(a)?, *k),
            Node::Call(f, a) => Node::Call(*f, one(a)?),
            Node::Cmp(op, a, b) => Node::Cmp(*op, one(a)?, one(b)?),
            Node::Not(a) => Node::Not(one(a)?),
            Node::Select(c, a, b) => Node::Select(one(c)?, one(a)?, one(b)?),
            Node::Opaque(op, ops) => Node::Opaque(
                op.clone(),
                ops.iter().map(one).collect::<Option<Box<[TermId]>>>()?,
            ),
        };
        into.find(FxBuildHasher.hash_one(&node), &node)
    }

    /// Whether `other` declares the same integer inputs, with the same ranges and
    /// values: what the refuter's points read besides the terms themselves.
    pub fn same_declarations(&self, other: &Terms) -> bool {
        self.int_inputs == other.int_inputs && self.int_values == other.int_values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_term_is_found_in_a_store_that_built_it_in_another_order() {
        let mut a = Terms::new();
        let (x, y) = (a.input("x", &[0]), a.input("y", &[1]));
        let e = a.call(crate::term::Func::Exp, y);
        let two = a.int(2);
        let s = a.sum(&[x, e, two]);
        let mut b = Terms::new();
        // `b` makes the leaves in the other order, so its sum's operands sort otherwise.
        let (y2, x2) = (b.input("y", &[1]), b.input("x", &[0]));
        let e2 = b.call(crate::term::Func::Exp, y2);
        let two = b.int(2);
        let s2 = b.sum(&[x2, e2, two]);
        let mut memo = FxHashMap::default();
        assert_eq!(b.translate(s2, &a, &mut memo), Some(s));
        assert_eq!(b.translate(x2, &a, &mut memo), Some(x));
    }

    #[test]
    fn a_term_with_one_node_the_other_store_lacks_is_not_found() {
        let mut a = Terms::new();
        let x = a.input("x", &[0]);
        let _ = a.call(crate::term::Func::Exp, x);
        let mut b = Terms::new();
        let x2 = b.input("x", &[0]);
        // Same shape, another element: a different term.
        let e2 = b.call(crate::term::Func::Exp, x2);
        let x3 = b.input("x", &[1]);
        let e3 = b.call(crate::term::Func::Exp, x3);
        let mut memo = FxHashMap::default();
        assert!(b.translate(e2, &a, &mut memo).is_some());
        assert_eq!(b.translate(e3, &a, &mut memo), None);
        // A sum whose operands both exist in `a` but whose sum `a` never made.
        let s = b.add(e2, x2);
        assert_eq!(b.translate(s, &a, &mut memo), None);
    }
}
