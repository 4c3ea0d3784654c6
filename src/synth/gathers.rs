//! Gathers at integer labels: elements that are gather trees (`term/gather.rs`: a
//! select tree over the declared values of one integer input element, `t[i]` or
//! `idx[l]`) lifted to `take(x, t, axis=a)` (`x[i, t[i]]`) or `w[idx]`.
//!
//! The proposal reads, for each element, its label and the cell of each declared
//! value, finds the data tensor and the axis the label moves along, builds the label's
//! formula by the ordinary search, and keeps the candidate only where its
//! instantiation agrees with every element at every label value inside the axis.
//! Outside the axis (a value the kernel discards: `ignore_index`, read through
//! `where(t != -100, t, 0)`) the two trees may hold different cells; whether that
//! difference is discarded is for `prove` to show, as for every other formula (the
//! proposal is a guess, `prove` the check).

use super::{ravel, unravel, Synth};
use crate::formula::{Formula, TakeKind};
use crate::term::{CmpOp, Node, TermId, Terms};

/// One element read as a gather: its label element and the cell at each declared
/// value of the label.
struct Tree {
    label: TermId,
    cells: Vec<(i64, TermId)>,
}

impl Synth<'_> {
    /// `take(x, t, axis)` or `w[idx]` whose instantiation agrees with `list` (of
    /// `shape`) at every label value inside the gathered axis.
    pub(super) fn take(&mut self, shape: &[usize], list: &[TermId]) -> Option<Formula> {
        let trees: Vec<Tree> = list
            .iter()
            .map(|&t| tree(self.terms, t))
            .collect::<Option<_>>()?;
        let (data, axis) = self.gathered_axis(&trees)?;
        let rank = self.env.tensors.get(&data)?.len();
        let x = Formula::input(&data);
        // `x[i, t[i]]`: the label has the output's shape.
        if shape.len() + 1 == rank {
            let labels: Vec<TermId> = trees.iter().map(|t| t.label).collect();
            if let Ok(i) = self.build(shape, &labels) {
                let f = Formula::take(TakeKind::Along, x.clone(), i, axis);
                if self.agrees(&f, shape, list, &trees) {
                    return Some(f);
                }
            }
        }
        // `w[idx]`: the label's axes replace the gathered one.
        let k = (shape.len() + 1).checked_sub(rank).filter(|&k| k > 0)?;
        let idx_shape = shape.get(axis..axis + k)?.to_vec();
        let labels: Vec<TermId> = (0..idx_shape.iter().product())
            .map(|q| {
                let mut p = vec![0; shape.len()];
                p[axis..axis + k].copy_from_slice(&unravel(q, &idx_shape));
                trees[ravel(&p, shape)].label
            })
            .collect();
        let i = self.build(&idx_shape, &labels).ok()?;
        let f = Formula::take(TakeKind::Index, x, i, axis);
        self.agrees(&f, shape, list, &trees).then_some(f)
    }

    /// The input tensor every tree's cells read and the axis along which the cell of
    /// value `v` sits at `v`, for every value inside that axis.
    fn gathered_axis(&self, trees: &[Tree]) -> Option<(String, usize)> {
        let first = trees.first()?;
        let mut candidates: Vec<(String, usize)> = Vec::new();
        for &(_, c) in &first.cells {
            if let Node::Input { tensor, index } = self.terms.node(c) {
                for axis in 0..index.len() {
                    let cand = (tensor.to_string(), axis);
                    if !candidates.contains(&cand) {
                        candidates.push(cand);
                    }
                }
            }
        }
        candidates.into_iter().find(|(data, axis)| {
            let Some(&extent) = self.env.tensors.get(data).and_then(|s| s.get(*axis)) else {
                return false;
            };
            trees.iter().all(|t| {
                let inside: Vec<&(i64, TermId)> = t
                    .cells
                    .iter()
                    .filter(|(v, _)| (0..extent as i64).contains(v))
                    .collect();
                !inside.is_empty()
                    && inside.iter().all(|&&(v, c)| {
                        matches!(self.terms.node(c), Node::Input { tensor, index }
                            if **tensor == **data && index.get(*axis) == Some(&v))
                    })
            })
        })
    }

    /// Whether `f`, broadcast to `shape`, has each element of `list` or one that
    /// differs from it only at label values outside the gathered axis.
    fn agrees(&mut self, f: &Formula, shape: &[usize], list: &[TermId], trees: &[Tree]) -> bool {
        let Formula::Take { axis, data, .. } = f else {
            return false;
        };
        let Some(extent) = data
            .shape(self.env)
            .ok()
            .and_then(|s| s.get(*axis).copied())
        else {
            return false;
        };
        let Ok(fs) = f.shape(self.env) else {
            return false;
        };
        if fs != shape {
            return false;
        }
        let Ok(elems) = crate::prove::instance(self.terms, self.env, f, &mut self.instances) else {
            return false;
        };
        list.iter().zip(trees).enumerate().all(|(p, (&want, t))| {
            let got = elems[p];
            got == want
                || t.cells.iter().all(|&(v, cell)| {
                    !(0..extent as i64).contains(&v)
                        || self.terms.fix_leaves(got, &[t.label], &[v]) == cell
                })
        })
    }
}

/// `t` read as a gather tree over one integer input element with declared values: a
/// select on `label < v` at its root.
fn tree(terms: &mut Terms, t: TermId) -> Option<Tree> {
    let Node::Select(c, _, _) = terms.node(t) else {
        return None;
    };
    let Node::Cmp(CmpOp::Lt, label, v) = terms.node(*c) else {
        return None;
    };
    let (label, v) = (*label, *v);
    terms.as_const(v)?;
    let Node::Input { tensor, .. } = terms.node(label) else {
        return None;
    };
    terms.int_input(tensor)?;
    let values = terms.int_values(tensor)?;
    let cells = values
        .iter()
        .map(|&v| (v, terms.fix_leaves(t, &[label], &[v])))
        .collect();
    Some(Tree { label, cells })
}
