//! What loop summaries record while a loop over sizes runs (its context, the partial
//! reductions standing for float results, the carried lanes summarised), and the term
//! and index searches the summaries share.
//!
//! Invariant: plain data and pure functions of terms and polynomials; the proofs that
//! use them live in `loops.rs`, `resolve.rs`, `argext.rs`, `welford.rs`, `extent.rs`.

use super::lane::Val;
use super::sym::{Cond, Poly};
use crate::exec::domain::Binary;
use crate::term::{TermId, Terms};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// A loop over sizes being run: its iteration variable and the conditions that make
/// `u` an iteration; stores inside carry them.
#[derive(Clone, Debug)]
pub struct LoopCtx {
    pub var: String,
    pub valid: Vec<Cond>,
    /// Where this loop's body cases start in the path's conditions.
    pub cond_from: usize,
}

/// `⨁` over the iterations of one or more loops: the value of a loop-carried float
/// lane without its initial value.
#[derive(Clone, Debug)]
pub struct Partial {
    pub combine: Binary,
    pub parts: Vec<Part>,
}

/// The summands one body case contributes at iteration `vars`, under `cond`.
#[derive(Clone, Debug)]
pub struct Part {
    pub vars: Vec<String>,
    pub cond: Vec<Cond>,
    pub summands: Vec<TermId>,
}

/// One case of a body run.
pub(super) struct Case {
    pub cond: Vec<Cond>,
    pub outs: Vec<Rc<Val>>,
}

/// A carried integer lane the data picks (see `loops.rs`'s probe): its accumulator
/// atom, its initial value as a real and that value's least bound.
#[derive(Clone, Copy, Debug)]
pub(super) struct Picked {
    pub lane: (usize, usize),
    pub acc: TermId,
    pub init: TermId,
    pub lo: i128,
}

/// A carried float lane `(k, j)` with its accumulator atom and initial value.
#[derive(Clone, Copy)]
pub(super) struct Carried {
    pub lane: (usize, usize),
    pub acc: TermId,
    pub init: TermId,
}

/// A domain check outside loops: the items' loop variables, conditions and indices,
/// the extent, and the store mask assumed (see [`Run::domain_is_extent`]).
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) struct DomainKey {
    pub(super) op: Binary,
    pub(super) items: Vec<(Vec<String>, Vec<Cond>, Poly)>,
    pub(super) extent: Poly,
    pub(super) store_guard: Option<Cond>,
}

/// How many times `for t in range(lo, hi, step)` runs (never negative).
pub(super) fn trip_count(lo: &Poly, hi: &Poly, step: i128) -> Poly {
    hi.sub(lo)
        .add(&Poly::constant(step - 1))
        .floor_div(&Poly::constant(step))
        .max_with(&Poly::default())
}

/// `i` as `a·v + b` for the one variable `v` of `vars` it mentions, `a` a nonzero
/// constant and `b` free of `v`.
pub(super) fn affine_in_one(i: &Poly, vars: &[String]) -> Option<(String, i128, Poly)> {
    let [v] = vars else { return None };
    let at = |x: i128| {
        let mut m = BTreeMap::new();
        m.insert(Arc::from(v.as_str()), x);
        i.subst(&m)
    };
    let b = at(0);
    let a = at(1).sub(&b).as_const()?;
    (a != 0 && i.sub(&b) == Poly::sym(v).scale(a)).then_some((v.clone(), a, b))
}

pub(super) fn contains(terms: &Terms, t: TermId, needle: TermId) -> bool {
    Reach::new(needle).contains(terms, t)
}

/// Which terms contain one `needle` (or any of a set), remembered across queries: the
/// summands of a lane's update share their scores and running max, walked once rather
/// than once per summand (and, kept for a whole loop, once rather than once per lane).
pub(super) struct Reach {
    needles: rustc_hash::FxHashSet<TermId>,
    /// Nodes known to contain a needle (`true`) or not (`false`).
    known: rustc_hash::FxHashMap<TermId, bool>,
}

impl Reach {
    pub(super) fn new(needle: TermId) -> Self {
        Reach::any(&[needle].into_iter().collect())
    }

    /// Which terms contain any of `needles`: [`contains_any`], remembered.
    pub(super) fn any(needles: &rustc_hash::FxHashSet<TermId>) -> Self {
        Reach {
            needles: needles.clone(),
            known: rustc_hash::FxHashMap::default(),
        }
    }

    pub(super) fn contains(&mut self, terms: &Terms, t: TermId) -> bool {
        // (node, children pushed)
        let mut stack = vec![(t, false)];
        while let Some((x, expanded)) = stack.pop() {
            if self.known.contains_key(&x) {
                continue;
            }
            if self.needles.contains(&x) {
                self.known.insert(x, true);
                continue;
            }
            if expanded {
                let mut hit = false;
                terms.for_each_child(x, |c| hit |= self.known[&c]);
                self.known.insert(x, hit);
                continue;
            }
            stack.push((x, true));
            terms.for_each_child(x, |c| {
                if !self.known.contains_key(&c) {
                    stack.push((c, false));
                }
            });
        }
        self.known[&t]
    }
}

/// Whether any of `needles` occurs in `t` (one walk, shared subterms visited once).
pub(super) fn contains_any(
    terms: &Terms,
    t: TermId,
    needles: &rustc_hash::FxHashSet<TermId>,
) -> bool {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![t];
    while let Some(x) = stack.pop() {
        if needles.contains(&x) {
            return true;
        }
        if seen.insert(x) {
            terms.for_each_child(x, |c| stack.push(c));
        }
    }
    false
}

