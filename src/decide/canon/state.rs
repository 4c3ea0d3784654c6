//! The canonical forms ([`Rf`]: `N / D` over hash-consed [`Atom`]s), the condition keys
//! of a case split, why a conversion stops ([`Halt`]), and the canonicaliser [`Canon`]:
//! its atom and form tables, its preconditions, and printing.
//!
//! Invariant: every rewrite is an identity over the reals under the recorded
//! preconditions (see `canon`).

use super::dag::*;
use crate::decide::poly::{rat, Algebra, AtomId, ExpId, Mono, Poly, Stop};
use crate::decide::precondition::PreKind;
use crate::term::{Func, Node, TermId, Terms};
use num_rational::BigRational;
use num_traits::{One, Signed};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

pub(crate) type RfId = u32;
pub(crate) type CondId = u32;

/// `n / d`: `d` is 1 or a monic polynomial of two or more monomials.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Rf {
    pub n: Poly,
    pub d: Poly,
}

impl Rf {
    pub fn poly(n: Poly) -> Rf {
        Rf { n, d: Poly::one() }
    }
    pub fn constant(c: BigRational) -> Rf {
        Rf::poly(Poly::constant(c))
    }
    pub fn as_const(&self) -> Option<BigRational> {
        if self.d.is_one() {
            self.n.as_const()
        } else {
            None
        }
    }
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Atom {
    /// An input element or a param.
    Leaf(TermId),
    Ln2,
    Ln10,
    SqrtPi,
    /// `f(arg)` for the functions kept opaque (sqrt, log, sin, cos, erf, abs, floor, ceil).
    Fn(Func, RfId),
    /// `exp` of a non-polynomial argument (always positive).
    Exp(RfId),
    Max(Box<[RfId]>),
    Min(Box<[RfId]>),
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) enum CondKey {
    /// `d > 0`
    Pos(RfId),
    /// `d == 0`
    Zero(RfId),
}

pub(crate) enum Halt {
    /// The value depends on a condition atom the current assignment does not fix.
    Split(CondId),
    Stop(String),
}

impl From<Stop> for Halt {
    fn from(s: Stop) -> Self {
        Halt::Stop(s.0)
    }
}

pub(crate) struct Canon<'t> {
    pub(super) terms: &'t Terms,
    pub alg: Algebra,
    pub atoms: Vec<Atom>,
    pub(super) atom_ids: FxHashMap<Atom, AtomId>,
    pub(super) rfs: Vec<Rc<Rf>>,
    pub(super) rf_ids: FxHashMap<Rc<Rf>, RfId>,
    /// Forms of condition-independent terms (valid under every assignment).
    pub(super) pure: FxHashMap<TermId, Rc<Rf>>,
    /// Forms of condition-dependent terms under the current assignment.
    pub(super) branch: FxHashMap<TermId, Rc<Rf>>,
    /// Forms of condition-dependent terms under the empty assignment without extremum
    /// splits: the same in every pair decided with this `Canon`, so kept across pairs
    /// (a row's shared max and sum are converted once, not once per element).
    pub(super) base: FxHashMap<TermId, Rc<Rf>>,
    /// `exp(p)·exp(q)` for a common factor `exp(q)` divided out (see `cancel_exp`).
    pub(super) shifted: FxHashMap<(ExpId, ExpId), ExpId>,
    /// `log` atoms whose argument (free of exponentials, not one monomial) is the form:
    /// `exp(k·log a) = a^k` splits exponents when a form is normalised.
    pub(super) general_logs: FxHashMap<AtomId, RfId>,
    /// [`Canon::split_general_exp`] per exponent.
    pub(super) general_split: FxHashMap<ExpId, Rc<(ExpId, Vec<(RfId, i32)>)>>,
    /// Which terms depend on a condition.
    pub(super) dep: FxHashMap<TermId, bool>,
    pub(super) conds: FxHashMap<CondKey, CondId>,
    /// The key of each condition id (inverse of `conds`).
    pub(super) cond_keys: Vec<CondKey>,
    pub assignment: FxHashMap<CondId, bool>,
    /// Case-split on the order of the two operands of a max/min the case leaves open.
    pub split_extrema: bool,
    pub pre: Vec<(PreKind, TermId, Rc<Rf>)>,
    pub(super) pre_seen: FxHashSet<(PreKind, TermId)>,
}

impl<'t> Canon<'t> {
    pub fn new(terms: &'t Terms, dag: &Dag, limit: usize) -> Self {
        let mut canon = Canon {
            terms,
            alg: Algebra::new(limit),
            atoms: Vec::new(),
            atom_ids: FxHashMap::default(),
            rfs: Vec::new(),
            rf_ids: FxHashMap::default(),
            pure: FxHashMap::default(),
            branch: FxHashMap::default(),
            base: FxHashMap::default(),
            shifted: FxHashMap::default(),
            general_logs: FxHashMap::default(),
            general_split: FxHashMap::default(),
            dep: FxHashMap::default(),
            conds: FxHashMap::default(),
            cond_keys: Vec::new(),
            assignment: FxHashMap::default(),
            split_extrema: false,
            pre: Vec::new(),
            pre_seen: FxHashSet::default(),
        };
        canon.extend(dag);
        canon
    }

    /// Prepares for the next pair of terms (reachable sub-DAG `dag`): every form
    /// converted so far stays valid (atoms, exponents and conditions are interned in
    /// this `Canon`), the case and the extremum splitting are reset. Preconditions
    /// accumulate across pairs: callers keep those of the terms reachable in `dag`.
    pub fn next_pair(&mut self, dag: &Dag) {
        self.extend(dag);
        self.split_extrema = false;
        self.set_assignment(FxHashMap::default());
    }

