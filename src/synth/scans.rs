//! The linear recurrence `h[t] = a[t]·h[t-1] + x[t]` (a state-space model's scan, a
//! loop over t or `tl.associative_scan` of affine maps): along some axis, every
//! element past the first is a sum with one product holding its predecessor as a
//! factor; that product's other factors are `a[t]`, the sum's other operands `x[t]`.
//!
//! Like [`super::structured`], it only proposes: the formula is returned only where
//! [`Synth::matches`] finds its instantiation equal, term for term, to the list. `a[0]`
//! is never read, so its first element is guessed (each input of the output's shape at
//! the same index, or `a[1]`'s term) and the instantiation decides.

use super::{unravel, Synth};
use crate::formula::Formula;
use crate::term::{Node, TermId};

impl Synth<'_> {
    /// `linear_recurrence(a, x, axis)` when `list` is one along some axis.
    pub(super) fn recurrence(&mut self, shape: &[usize], list: &[TermId]) -> Option<Formula> {
        for axis in (0..shape.len()).rev() {
            if shape[axis] < 2 {
                continue;
            }
            let stride: usize = shape[axis + 1..].iter().product();
            let Some((a, x)) = self.recurrence_operands(shape, list, axis, stride) else {
                continue;
            };
            let Ok(xf) = self.build(shape, &x) else {
                continue;
            };
            for first in self.first_factor_guesses(shape, &a, axis, stride) {
                let Ok(af) = self.build(shape, &first) else {
                    continue;
                };
                let f = Formula::recurrence(af, xf.clone(), axis);
                if self.matches(&f, shape, list) {
                    return Some(f);
                }
            }
        }
        None
    }

    /// Per element, the factor `a[t]` and the addend `x[t]` (`a` at `t = 0` a
    /// placeholder), or `None` where some element is not `a·h[t-1] + x`.
    fn recurrence_operands(
        &mut self,
        shape: &[usize],
        list: &[TermId],
        axis: usize,
        stride: usize,
    ) -> Option<(Vec<TermId>, Vec<TermId>)> {
        let mut a = vec![TermId(0); list.len()];
        let mut x = list.to_vec();
        for (p, &t) in list.iter().enumerate() {
            if unravel(p, shape)[axis] == 0 {
                continue;
            }
            let prev = list[p - stride];
            let Node::Add(ops) = self.terms.node(t).clone() else {
                return None;
            };
            let (at, factor) = ops.iter().enumerate().find_map(|(i, &o)| {
                if o == prev {
                    return Some((i, None));
                }
                match self.terms.node(o) {
                    Node::Mul(fs) if fs.iter().filter(|&&f| f == prev).count() == 1 => {
                        let rest: Vec<TermId> = fs.iter().copied().filter(|&f| f != prev).collect();
                        Some((i, Some(rest)))
                    }
                    _ => None,
                }
            })?;
            a[p] = match factor {
                None => self.terms.one(),
                Some(rest) => self.terms.product(&rest),
            };
            let others: Vec<TermId> = ops
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != at)
                .map(|(_, &o)| o)
                .collect();
            x[p] = self.terms.sum(&others);
        }
        Some((a, x))
    }

    /// Lists of `a` with its never-read first elements filled in: from each input of
    /// the output's shape at the same index, then from `a[1]`.
    fn first_factor_guesses(
        &mut self,
        shape: &[usize],
        a: &[TermId],
        axis: usize,
        stride: usize,
    ) -> Vec<Vec<TermId>> {
        let names: Vec<String> = self
            .env
            .tensors
            .iter()
            .filter(|(_, s)| s.as_slice() == shape)
            .map(|(n, _)| n.clone())
            .collect();
        let mut out = Vec::new();
        for name in names {
            let mut g = a.to_vec();
            for (p, v) in g.iter_mut().enumerate() {
                let idx = unravel(p, shape);
                if idx[axis] == 0 {
                    let idx: Vec<i64> = idx.iter().map(|&i| i as i64).collect();
                    *v = self.terms.input(&name, &idx);
                }
            }
            out.push(g);
        }
        let firsts: Vec<usize> = (0..a.len())
            .filter(|&p| unravel(p, shape)[axis] == 0)
            .collect();
        let mut g = a.to_vec();
        for p in firsts {
            g[p] = g[p + stride];
        }
        out.push(g);
        out
    }
}