/// A template's index holes (`#i`, `#o0`, …) bound from `t`: for each input atom of the
/// template (`shape_atoms`, indices written with holes), the first atom of the same
/// tensor and rank in `t` (in the order of [`input_atoms_of`]) binds every hole that
/// stands alone in an index position (the first binding wins).
pub(super) fn bind_holes(
    first: &mut FirstAtoms,
    terms: &Terms,
    atoms: &super::at_index::AtomIndex,
    shape_atoms: &[(String, Vec<Poly>)],
    t: TermId,
) -> std::collections::HashMap<String, Poly> {
    HoleSlots::new(shape_atoms).bind(first, terms, atoms, t)
}

/// A template's index holes as [`bind_holes`] reads them: per input atom of the
/// template, its tensor, rank and the positions that hold one hole alone (atoms with
/// none left out), worked out once per template rather than once per summand.
pub(super) struct HoleSlots(Vec<AtomSlots>);

/// One input atom of a template: its tensor, its rank, and each index position that
/// holds one hole alone with that hole's name.
struct AtomSlots {
    tensor: String,
    rank: usize,
    holes: Vec<(usize, String)>,
}

impl HoleSlots {
    pub(super) fn new(shape_atoms: &[(String, Vec<Poly>)]) -> Self {
        let slots = shape_atoms.iter().filter_map(|(tensor, fidx)| {
            let holes: Vec<(usize, String)> = fidx
                .iter()
                .enumerate()
                .filter_map(|(k, f)| {
                    let mut names = Vec::new();
                    f.symbols(&mut names);
                    match &names[..] {
                        [name] if *f == Poly::sym(name) && name.starts_with('#') => {
                            Some((k, name.to_string()))
                        }
                        _ => None,
                    }
                })
                .collect();
            (!holes.is_empty()).then(|| AtomSlots {
                tensor: tensor.clone(),
                rank: fidx.len(),
                holes,
            })
        });
        HoleSlots(slots.collect())
    }

    /// [`bind_holes`] of `t` with these slots.
    pub(super) fn bind(
        &self,
        first: &mut FirstAtoms,
        terms: &Terms,
        atoms: &super::at_index::AtomIndex,
        t: TermId,
    ) -> std::collections::HashMap<String, Poly> {
        let mine = first.of(terms, atoms, t);
        let mut bound = std::collections::HashMap::new();
        for AtomSlots {
            tensor,
            rank,
            holes,
        } in &self.0
        {
            let Some((_, kidx)) = mine
                .iter()
                .map(|a| &atoms[a])
                .find(|(t, k)| t == tensor && k.len() == *rank)
            else {
                continue;
            };
            for (k, name) in holes {
                bound
                    .entry(name.clone())
                    .or_insert_with(|| kidx[*k].clone());
            }
        }
        bound
    }
}

/// Per term, the first input atom of each tensor and rank in the order of
/// [`input_atoms_of`] (all that [`bind_holes`] reads of them), memoised node by node:
/// the first in a pre-order walk is the node itself, else the first of its children in
/// order that has one. A stored element's summands share their row's max and sum, so
/// the walk over them was otherwise made again per summand. The memo is dropped when
/// `atoms` gains an atom.
#[derive(Default)]
pub(super) struct FirstAtoms {
    atoms_len: usize,
    memo: rustc_hash::FxHashMap<TermId, Rc<[TermId]>>,
}

impl FirstAtoms {
    pub(super) fn of(
        &mut self,
        terms: &Terms,
        atoms: &super::at_index::AtomIndex,
        t: TermId,
    ) -> Rc<[TermId]> {
        if self.atoms_len != atoms.len() {
            self.memo.clear();
            self.atoms_len = atoms.len();
        }
        let key = |a: &TermId| {
            let (tensor, idx) = &atoms[a];
            (tensor.as_str(), idx.len())
        };
        let mut stack = vec![(t, false)];
        while let Some((x, expanded)) = stack.pop() {
            if self.memo.contains_key(&x) {
                continue;
            }
            let kids = terms.children(x);
            if !expanded {
                stack.push((x, true));
                stack.extend(
                    kids.iter()
                        .filter(|k| !self.memo.contains_key(k))
                        .map(|&k| (k, false)),
                );
                continue;
            }
            let mut list: Vec<TermId> = Vec::new();
            let own = atoms.contains_key(&x).then_some(x);
            let from_kids = kids.iter().flat_map(|k| self.memo[k].iter().copied());
            for a in own.into_iter().chain(from_kids) {
                if !list.iter().any(|b| key(b) == key(&a)) {
                    list.push(a);
                }
            }
            // Shared with the first child that has the same list (most nodes).
            let same = kids
                .iter()
                .map(|k| &self.memo[k])
                .find(|l| !l.is_empty())
                .filter(|l| l[..] == list[..])
                .cloned();
            let r = same.unwrap_or_else(|| Rc::from(list));
            self.memo.insert(x, r);
        }
        Rc::clone(&self.memo[&t])
    }
}

/// The input atoms in `t` (in a fixed order), with their tensors and indices.
pub(super) fn input_atoms_of(
    terms: &Terms,
    atoms: &super::at_index::AtomIndex,
    t: TermId,
) -> Vec<(String, Vec<Poly>)> {
    let mut out = Vec::new();
    let mut stack = vec![t];
    let mut seen = std::collections::HashSet::new();
    while let Some(x) = stack.pop() {
        if !seen.insert(x) {
            continue;
        }
        if let Some(a) = atoms.get(&x) {
            out.push(a.clone());
        }
        let mut kids = terms.children(x);
        kids.reverse();
        stack.extend(kids);
    }
    out
}
