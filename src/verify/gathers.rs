//! Gathers at integer labels for every size (`take(x, t, axis=1)`, `w[idx]`).
//!
//! A label is an element of an integer input whose launch declares its values
//! (`values = ["0..N", -100]`). The all-sizes run reads it as a symbolic integer of its
//! own ([`label_sym`], named as the element's atom: `t[pid_x]`) that the path knows only
//! to lie in the declared values ([`Labels::fact`]); an access at an offset it enters
//! decomposes like any other, so `x[pid_x, t[pid_x]]` is one atom on the kernel's side
//! and the formula's. The formula side reads `take` at that symbol (0 where the path
//! shows it outside the axis) and decides a comparison of labels with integer
//! constants by the path's facts, as the kernel's branch on it did.
//!
//! Invariant: a label symbol enters a path only with its domain among the path's
//! conditions (and its read in `Path::labels`); a proof that read one states the
//! domain among its constraints ([`Labels::statements`]); coverage reads each label
//! as a value of its own per index (`coverage`), never one value every program shares.

use super::at_index::{align, size_poly, AtIndex};
use super::labels::{is_label_sym, label_sym, LabelRead, Labels};
use super::lane::{unsupported, Lane, R};
use super::records::TensorSym;
use super::run::Run;
use super::sym::{Cond, Poly, Rel};
use crate::formula::{Formula, TakeKind};
use crate::launch::{ArgBinding, Launch, ValueItem};
use crate::term::{CmpOp, TermId};

/// The label tensors of `launch` among `tensors` (an integer input with `values`).
pub fn labels_of(launch: &Launch, tensors: &[TensorSym]) -> Result<Labels, String> {
    let mut labels = Labels::default();
    for b in launch.args.values() {
        let ArgBinding::Tensor {
            tensor,
            values: Some(items),
            ..
        } = b
        else {
            continue;
        };
        let Some(t) = tensors.iter().find(|t| &t.name == tensor) else {
            continue;
        };
        let Some((lo, hi)) = t.dtype.int_range() else {
            continue;
        };
        let mut parts = Vec::new();
        let mut text = Vec::new();
        for item in items {
            match item {
                ValueItem::One(e) => {
                    let v = size_poly(e)?;
                    parts.push((v.clone(), v.add(&Poly::constant(1))));
                    text.push(e.to_string());
                }
                ValueItem::Range(a, b, inclusive) => {
                    let end = size_poly(b)?.add(&Poly::constant(*inclusive as i128));
                    parts.push((size_poly(a)?, end));
                    text.push(format!("{a}..{}{b}", if *inclusive { "=" } else { "" }));
                }
            }
        }
        labels.declare(tensor, parts, lo, hi, text.join(", "));
    }
    Ok(labels)
}

impl Run<'_, '_, '_> {
    /// A load of label `name[idx]` (in bounds, unmasked): its symbol, with its domain
    /// made a condition of the path the first time it is read. `None` where `name`
    /// is no label tensor.
    pub(super) fn read_label(&mut self, name: &str, idx: &[Poly]) -> Option<R<Lane>> {
        let s = label_sym(name, idx);
        let fact = self.setup.labels.fact(name, &s)?;
        if !self.loops.is_empty() {
            // A loop summary moves the conditions its body adds into its cases.
            return Some(unsupported(format!(
                "a label of `{name}` read inside a loop over sizes"
            )));
        }
        if !self.path.labels.iter().any(|l| l.sym == s) {
            self.solver.assert(&self.smt.cond(&fact));
            self.path.cond.push(fact);
            self.path.labels.push(LabelRead {
                sym: s.clone(),
                tensor: name.to_string(),
                index: idx.to_vec(),
            });
            self.known_cache.clear();
            self.classes = None;
        }
        Some(Ok(Lane::Int(s)))
    }
}

impl Run<'_, '_, '_> {
    /// An offset that a label enters with its `min`/`max` atoms settled on the path
    /// (`max(t, 0)` of a clamped label is `t` where `t >= 0`), forking where the path
    /// leaves the order open, so that it decomposes into the index the formula reads.
    pub(super) fn settle_label_offset(&mut self, off: &Poly) -> R<Poly> {
        let mut syms = Vec::new();
        off.symbols(&mut syms);
        if !syms.iter().any(|s| is_label_sym(s)) {
            return Ok(off.clone());
        }
        let mut failed = None;
        let settled = off.settle_extrema(&mut |a, b| {
            let le = Cond::cmp(Rel::Le, a, b);
            match self.decide(&le) {
                Ok(v) => v,
                Err(e) => {
                    failed.get_or_insert(e);
                    false
                }
            }
        });
        match failed {
            Some(e) => Err(e),
            None => Ok(settled),
        }
    }
}

