//! Pairs equal up to a renaming of input elements. The elements of one output are
//! usually one computation over shifted inputs: `o[i,j]`'s pair of terms is `o[0,0]`'s
//! with `q[0,·]` read as `q[i,·]` and `v[·,0]` as `v[·,j]`. Whether two terms are equal
//! as functions of their inputs does not change under a one-to-one renaming of the
//! inputs, so the prover need only run on one pair of each class ([`classes`]).
//!
//! Invariant: two pairs share a class only when their DAGs are the same graph, node
//! for node, with every leaf that is not an input element (a constant, a parameter,
//! an infinity) the same term, and input elements renamed one-to-one within each
//! tensor (a tensor's declared integer range goes with its name). The classes depend
//! on the pairs alone; the work is bounded by a node count, never by a clock.

use crate::term::{Node, TermId, Terms};
use rustc_hash::FxHashMap;

/// Most nodes one pair's shape may have; a larger pair is a class of its own.
const MAX_PAIR_NODES: usize = 20_000;
/// Most nodes walked over all pairs; pairs past it are classes of their own (a long
/// row's elements each reach the whole row, so the walks would be quadratic).
const MAX_TOTAL_NODES: usize = 2_000_000;

/// For each pair, the index of the first pair of its class (itself when it is first).
pub(super) fn classes(terms: &Terms, pairs: &[(TermId, TermId)]) -> Vec<usize> {
    let (mut number, base) = SCRATCH.with(|s| s.take().claim(terms.len(), pairs.len()));
    let mut first: FxHashMap<Vec<u64>, usize> = FxHashMap::default();
    let mut walk = Walk {
        number: &mut number,
        names: FxHashMap::default(),
        by_address: FxHashMap::default(),
        budget: MAX_TOTAL_NODES,
        stack: Vec::new(),
    };
    // One buffer for every pair's shape, copied only for the first pair of a class: a
    // row's shape is thousands of tokens, regrown per pair when each had its own.
    let mut shape = Vec::new();
    let class = pairs
        .iter()
        .enumerate()
        .map(|(i, &(a, b))| {
            // Pair i numbers with stamp base + i + 1, which no earlier call used.
            if !walk.shape(terms, a, b, base + i as u32 + 1, &mut shape) {
                return i;
            }
            match first.get(shape.as_slice()) {
                Some(&f) => f,
                None => {
                    first.insert(shape.clone(), i);
                    i
                }
            }
        })
        .collect();
    let next = base + pairs.len() as u32;
    SCRATCH.with(|s| s.set(Scratch { number, next }));
    class
}

/// The per-term numbers of this thread's calls of [`classes`], kept between calls: a
/// fresh table of every term per call (most terms never walked) cost more than the
/// walks themselves once the store holds millions of terms. Each call numbers with
/// stamps above every earlier call's, so an entry left by one never reads as numbered.
#[derive(Default)]
struct Scratch {
    number: Vec<(u32, u32)>,
    /// The highest stamp used so far (0: never numbered).
    next: u32,
}

impl Scratch {
    /// The table, covering `len` terms, and the stamp base for `pairs` pairs.
    fn claim(mut self, len: usize, pairs: usize) -> (Vec<(u32, u32)>, u32) {
        if u32::try_from(pairs).map_or(true, |p| self.next.checked_add(p).is_none()) {
            self.number.iter_mut().for_each(|e| *e = (0, 0));
            self.next = 0;
        }
        if self.number.len() < len {
            self.number.resize(len, (0, 0));
        }
        (self.number, self.next)
    }
}

thread_local! {
    static SCRATCH: std::cell::Cell<Scratch> = std::cell::Cell::new(Scratch::default());
}

/// What one call of [`classes`] keeps across pairs.
struct Walk<'s> {
    /// Per term: the stamp of the pair that numbered it, and its number there.
    number: &'s mut Vec<(u32, u32)>,
    /// Tensor names and opaque opcodes, as small numbers.
    names: FxHashMap<std::sync::Arc<str>, u64>,
    /// The number of each name by its allocation's address (the store holds every name
    /// for the whole call, so an address stands for one name): most names are met
    /// thousands of times, and hashing the text each time cost more than the walk.
    by_address: FxHashMap<usize, u64>,
    budget: usize,
    /// The walk's stack, kept between pairs.
    stack: Vec<(TermId, bool)>,
}

