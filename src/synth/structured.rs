//! Recognisers for outputs whose elements differ in structure, not only in the input
//! elements they read: PyTorch's first-index `argmax`/`argmin` (a select chain over a
//! row's maximum), scans (element `k` along an axis sums `k + 1` operands) and
//! triangles (`tril`/`triu`: zeros past a diagonal, and matrix products of triangles).
//!
//! Each proposes a formula from the shape of the terms and returns it only if
//! [`Synth::matches`] finds its instantiation equal, term for term, to the list: the
//! proposal is a guess, the instantiation is the check (and `prove` then proves every
//! element with `decide`, as for every other formula).

use super::{nary, ravel, unravel, Synth};
use crate::formula::{Formula, ReduceOp, ScanOp};
use crate::term::{CmpOp, Node, TermId, Terms};
use num_traits::{ToPrimitive, Zero};
use std::collections::BTreeSet;

impl Synth<'_> {
    /// `argmax(a, axis)` / `argmin(a, axis)`: every element the select chain
    /// `row[0] == m ? 0 : (row[1] == m ? 1 : … n-1)` over its row's max (min) `m`.
    pub(super) fn arg_extreme(&mut self, shape: &[usize], list: &[TermId]) -> Option<Formula> {
        let mut rows = Vec::with_capacity(list.len());
        let mut kind = None;
        for &t in list {
            let (row, max) = arg_chain(self.terms, t)?;
            if kind.is_some_and(|k| k != (max, row.len())) {
                return None;
            }
            kind = Some((max, row.len()));
            rows.push(row);
        }
        let (max, n) = kind?;
        let op = if max {
            ReduceOp::ArgMax
        } else {
            ReduceOp::ArgMin
        };
        let mut wrap = |child, axis, keepdim| Formula::reduce(op, child, axis, keepdim);
        let f = self.over_new_axis(shape, &rows, n, &mut wrap)?;
        self.matches(&f, shape, list).then_some(f)
    }

    /// `cumsum(a, axis)` / `cumprod(a, axis)`: along `axis`, element `k` is an n-ary
    /// sum (product) of the operands of element `k - 1` and one more; the new operands
    /// are `a`.
    pub(super) fn scan(&mut self, shape: &[usize], list: &[TermId]) -> Option<Formula> {
        for axis in (0..shape.len()).rev() {
            let n = shape[axis];
            if n < 2 {
                continue;
            }
            for op in [ScanOp::Sum, ScanOp::Prod] {
                let Some(child) = self.scan_operands(shape, list, axis, op) else {
                    continue;
                };
                let Ok(a) = self.build(shape, &child) else {
                    continue;
                };
                let f = Formula::scan(op, a, axis);
                if self.matches(&f, shape, list) {
                    return Some(f);
                }
            }
        }
        None
    }

    /// The operand each element adds to the scan along `axis`, or `None` where some
    /// element is not its predecessor plus one operand.
    fn scan_operands(
        &self,
        shape: &[usize],
        list: &[TermId],
        axis: usize,
        op: ScanOp,
    ) -> Option<Vec<TermId>> {
        let operands = |t: TermId| -> Vec<TermId> {
            match (self.terms.node(t), op) {
                (Node::Add(o), ScanOp::Sum) | (Node::Mul(o), ScanOp::Prod) => o.to_vec(),
                _ => vec![t],
            }
        };
        let mut child = vec![TermId(0); list.len()];
        for (p, &t) in list.iter().enumerate() {
            let idx = unravel(p, shape);
            if idx[axis] == 0 {
                child[p] = t;
                continue;
            }
            let mut prev_idx = idx.clone();
            prev_idx[axis] -= 1;
            let mut prev = operands(list[ravel(&prev_idx, shape)]);
            let mut new = None;
            for o in operands(t) {
                match prev.iter().position(|&q| q == o) {
                    Some(k) => {
                        prev.swap_remove(k);
                    }
                    None if new.is_none() => new = Some(o),
                    None => return None,
                }
            }
            if !prev.is_empty() {
                return None;
            }
            child[p] = new?;
        }
        Some(child)
    }

    /// `tril(f, k)` / `triu(f, k)` of the last two axes where every element past a
    /// diagonal is 0, and triangles inside matrix products (`tril(A) @ tril(B)`, the
    /// product a triangular-matmul kernel computes by running `k` over part of the
    /// row): candidates over the inputs that appear, checked by instantiation.
    pub(super) fn triangle(&mut self, shape: &[usize], list: &[TermId]) -> Option<Formula> {
        let r = shape.len();
        if r < 2 || shape[r - 2] < 2 || shape[r - 1] < 2 {
            return None;
        }
        // The diagonals (`j - i`) that hold a non-zero element.
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        let mut products = None;
        for (p, &t) in list.iter().enumerate() {
            if self.terms.as_const(t).is_some_and(|c| c.is_zero()) {
                continue;
            }
            let idx = unravel(p, shape);
            let d = idx[r - 1] as i64 - idx[r - 2] as i64;
            lo = lo.min(d);
            hi = hi.max(d);
            products.get_or_insert(t);
        }
        let mut outer: Vec<Option<(bool, i64)>> = vec![None];
        if hi < shape[r - 1] as i64 - 1 {
            outer.push(Some((false, hi)));
        }
        if lo > -(shape[r - 2] as i64 - 1) {
            outer.push(Some((true, lo)));
        }
        if outer.len() == 1 && !self.sums_of_products_vary(list) {
            return None;
        }
        let mut inner = Vec::new();
        let names = self.product_inputs(products?);
        let tri = [None, Some((false, 0)), Some((true, 0))];
        for a in &names {
            for b in &names {
                for ta in tri {
                    for tb in tri {
                        let fa = with_tri(Formula::input(a), ta);
                        let fb = with_tri(Formula::input(b), tb);
                        inner.push(fa.matmul(fb));
                    }
                }
            }
        }
        for (t, _) in self.env.tensors.iter().filter(|(_, s)| *s == shape) {
            inner.push(Formula::input(t));
        }
        for o in &outer {
            for f in &inner {
                let cand = with_tri(f.clone(), *o);
                if cand.shape(self.env).ok().as_deref() == Some(shape)
                    && self.matches(&cand, shape, list)
                {
                    return Some(cand);
                }
            }
        }
        None
    }

    /// Whether the list holds n-ary sums of different lengths (a product whose
    /// contracted range depends on the element).
    fn sums_of_products_vary(&self, list: &[TermId]) -> bool {
        let lens: BTreeSet<usize> = list
            .iter()
            .filter_map(|&t| match self.terms.node(t) {
                Node::Add(o) => Some(o.len()),
                Node::Mul(_) => Some(1),
                _ => None,
            })
            .collect();
        lens.len() > 1
    }

    /// The input tensors read by the products of `t` (a sum of products, or one).
    fn product_inputs(&self, t: TermId) -> Vec<String> {
        let mut names = BTreeSet::new();
        let summands = match self.terms.node(t) {
            Node::Add(o) => o.to_vec(),
            _ => vec![t],
        };
        for s in summands {
            if let Some(fs) = nary(self.terms.node(s)) {
                for &f in fs {
                    if let Node::Input { tensor, .. } = self.terms.node(f) {
                        names.insert(tensor.to_string());
                    }
                }
            }
        }
        names.into_iter().collect()
    }
}