impl AtIndex<'_> {
    /// `f` at `idx` as an integer: a label's symbol or an integer constant (through
    /// unsqueezes and broadcasts); `None` for anything else.
    pub(super) fn int_at(&mut self, f: &Formula, idx: &[Poly]) -> Result<Option<Poly>, String> {
        Ok(match f {
            Formula::Input(n) if self.labels.is_label(n) => {
                let shape = self.shape(f)?;
                Some(label_sym(n, &align(idx, &shape)))
            }
            Formula::Const(c) if c.is_integer() => {
                let v: Option<i128> = num_traits::ToPrimitive::to_i128(c.numer());
                v.map(Poly::constant)
            }
            Formula::Unsqueeze { arg, axis } => {
                let mut i2 = idx.to_vec();
                if *axis < i2.len() {
                    i2.remove(*axis);
                }
                self.int_at(arg, &i2)?
            }
            Formula::Broadcast { arg, .. } => {
                let shape = self.shape(arg)?;
                self.int_at(arg, &align(idx, &shape))?
            }
            _ => None,
        })
    }

    /// A comparison with a label on one side and an integer on the other, decided by
    /// the path (the kernel branched on it); `None` where it is no such comparison.
    pub(super) fn label_cmp(
        &mut self,
        op: CmpOp,
        a: &Formula,
        b: &Formula,
        idx: &[Poly],
    ) -> Result<Option<TermId>, String> {
        let mentions = |f: &Formula| matches!(f, Formula::Input(n) if self.labels.is_label(n));
        if !(mentions(strip(a)) || mentions(strip(b))) {
            return Ok(None);
        }
        let (sa, sb) = (self.shape(a)?, self.shape(b)?);
        let (Some(x), Some(y)) = (
            self.int_at(a, &align(idx, &sa))?,
            self.int_at(b, &align(idx, &sb))?,
        ) else {
            return Ok(None);
        };
        let c = match op {
            CmpOp::Lt => Cond::cmp(Rel::Lt, &x, &y),
            CmpOp::Le => Cond::cmp(Rel::Le, &x, &y),
            CmpOp::Gt => Cond::cmp(Rel::Lt, &y, &x),
            CmpOp::Ge => Cond::cmp(Rel::Le, &y, &x),
            CmpOp::Eq => Cond::cmp(Rel::Eq, &x, &y),
            CmpOp::Ne => Cond::cmp(Rel::Ne, &x, &y),
        };
        // The comparison's truth as the folded comparison of two constants.
        let z = self.terms.zero();
        if (self.holds)(&c) {
            Ok(Some(self.terms.cmp(CmpOp::Eq, z, z)))
        } else if (self.holds)(&c.clone().not()) {
            Ok(Some(self.terms.cmp(CmpOp::Ne, z, z)))
        } else {
            Err(format!(
                "whether {c} holds depends on the labels where the kernel does not branch on it"
            ))
        }
    }

    /// `take(data, index)` at `idx`: the data at the label's position, 0 where the path
    /// shows the label outside the axis.
    pub(super) fn take_at(
        &mut self,
        kind: TakeKind,
        axis: usize,
        data: &Formula,
        index: &Formula,
        idx: &[Poly],
    ) -> Result<TermId, String> {
        let dshape = self.shape(data)?;
        let rank = self.shape(index)?.len();
        let (at_label, before, after) = match kind {
            TakeKind::Along => (
                idx.to_vec(),
                &idx[..axis.min(idx.len())],
                &idx[axis.min(idx.len())..],
            ),
            TakeKind::Index => {
                if axis + rank > idx.len() {
                    return Err("a gather's index of the wrong rank".into());
                }
                (
                    idx[axis..axis + rank].to_vec(),
                    &idx[..axis],
                    &idx[axis + rank..],
                )
            }
        };
        let Some(l) = self.int_at(index, &at_label)? else {
            return Err(format!(
                "the positions `{index}` of a gather are not a label tensor (an integer input with declared values)"
            ));
        };
        let extent = dshape
            .get(axis)
            .cloned()
            .ok_or_else(|| format!("axis {axis} of a rank-{} operand", dshape.len()))?;
        let inside = Cond::and(
            Cond::cmp(Rel::Le, &Poly::default(), &l),
            Cond::cmp(Rel::Lt, &l, &extent),
        );
        if (self.holds)(&inside) {
            let didx: Vec<Poly> = [before, &[l], after].concat();
            self.at(data, &didx)
        } else if (self.holds)(&inside.not()) {
            Ok(self.terms.zero())
        } else {
            Err(format!(
                "whether label {l} lies within 0..{extent} depends on the labels"
            ))
        }
    }
}

/// `f` without the unsqueezes and broadcasts around it.
fn strip(f: &Formula) -> &Formula {
    match f {
        Formula::Unsqueeze { arg, .. } | Formula::Broadcast { arg, .. } => strip(arg),
        _ => f,
    }
}
