//! The label tensors of a launch ([`Labels`]: integer inputs whose launch declares
//! their `values`, each a domain over the sizes) and the symbols their elements are in
//! the all-sizes run ([`label_sym`]); `gathers.rs` reads them.
//!
//! Invariant: plain data; a label's symbol is named as its element's atom, so it is
//! recognisable ([`is_label_sym`]) and its real is that atom.

use super::lane::atom_name;
use super::sym::{Cond, Poly, Rel};
use crate::formula::TakeKind;
use std::collections::BTreeMap;

/// The declared values of one label tensor over the sizes.
#[derive(Clone, Debug)]
struct Domain {
    /// Single values and half-open ranges, any of which a label may take.
    parts: Vec<(Poly, Poly)>,
    /// The element type's range.
    lo: i128,
    hi: i128,
    /// As the launch writes them (`0..N, -100`).
    text: String,
}

/// The label tensors of a launch: integer inputs that declare their values.
#[derive(Clone, Debug, Default)]
pub struct Labels {
    domains: BTreeMap<String, Domain>,
}

/// A label one path read: its symbol, tensor and index.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelRead {
    pub sym: Poly,
    pub tensor: String,
    pub index: Vec<Poly>,
}

/// The symbol of label `name[idx]`, named as that element's atom.
pub fn label_sym(name: &str, idx: &[Poly]) -> Poly {
    Poly::sym(&atom_name(name, idx))
}

/// Whether symbol `s` is a label's (sizes, program ids and loop variables never end
/// with a bracket).
pub fn is_label_sym(s: &str) -> bool {
    s.ends_with(']')
}

impl Labels {
    /// Declares tensor `name`'s labels: any of the half-open ranges `parts` (a single
    /// value `v` is `v..v + 1`), within its type's range `lo..=hi`; `text` as the
    /// launch writes them.
    pub fn declare(
        &mut self,
        name: &str,
        parts: Vec<(Poly, Poly)>,
        lo: i128,
        hi: i128,
        text: String,
    ) {
        self.domains.insert(
            name.to_string(),
            Domain {
                parts,
                lo,
                hi,
                text,
            },
        );
    }

    pub fn is_label(&self, name: &str) -> bool {
        self.domains.contains_key(name)
    }

    /// The declared values of `name` as a condition on its label symbol `s`.
    pub fn fact(&self, name: &str, s: &Poly) -> Option<Cond> {
        let d = self.domains.get(name)?;
        let mut any = Cond::Const(false);
        for (a, b) in &d.parts {
            let inside = Cond::and(Cond::cmp(Rel::Le, a, s), Cond::cmp(Rel::Lt, s, b));
            any = Cond::or(any, inside);
        }
        let typed = Cond::and(
            Cond::cmp(Rel::Le, &Poly::constant(d.lo), s),
            Cond::cmp(Rel::Le, s, &Poly::constant(d.hi)),
        );
        Some(Cond::and(any, typed))
    }

    /// The assumptions a proof that read labels of `names` rests on, one per tensor:
    /// `t in {0..N, -100} (the launch's declared values)`.
    pub fn statements<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let mut names: Vec<&str> = names.into_iter().collect();
        names.sort_unstable();
        names.dedup();
        names
            .into_iter()
            .filter_map(|n| {
                let d = self.domains.get(n)?;
                Some(format!(
                    "every {n} in {{{}}} (the launch's declared values)",
                    d.text
                ))
            })
            .collect()
    }
}

/// The shape of a gather over the sizes (see `Formula::Take`).
pub(super) fn take_shape(kind: TakeKind, axis: usize, data: &[Poly], index: &[Poly]) -> Vec<Poly> {
    match kind {
        TakeKind::Along => index.to_vec(),
        TakeKind::Index => [&data[..axis], index, &data[axis + 1..]].concat(),
    }
}