fn with_tri(f: Formula, tri: Option<(bool, i64)>) -> Formula {
    match tri {
        None => f,
        Some((upper, k)) => f.tri(upper, k),
    }
}

/// The row and max/min of a first-index argmax/argmin chain (the form
/// [`Terms::arg_extreme`] builds), or `None`.
fn arg_chain(terms: &Terms, t: TermId) -> Option<(Vec<TermId>, bool)> {
    let mut row = Vec::new();
    let mut m: Option<TermId> = None;
    let mut cur = t;
    loop {
        match terms.node(cur) {
            Node::Select(c, idx, rest) => {
                let Node::Cmp(CmpOp::Eq, a, b) = terms.node(*c) else {
                    return None;
                };
                if const_int(terms, *idx)? != row.len() as i64 {
                    return None;
                }
                let is_ext = |x: TermId| matches!(terms.node(x), Node::Max(_) | Node::Min(_));
                let (x, ext) = match m {
                    Some(m) if *b == m => (*a, m),
                    Some(m) if *a == m => (*b, m),
                    Some(_) => return None,
                    None if is_ext(*b) => (*a, *b),
                    None if is_ext(*a) => (*b, *a),
                    None => return None,
                };
                m = Some(ext);
                row.push(x);
                cur = *rest;
            }
            _ => {
                let m = m?;
                if const_int(terms, cur)? != row.len() as i64 {
                    return None;
                }
                let (ops, max) = match terms.node(m) {
                    Node::Max(o) => (o, true),
                    Node::Min(o) => (o, false),
                    _ => return None,
                };
                // The last element is the one operand of `m` the chain did not compare.
                let seen: BTreeSet<TermId> = row.iter().copied().collect();
                let rest: Vec<TermId> = ops.iter().copied().filter(|o| !seen.contains(o)).collect();
                let [last] = rest[..] else {
                    return None;
                };
                row.push(last);
                return Some((row, max));
            }
        }
    }
}

fn const_int(terms: &Terms, t: TermId) -> Option<i64> {
    let c = terms.as_const(t)?;
    c.is_integer().then(|| c.to_integer().to_i64())?
}