impl Walk<'_> {
    /// A pair's DAG as tokens: nodes numbered in the order a depth-first walk from `a`,
    /// then `b`, first finishes them, each node's operator and its children by number,
    /// input elements by the order in which the walk first meets them, and every other
    /// leaf by its id (the same constant is the same id), written into `tokens`.
    /// `false` past the bounds.
    fn shape(
        &mut self,
        terms: &Terms,
        a: TermId,
        b: TermId,
        stamp: u32,
        tokens: &mut Vec<u64>,
    ) -> bool {
        tokens.clear();
        let mut stack = std::mem::take(&mut self.stack);
        let (mut nodes, mut inputs) = (0u32, 0u64);
        for root in [a, b] {
            stack.clear();
            stack.push((root, false));
            while let Some((t, expanded)) = stack.pop() {
                if self.number[t.0 as usize].0 == stamp {
                    continue;
                }
                if !expanded {
                    stack.push((t, true));
                    terms.for_each_child(t, |c| {
                        if self.number[c.0 as usize].0 != stamp {
                            stack.push((c, false));
                        }
                    });
                    continue;
                }
                if nodes as usize >= MAX_PAIR_NODES || self.budget == 0 {
                    self.stack = stack;
                    return false;
                }
                self.budget -= 1;
                self.token(terms, t, stamp, &mut inputs, tokens);
                self.number[t.0 as usize] = (stamp, nodes);
                nodes += 1;
            }
            tokens.push(u64::from(self.number[root.0 as usize].1));
        }
        self.stack = stack;
        true
    }

    /// Appends node `t`'s tokens: a tag, its payload, then its children by number.
    fn token(
        &mut self,
        terms: &Terms,
        t: TermId,
        stamp: u32,
        inputs: &mut u64,
        out: &mut Vec<u64>,
    ) {
        let mut name = |n: &std::sync::Arc<str>| {
            let address = std::sync::Arc::as_ptr(n) as *const u8 as usize;
            if let Some(&k) = self.by_address.get(&address) {
                return k;
            }
            let next = self.names.len() as u64;
            let k = *self.names.entry(n.clone()).or_insert(next);
            self.by_address.insert(address, k);
            k
        };
        let (tag, payload) = match terms.node(t) {
            Node::Input { tensor, .. } => {
                *inputs += 1;
                (0, [name(tensor), *inputs])
            }
            Node::Param(_) | Node::Const(_) | Node::Inf { .. } | Node::NaN => {
                (1, [u64::from(t.0), 0])
            }
            Node::Add(_) => (2, [0, 0]),
            Node::Mul(_) => (3, [0, 0]),
            Node::Max(_) => (4, [0, 0]),
            Node::Min(_) => (5, [0, 0]),
            Node::MaxNum(_) => (6, [0, 0]),
            Node::MinNum(_) => (7, [0, 0]),
            Node::And(_) => (8, [0, 0]),
            Node::Or(_) => (9, [0, 0]),
            Node::Pow(_, k) => (10, [*k as i64 as u64, 0]),
            Node::Call(f, _) => (11, [*f as u64, 0]),
            Node::Cmp(op, _, _) => (12, [*op as u64, 0]),
            Node::Not(_) => (13, [0, 0]),
            Node::Select(..) => (14, [0, 0]),
            Node::Opaque(op, _) => (15, [name(op), 0]),
        };
        out.extend([tag, payload[0], payload[1]]);
        let start = out.len();
        out.push(0);
        terms.for_each_child(t, |c| {
            // Every child is numbered: the walk finishes children first.
            out.push(u64::from(self.number[c.0 as usize].1));
        });
        debug_assert!(terms
            .children(t)
            .iter()
            .all(|c| self.number[c.0 as usize].0 == stamp));
        out[start] = (out.len() - start - 1) as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(t: &mut Terms, name: &str, i: i64) -> TermId {
        t.input(name, &[i])
    }

    #[test]
    fn shifted_elements_share_a_class_and_a_different_graph_does_not() {
        let mut t = Terms::new();
        // p_i = x[i] * y[i] + 2 against q_i = y[i] * x[i] + 2, for i = 0, 1; and
        // r = x[0] * x[0] + 2, where one input stands for both.
        let mut pairs = Vec::new();
        for i in 0..2 {
            let (x, y) = (input(&mut t, "x", i), input(&mut t, "y", i));
            let two = t.int(2);
            let xy = t.product(&[x, y]);
            let p = t.sum(&[xy, two]);
            let e = t.call(crate::term::Func::Exp, xy);
            pairs.push((p, e));
        }
        let x0 = input(&mut t, "x", 0);
        let sq = t.product(&[x0, x0]);
        let two = t.int(2);
        let r = t.sum(&[sq, two]);
        let e = t.call(crate::term::Func::Exp, sq);
        pairs.push((r, e));
        // A constant is not renamed: x[1] + 3 is not x[0] + 2.
        let three = t.int(3);
        let x1 = input(&mut t, "x", 1);
        let s3 = t.sum(&[x1, three]);
        let s2 = t.sum(&[x0, two]);
        pairs.push((s2, x0));
        pairs.push((s3, x1));
        let c = classes(&t, &pairs);
        assert_eq!(c, vec![0, 0, 2, 3, 4]);
    }
}