    /// Records which of the (new) nodes of `dag` depend on a condition.
    pub(super) fn extend(&mut self, dag: &Dag) {
        let terms = self.terms;
        let dep = &mut self.dep;
        for &t in &dag.nodes {
            if dep.contains_key(&t) {
                continue;
            }
            // Max/min forms depend on the case too: a case may order their operands.
            let own = matches!(
                terms.node(t),
                Node::Select(..)
                    | Node::Cmp(..)
                    | Node::Not(_)
                    | Node::And(_)
                    | Node::Or(_)
                    | Node::Max(_)
                    | Node::Min(_)
                    | Node::MaxNum(_)
                    | Node::MinNum(_)
                    | Node::Call(Func::Abs, _)
            );
            let mut d = own;
            if !d {
                terms.for_each_child(t, |c| d |= dep.get(&c).copied().unwrap_or(false));
            }
            dep.insert(t, d);
        }
    }

    /// Whether condition-dependent forms are those of the empty case (see `base`).
    pub(super) fn base_case(&self) -> bool {
        self.assignment.is_empty() && !self.split_extrema
    }

    /// Starts a new case: clears the condition-dependent forms.
    pub fn set_assignment(&mut self, assignment: FxHashMap<CondId, bool>) {
        self.assignment = assignment;
        self.branch.clear();
    }

    pub(super) fn atom(&mut self, a: Atom) -> AtomId {
        if let Some(&id) = self.atom_ids.get(&a) {
            return id;
        }
        let id = self.atoms.len() as AtomId;
        self.atoms.push(a.clone());
        self.atom_ids.insert(a, id);
        id
    }
    pub(super) fn atom_rf(&mut self, a: Atom) -> Rf {
        let id = self.atom(a);
        Rf::poly(Poly::mono(Mono::atom(id, 1), rat(1)))
    }
    pub(super) fn rf_id(&mut self, rf: &Rf) -> RfId {
        if let Some(&id) = self.rf_ids.get(rf) {
            return id;
        }
        let id = self.rfs.len() as RfId;
        let rc = Rc::new(rf.clone());
        self.rfs.push(rc.clone());
        self.rf_ids.insert(rc, id);
        id
    }
    pub fn rf(&self, id: RfId) -> &Rf {
        &self.rfs[id as usize]
    }

    pub(super) fn require(&mut self, kind: PreKind, t: TermId, form: &Rf) {
        if self.pre_seen.insert((kind, t)) {
            self.pre.push((kind, t, Rc::new(form.clone())));
        }
    }

    /// Prints a canonical form, in at most about `budget` characters.
    pub fn print(&self, rf: &Rf, budget: usize) -> String {
        let mut out = String::new();
        self.print_rf(rf, &mut out, budget, 0);
        if out.len() > budget {
            let cut = out.char_indices().nth(budget).map_or(out.len(), |(i, _)| i);
            out.truncate(cut);
            out.push('…');
        }
        out
    }
    pub(super) fn print_rf(&self, rf: &Rf, out: &mut String, budget: usize, depth: usize) {
        if rf.d.is_one() {
            self.print_poly(&rf.n, out, budget, depth);
        } else {
            out.push('(');
            self.print_poly(&rf.n, out, budget, depth);
            out.push_str(") / (");
            self.print_poly(&rf.d, out, budget, depth);
            out.push(')');
        }
    }
    pub(super) fn print_poly(&self, p: &Poly, out: &mut String, budget: usize, depth: usize) {
        if p.is_zero() {
            out.push('0');
        }
        for (i, (m, c)) in p.0.iter().enumerate() {
            if out.len() > budget || depth > 20 {
                out.push('…');
                return;
            }
            if i > 0 {
                out.push_str(if c.is_negative() { " - " } else { " + " });
            } else if c.is_negative() {
                out.push('-');
            }
            let c = c.abs();
            let mut parts: Vec<String> = Vec::new();
            if !c.is_one() || m.is_one() {
                parts.push(crate::term::format_const(&c).0);
            }
            for &(a, e) in m.atoms.iter() {
                let mut s = String::new();
                self.print_atom(a, &mut s, budget, depth + 1);
                if e != 1 {
                    s = format!("{s}^{e}");
                }
                parts.push(s);
            }
            if m.exp != 0 {
                let mut s = String::from("exp(");
                self.print_poly(self.alg.exp_poly(m.exp), &mut s, budget, depth + 1);
                s.push(')');
                parts.push(s);
            }
            out.push_str(&parts.join(" * "));
        }
    }
    pub(super) fn print_atom(&self, a: AtomId, out: &mut String, budget: usize, depth: usize) {
        match &self.atoms[a as usize] {
            Atom::Leaf(t) => out.push_str(&self.terms.display(*t).to_string()),
            Atom::Ln2 => out.push_str("ln(2)"),
            Atom::Ln10 => out.push_str("ln(10)"),
            Atom::SqrtPi => out.push_str("sqrt(pi)"),
            Atom::Fn(f, arg) => {
                out.push_str(&format!("{f:?}(").to_lowercase());
                self.print_rf(self.rf(*arg), out, budget, depth);
                out.push(')');
            }
            Atom::Exp(arg) => {
                out.push_str("exp(");
                self.print_rf(self.rf(*arg), out, budget, depth);
                out.push(')');
            }
            Atom::Max(ops) | Atom::Min(ops) => {
                let is_max = matches!(&self.atoms[a as usize], Atom::Max(_));
                out.push_str(if is_max { "max(" } else { "min(" });
                for (i, o) in ops.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.print_rf(self.rf(*o), out, budget, depth);
                }
                out.push(')');
            }
        }
    }
}
