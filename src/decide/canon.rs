//! Canonical rational functions of terms: `N / D` with `N` a Laurent polynomial and `D`
//! a monic polynomial with at least two monomials (or 1), over hash-consed atoms.
//!
//! Invariant: every rewrite here is an identity over the reals under the recorded
//! preconditions (denominators non-zero, `log`/`rsqrt` arguments positive, `sqrt`
//! arguments non-negative). Two terms whose forms satisfy `N1·D2 = N2·D1` are equal
//! wherever the preconditions hold; the converse (completeness) holds only in the
//! exp-polynomial fragment.

use super::poly::{rat, Algebra, AtomId, ExpId, Mono, Poly, Stop};
use super::PreKind;
use crate::term::{CmpOp, Func, Node, TermId, Terms};
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

mod chain;
mod funcs;
mod known;

pub(crate) use known::known_value;
use known::{match_known, Known};

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
enum CondKey {
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

/// `select(p > q, p, q)` and its variants as `(is_max, p, q)`.
pub(crate) fn select_extremum(
    terms: &Terms,
    c: TermId,
    x: TermId,
    y: TermId,
) -> Option<(bool, TermId, TermId)> {
    if let Node::Cmp(op, p, q) = terms.node(c) {
        let (p, q) = (*p, *q);
        let same = (x, y) == (p, q);
        let swapped = (x, y) == (q, p);
        if !same && !swapped {
            return None;
        }
        return match op {
            CmpOp::Gt | CmpOp::Ge => Some((same, p, q)),
            CmpOp::Lt | CmpOp::Le => Some((swapped, p, q)),
            _ => None,
        };
    }
    None
}

pub(crate) struct Canon<'t> {
    terms: &'t Terms,
    pub alg: Algebra,
    pub atoms: Vec<Atom>,
    atom_ids: FxHashMap<Atom, AtomId>,
    rfs: Vec<Rc<Rf>>,
    rf_ids: FxHashMap<Rc<Rf>, RfId>,
    /// Forms of condition-independent terms (valid under every assignment).
    pure: FxHashMap<TermId, Rc<Rf>>,
    /// Forms of condition-dependent terms under the current assignment.
    branch: FxHashMap<TermId, Rc<Rf>>,
    /// Forms of condition-dependent terms under the empty assignment without extremum
    /// splits: the same in every pair decided with this `Canon`, so kept across pairs
    /// (a row's shared max and sum are converted once, not once per element).
    base: FxHashMap<TermId, Rc<Rf>>,
    /// `exp(p)·exp(q)` for a common factor `exp(q)` divided out (see `cancel_exp`).
    shifted: FxHashMap<(super::poly::ExpId, super::poly::ExpId), super::poly::ExpId>,
    /// `log` atoms whose argument (free of exponentials, not one monomial) is the form:
    /// `exp(k·log a) = a^k` splits exponents when a form is normalised.
    general_logs: FxHashMap<AtomId, RfId>,
    /// [`Canon::split_general_exp`] per exponent.
    general_split: FxHashMap<ExpId, Rc<(ExpId, Vec<(RfId, i32)>)>>,
    /// Which terms depend on a condition.
    dep: FxHashMap<TermId, bool>,
    conds: FxHashMap<CondKey, CondId>,
    /// The key of each condition id (inverse of `conds`).
    cond_keys: Vec<CondKey>,
    pub assignment: FxHashMap<CondId, bool>,
    /// Case-split on the order of the two operands of a max/min the case leaves open.
    pub split_extrema: bool,
    pub pre: Vec<(PreKind, TermId, Rc<Rf>)>,
    pre_seen: FxHashSet<(PreKind, TermId)>,
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
    fn extend(&mut self, dag: &Dag) {
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
    fn base_case(&self) -> bool {
        self.assignment.is_empty() && !self.split_extrema
    }

    /// Starts a new case: clears the condition-dependent forms.
    pub fn set_assignment(&mut self, assignment: FxHashMap<CondId, bool>) {
        self.assignment = assignment;
        self.branch.clear();
    }

    fn atom(&mut self, a: Atom) -> AtomId {
        if let Some(&id) = self.atom_ids.get(&a) {
            return id;
        }
        let id = self.atoms.len() as AtomId;
        self.atoms.push(a.clone());
        self.atom_ids.insert(a, id);
        id
    }
    fn atom_rf(&mut self, a: Atom) -> Rf {
        let id = self.atom(a);
        Rf::poly(Poly::mono(Mono::atom(id, 1), rat(1)))
    }
    fn rf_id(&mut self, rf: &Rf) -> RfId {
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

    fn require(&mut self, kind: PreKind, t: TermId, form: &Rf) {
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
    fn print_rf(&self, rf: &Rf, out: &mut String, budget: usize, depth: usize) {
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
    fn print_poly(&self, p: &Poly, out: &mut String, budget: usize, depth: usize) {
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
    fn print_atom(&self, a: AtomId, out: &mut String, budget: usize, depth: usize) {
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

    // ---- rational-function arithmetic ------------------------------------------------

    fn normalize(&mut self, n: Poly, d: Poly) -> Result<Rf, Stop> {
        if n.is_zero() {
            return Ok(Rf::constant(rat(0)));
        }
        if !self.general_logs.is_empty() {
            // Each split leaves log coefficients in [0, 1) and multiplies in powers of
            // exponential-free arguments, so the nested normalisations end.
            let (sn, sd) = (self.split_general_logs(&n)?, self.split_general_logs(&d)?);
            if sn.is_some() || sd.is_some() {
                let sn = sn.unwrap_or_else(|| Rf::poly(n));
                let sd = sd.unwrap_or_else(|| Rf::poly(d));
                let inv = self.inv(&sd)?;
                return self.mul(&sn, &inv);
            }
        }
        if d.is_one() {
            return Ok(Rf::poly(n));
        }
        if n == d {
            return Ok(Rf::constant(rat(1)));
        }
        if let Some((m, c)) = d.single() {
            let inv = self.alg.mono_inverse(&m.clone(), &c.clone())?;
            let q = self.alg.mul(&n, &inv)?;
            // Dividing by `exp(k·log a)` leaves `-k`, outside [0, 1): split again.
            if !self.general_logs.is_empty() {
                if let Some(s) = self.split_general_logs(&q)? {
                    return Ok(s);
                }
            }
            return Ok(Rf::poly(q));
        }
        let (n, d) = self.cancel_exp(n, d);
        let lc = d.lc().cloned().unwrap_or_else(|| rat(1));
        if lc.is_one() {
            Ok(Rf { n, d })
        } else {
            let r = lc.recip();
            Ok(Rf {
                n: n.scale(&r),
                d: d.scale(&r),
            })
        }
    }
    /// `n / d` with the exponential factor common to every monomial of both divided out
    /// (`exp(a-m)·v / (exp(b-m) + exp(c-m)) = exp(a)·v / (exp(b) + exp(c))`): `exp(q)`
    /// for `q` the monomials on which every exponent agrees (same coefficient). Exact
    /// (`exp(q) > 0`) and independent of the representation: two quotients that differ
    /// by an exponential factor give the same result.
    fn cancel_exp(&mut self, n: Poly, d: Poly) -> (Poly, Poly) {
        let all = || n.0.iter().chain(d.0.iter());
        if all().any(|(m, _)| m.exp == 0) {
            return (n, d);
        }
        let mut common: Vec<(Mono, BigRational)> = self.alg.exp_poly(d.0[0].0.exp).0.clone();
        for (m, _) in all() {
            let q = self.alg.exp_poly(m.exp);
            common.retain(|(cm, cc)| {
                q.0.binary_search_by(|(qm, _)| qm.cmp(cm))
                    .is_ok_and(|i| &q.0[i].1 == cc)
            });
            if common.is_empty() {
                return (n, d);
            }
        }
        let minus = Poly(common).neg();
        let minus_id = self.alg.intern_exp(minus.clone());
        let mut shift = |p: Poly| {
            let mut v: Vec<(Mono, BigRational)> =
                p.0.into_iter()
                    .map(|(m, c)| {
                        let exp = *self.shifted.entry((m.exp, minus_id)).or_insert_with(|| {
                            let q = self.alg.exp_poly(m.exp).add(&minus);
                            self.alg.intern_exp(q)
                        });
                        (
                            Mono {
                                exp,
                                atoms: m.atoms,
                            },
                            c,
                        )
                    })
                    .collect();
            v.sort_unstable_by(|x, y| x.0.cmp(&y.0));
            Poly(v)
        };
        let n = shift(n);
        let d = shift(d);
        (n, d)
    }

    pub fn add(&mut self, a: &Rf, b: &Rf) -> Result<Rf, Stop> {
        if a.d == b.d {
            let n = a.n.add(&b.n);
            return self.normalize(n, a.d.clone());
        }
        if b.d.is_one() {
            let n = a.n.add(&self.alg.mul(&b.n, &a.d)?);
            return self.normalize(n, a.d.clone());
        }
        if a.d.is_one() {
            let n = b.n.add(&self.alg.mul(&a.n, &b.d)?);
            return self.normalize(n, b.d.clone());
        }
        let n = self.alg.mul(&a.n, &b.d)?.add(&self.alg.mul(&b.n, &a.d)?);
        let d = self.alg.mul(&a.d, &b.d)?;
        self.normalize(n, d)
    }
    pub fn sub(&mut self, a: &Rf, b: &Rf) -> Result<Rf, Stop> {
        let nb = Rf {
            n: b.n.neg(),
            d: b.d.clone(),
        };
        self.add(a, &nb)
    }
    pub fn mul(&mut self, a: &Rf, b: &Rf) -> Result<Rf, Stop> {
        // Cancel a denominator against an equal numerator (its non-zeroness is recorded).
        if !a.d.is_one() && a.d == b.n {
            return Ok(Rf {
                n: a.n.clone(),
                d: b.d.clone(),
            });
        }
        if !b.d.is_one() && b.d == a.n {
            return Ok(Rf {
                n: b.n.clone(),
                d: a.d.clone(),
            });
        }
        let n = self.alg.mul(&a.n, &b.n)?;
        let d = self.alg.mul(&a.d, &b.d)?;
        self.normalize(n, d)
    }
    pub fn inv(&mut self, a: &Rf) -> Result<Rf, Stop> {
        if a.n.is_zero() {
            return Err(Stop(
                "division by an expression that is identically 0".into(),
            ));
        }
        self.normalize(a.d.clone(), a.n.clone())
    }
    pub fn pow(&mut self, a: &Rf, k: i32) -> Result<Rf, Stop> {
        let base = if k < 0 { self.inv(a)? } else { a.clone() };
        let e = k.unsigned_abs();
        let n = self.alg.pow(&base.n, e)?;
        let d = self.alg.pow(&base.d, e)?;
        self.normalize(n, d)
    }
    fn scale(&self, a: &Rf, c: &BigRational) -> Rf {
        Rf {
            n: a.n.scale(c),
            d: a.d.clone(),
        }
    }

    // ---- signs -------------------------------------------------------------------------

    fn atom_positive(&self, a: AtomId) -> bool {
        match &self.atoms[a as usize] {
            Atom::Ln2 | Atom::Ln10 | Atom::SqrtPi | Atom::Exp(_) => true,
            Atom::Fn(Func::Sqrt, arg) => self.rf(*arg).as_const().is_some_and(|c| c.is_positive()),
            _ => false,
        }
    }
    /// Whether `p > 0` everywhere: positive coefficients, monomials of positive atoms
    /// and even powers, at least one monomial of positive atoms only.
    fn poly_positive(&self, p: &Poly) -> bool {
        let mut strict = false;
        for (m, c) in &p.0 {
            if !c.is_positive() {
                return false;
            }
            let mut all_pos = true;
            for &(a, e) in m.atoms.iter() {
                if !self.atom_positive(a) {
                    all_pos = false;
                    if e % 2 != 0 {
                        return false;
                    }
                }
            }
            strict |= all_pos;
        }
        strict
    }
    pub fn positive(&self, a: &Rf) -> bool {
        self.poly_positive(&a.n) && self.poly_positive(&a.d)
    }
    fn nonzero(&self, a: &Rf) -> bool {
        if self.positive(a) {
            return true;
        }
        if let Some((m, c)) = a.n.single() {
            return !c.is_zero() && m.atoms.iter().all(|&(x, _)| self.atom_positive(x));
        }
        false
    }

    // ---- conditions ------------------------------------------------------------------------

    /// The real-valued terms whose forms a condition needs.
    fn cond_leaves(&self, c: TermId, out: &mut Vec<TermId>) {
        let mut stack = vec![c];
        while let Some(t) = stack.pop() {
            match self.terms.node(t) {
                Node::Cmp(_, p, q) => {
                    out.push(*p);
                    out.push(*q);
                }
                Node::Not(x) => stack.push(*x),
                Node::And(ops) | Node::Or(ops) => stack.extend_from_slice(ops),
                Node::Const(_) | Node::Inf { .. } => {}
                _ => out.push(t),
            }
        }
    }

    fn cond_literal(&mut self, key: CondKey, polarity: bool) -> Result<bool, Halt> {
        let next = self.conds.len() as CondId;
        let id = *self.conds.entry(key).or_insert(next);
        if id == next {
            self.cond_keys.push(key);
        }
        match self.assignment.get(&id) {
            Some(&v) => Ok(v == polarity),
            None => Err(Halt::Split(id)),
        }
    }

    fn pos_key(&mut self, d: &Rf) -> CondKey {
        let lc = d.n.lc().cloned().unwrap_or_else(|| rat(1)).abs();
        let n = self.scale(d, &lc.recip());
        CondKey::Pos(self.rf_id(&n))
    }
    fn zero_key(&mut self, d: &Rf) -> CondKey {
        let lc = d.n.lc().cloned().unwrap_or_else(|| rat(1));
        let n = Rf::poly(d.n.scale(&lc.recip()));
        CondKey::Zero(self.rf_id(&n))
    }

    fn cmp(&mut self, op: CmpOp, p: &Rf, q: &Rf) -> Result<bool, Halt> {
        let d = self.sub(p, q)?;
        if let Some(c) = d.as_const() {
            return Ok(match op {
                CmpOp::Lt => c.is_negative(),
                CmpOp::Le => !c.is_positive(),
                CmpOp::Gt => c.is_positive(),
                CmpOp::Ge => !c.is_negative(),
                CmpOp::Eq => c.is_zero(),
                CmpOp::Ne => !c.is_zero(),
            });
        }
        let nd = self.scale(&d, &rat(-1));
        // A literal the case already decides (e.g. `x > 0` when `x - 6 > 0`).
        if !self.assignment.is_empty() {
            let forced = match op {
                CmpOp::Gt => self.implied_pos(&d),
                CmpOp::Lt => self.implied_pos(&nd),
                CmpOp::Ge => self.implied_pos(&nd).map(|v| !v),
                CmpOp::Le => self.implied_pos(&d).map(|v| !v),
                CmpOp::Eq | CmpOp::Ne => None,
            };
            if let Some(v) = forced {
                return Ok(v);
            }
        }
        match op {
            CmpOp::Gt => {
                let k = self.pos_key(&d);
                self.cond_literal(k, true)
            }
            CmpOp::Lt => {
                let k = self.pos_key(&nd);
                self.cond_literal(k, true)
            }
            CmpOp::Ge => {
                let k = self.pos_key(&nd);
                self.cond_literal(k, false)
            }
            CmpOp::Le => {
                let k = self.pos_key(&d);
                self.cond_literal(k, false)
            }
            CmpOp::Eq => {
                let k = self.zero_key(&d);
                self.cond_literal(k, true)
            }
            CmpOp::Ne => {
                let k = self.zero_key(&d);
                self.cond_literal(k, false)
            }
        }
    }

    /// Truth of a condition under the current assignment (all its leaves converted).
    fn eval_cond(&mut self, c: TermId) -> Result<bool, Halt> {
        match self.terms.node(c).clone() {
            Node::Cmp(op, p, q) => {
                let (p, q) = (self.get(p), self.get(q));
                self.cmp(op, &p, &q)
            }
            Node::Not(x) => Ok(!self.eval_cond(x)?),
            Node::And(ops) => {
                let mut r = true;
                for o in ops.iter() {
                    r &= self.eval_cond(*o)?;
                }
                Ok(r)
            }
            Node::Or(ops) => {
                let mut r = false;
                for o in ops.iter() {
                    r |= self.eval_cond(*o)?;
                }
                Ok(r)
            }
            Node::Const(v) => Ok(!v.is_zero()),
            Node::Inf { .. } => Ok(true),
            _ => {
                let v = self.get(c);
                if let Some(k) = v.as_const() {
                    return Ok(!k.is_zero());
                }
                let k = self.zero_key(&v);
                self.cond_literal(k, false)
            }
        }
    }

    // ---- what a case implies ---------------------------------------------------------------

    /// `Some(true)` when the current case implies `d > 0`, `Some(false)` when it
    /// implies `d <= 0`: `d = c·p + k` for a literal `p > 0` (or `p <= 0`) of the case,
    /// a rational `c ≠ 0` and a constant `k` of the right sign.
    /// Whether the current case decides `a >= 0` (`Some(true)`) or `a <= 0`
    /// (`Some(false)`); `None` outside a case or where it leaves the sign open. Looks up
    /// the case's literals only (never creates a condition).
    fn sign_in_case(&self, a: &Rf) -> Option<bool> {
        if self.assignment.is_empty() {
            return None;
        }
        if let Some(v) = self.implied_pos(a) {
            // a > 0, or not (a > 0)
            return Some(v);
        }
        let na = Rf {
            n: a.n.scale(&rat(-1)),
            d: a.d.clone(),
        };
        // -a > 0 gives a <= 0; not (-a > 0) gives a >= 0
        self.implied_pos(&na).map(|v| !v)
    }

    fn implied_pos(&self, d: &Rf) -> Option<bool> {
        if !d.d.is_one() {
            return None;
        }
        if let Some(c) = d.n.as_const() {
            return Some(c.is_positive());
        }
        for (key, val) in self.case_literals() {
            let CondKey::Pos(r) = key else {
                continue;
            };
            let p = self.rf(r);
            if !p.d.is_one() {
                continue;
            }
            let Some((pm, pc)) = p.n.0.iter().find(|(m, _)| !m.is_one()) else {
                continue;
            };
            let Ok(i) = d.n.0.binary_search_by(|(m, _)| m.cmp(pm)) else {
                continue;
            };
            let c = &d.n.0[i].1 / pc;
            let Some(k) = d.n.add(&p.n.scale(&-c.clone())).as_const() else {
                continue;
            };
            // d = c·p + k
            let implied = match (val, c.is_positive()) {
                // p > 0, c > 0: d > k
                (true, true) => (!k.is_negative()).then_some(true),
                // p > 0, c < 0: d < k
                (true, false) => (!k.is_positive()).then_some(false),
                // p <= 0, c > 0: d <= k
                (false, true) => (!k.is_positive()).then_some(false),
                // p <= 0, c < 0: d >= k
                (false, false) => k.is_positive().then_some(true),
            };
            if implied.is_some() {
                return implied;
            }
        }
        None
    }

    /// The literals of the current case, in condition-id order.
    fn case_literals(&self) -> Vec<(CondKey, bool)> {
        let mut ids: Vec<(CondId, bool)> = self.assignment.iter().map(|(&i, &v)| (i, v)).collect();
        ids.sort_unstable();
        ids.into_iter()
            .filter_map(|(i, v)| self.cond_keys.get(i as usize).map(|&k| (k, v)))
            .collect()
    }

    /// The condition id of `Pos(-r)`, when that condition exists.
    fn neg_pos_cond(&self, r: RfId) -> Option<CondId> {
        let rf = self.rf(r);
        let neg = Rf {
            n: rf.n.neg(),
            d: rf.d.clone(),
        };
        let nid = *self.rf_ids.get(&neg)?;
        self.conds.get(&CondKey::Pos(nid)).copied()
    }

    /// The condition id of `Zero(numerator of r)`, when that condition exists.
    fn zero_cond_of(&self, r: RfId) -> Option<CondId> {
        let rf = self.rf(r);
        let lc = rf.n.lc()?.clone();
        let z = Rf::poly(rf.n.scale(&lc.recip()));
        let zid = *self.rf_ids.get(&z)?;
        self.conds.get(&CondKey::Zero(zid)).copied()
    }

    /// Polynomial equations `p = 0` that hold at every point of the current case:
    /// `Zero(p)` true, and `Pos(d)`, `Pos(-d)` both false (then `d = 0`, so its
    /// numerator is 0).
    fn case_equations(&self) -> Vec<Poly> {
        let mut eqs = Vec::new();
        for (key, v) in self.case_literals() {
            match (key, v) {
                (CondKey::Zero(r), true) => eqs.push(self.rf(r).n.clone()),
                (CondKey::Pos(r), false) => {
                    if let Some(c) = self.neg_pos_cond(r) {
                        if self.assignment.get(&c) == Some(&false) {
                            eqs.push(self.rf(r).n.clone());
                        }
                    }
                }
                _ => {}
            }
        }
        eqs
    }

    /// `v = e` from `p = 0` when `p = a·v + rest` with `v` an input or param atom, `a` a
    /// non-zero rational and `v` in no monomial of `rest` (outside nested atoms).
    fn solve(&self, p: &Poly) -> Option<(AtomId, Poly)> {
        for (m, a) in &p.0 {
            if m.exp != 0 || m.atoms.len() != 1 || m.atoms[0].1 != 1 {
                continue;
            }
            let v = m.atoms[0].0;
            if !matches!(self.atoms[v as usize], Atom::Leaf(_)) {
                continue;
            }
            let elsewhere =
                p.0.iter()
                    .any(|(m2, _)| m2 != m && m2.atoms.iter().any(|&(x, _)| x == v));
            if elsewhere {
                continue;
            }
            let rest = Poly(p.0.iter().filter(|(m2, _)| m2 != m).cloned().collect());
            return Some((v, rest.scale(&-a.recip())));
        }
        None
    }

    /// `p` with every occurrence of atom `v` replaced by `e`, in the monomials and in
    /// their exponential parts (re-canonicalised); occurrences inside other nested atoms
    /// stay: they are opaque values here.
    /// `None` when `v` has a negative or very large exponent.
    fn substitute(&mut self, p: &Poly, v: AtomId, e: &Poly) -> Result<Option<Poly>, Stop> {
        let mut powers: Vec<Poly> = vec![Poly::one()];
        let mut kept = Vec::new();
        let mut out = Poly::zero();
        for (m, c) in &p.0 {
            let k = m
                .atoms
                .iter()
                .find(|&&(x, _)| x == v)
                .map_or(0, |&(_, k)| k);
            // The exponential part, with `v` substituted in its exponent.
            let mut new_exp = None;
            if m.exp != 0 {
                let q = self.alg.exp_poly(m.exp).clone();
                let Some(q2) = self.substitute(&q, v, e)? else {
                    return Ok(None);
                };
                if q2 != q {
                    let r = self.exp(&Rf::poly(q2))?;
                    if !r.d.is_one() {
                        return Ok(None);
                    }
                    new_exp = Some(r.n);
                }
            }
            if k == 0 && new_exp.is_none() {
                kept.push((m.clone(), c.clone()));
                continue;
            }
            if !(0..=64).contains(&k) {
                return Ok(None);
            }
            while powers.len() <= k as usize {
                let next = self.alg.mul(powers.last().expect("non-empty"), e)?;
                powers.push(next);
            }
            let rest = Mono {
                exp: if new_exp.is_some() { 0 } else { m.exp },
                atoms: m.atoms.iter().filter(|&&(x, _)| x != v).copied().collect(),
            };
            let mut term = self
                .alg
                .mul(&Poly::mono(rest, c.clone()), &powers[k as usize])?;
            if let Some(ef) = new_exp {
                term = self.alg.mul(&term, &ef)?;
            }
            out = out.add(&term);
            if out.len() > self.alg.limit {
                return Err(Stop(format!(
                    "expansion exceeds {} monomials in a substitution",
                    self.alg.limit
                )));
            }
        }
        if kept.len() == p.len() {
            return Ok(Some(p.clone()));
        }
        Ok(Some(out.add(&Poly(kept))))
    }

    /// The substitutions `v := e` the case's equations give, each already reduced by
    /// the earlier ones.
    fn case_substitutions(&mut self) -> Result<Vec<(AtomId, Poly)>, Stop> {
        let mut subs: Vec<(AtomId, Poly)> = Vec::new();
        for eq in self.case_equations() {
            let Some(eq) = self.apply(&eq, &subs)? else {
                continue;
            };
            if let Some(s) = self.solve(&eq) {
                subs.push(s);
            }
        }
        Ok(subs)
    }

    fn apply(&mut self, p: &Poly, subs: &[(AtomId, Poly)]) -> Result<Option<Poly>, Stop> {
        let mut p = p.clone();
        for (v, e) in subs {
            match self.substitute(&p, *v, e)? {
                Some(q) => p = q,
                None => return Ok(None),
            }
        }
        Ok(Some(p))
    }

    /// Whether `p = 0` at every point of the current case: `p` is 0 after substituting
    /// the case's equations.
    pub fn zero_in_case(&mut self, p: &Poly) -> Result<bool, Stop> {
        if p.is_zero() {
            return Ok(true);
        }
        let subs = self.case_substitutions()?;
        if subs.is_empty() {
            return Ok(false);
        }
        Ok(self.apply(p, &subs)?.is_some_and(|q| q.is_zero()))
    }

    /// Whether no real point satisfies the literals of the current case; `true` only
    /// when the contradiction is certain.
    pub fn case_infeasible(&mut self) -> bool {
        let lits = self.case_literals();
        for &(key, v) in &lits {
            if let CondKey::Pos(r) = key {
                let neg = self
                    .neg_pos_cond(r)
                    .and_then(|c| self.assignment.get(&c).copied());
                let zero = self
                    .zero_cond_of(r)
                    .and_then(|c| self.assignment.get(&c).copied());
                // d > 0 and -d > 0
                if v && neg == Some(true) {
                    return true;
                }
                // d > 0 and d = 0
                if v && zero == Some(true) {
                    return true;
                }
                // d <= 0, -d <= 0 and d != 0
                if !v && neg == Some(false) && zero == Some(false) {
                    return true;
                }
            }
        }
        // Literals that the case's equations turn into constants, or into a cycle of
        // orderings (`a > b`, `b >= c`, `c >= a`).
        let subs = self.case_substitutions().unwrap_or_default();
        let mut linear: Vec<(Poly, bool, bool)> = Vec::new();
        let mut seen: Vec<(Poly, Poly, bool, bool)> = Vec::new();
        for (key, v) in lits {
            let (r, is_pos) = match key {
                CondKey::Pos(r) => (r, true),
                CondKey::Zero(r) => (r, false),
            };
            let rf = self.rf(r).clone();
            if is_pos && !self.poly_positive(&rf.d) {
                continue;
            }
            let q = if subs.is_empty() {
                rf.n.clone()
            } else {
                let Ok(Some(q)) = self.apply(&rf.n, &subs) else {
                    continue;
                };
                q
            };
            let Some(c) = q.as_const() else {
                linear.push((q.clone(), is_pos, v));
                // Two literals the equations make the same (up to a positive factor)
                // with opposite truths: `x1 - x0 > 0` and, with `x1 = x2`, `x2 - x0 <= 0`.
                let Some(lc) = q.lc().cloned() else {
                    continue;
                };
                let zn = q.scale(&lc.recip()); // sign-free form, for `= 0`
                let pn = q.scale(&lc.abs().recip()); // positive-factor form, for `> 0`
                for (zn2, pn2, is_pos2, v2) in &seen {
                    let clash = match (is_pos, *is_pos2) {
                        (true, true) => {
                            (pn == *pn2 && v != *v2) || (v && *v2 && pn == pn2.scale(&rat(-1)))
                        }
                        (false, false) => zn == *zn2 && v != *v2,
                        // d > 0 and d = 0
                        _ => zn == *zn2 && v && *v2,
                    };
                    if clash {
                        return true;
                    }
                }
                seen.push((zn, pn, is_pos, v));
                continue;
            };
            let holds = if is_pos { c.is_positive() } else { c.is_zero() };
            if holds != v {
                return true;
            }
        }
        order_cycle(&linear)
    }

    // ---- conversion ------------------------------------------------------------------------

    fn lookup(&self, t: TermId) -> Option<&Rc<Rf>> {
        self.pure.get(&t).or_else(|| {
            if self.base_case() {
                self.base.get(&t)
            } else {
                self.branch.get(&t)
            }
        })
    }
    fn get(&self, t: TermId) -> Rc<Rf> {
        self.lookup(t).cloned().expect("child converted first")
    }

    /// Children of `t` that must be converted before `t` (under the current assignment).
    fn missing(&mut self, t: TermId) -> Result<Vec<TermId>, Halt> {
        let mut need = Vec::new();
        match self.terms.node(t).clone() {
            Node::Select(c, x, y) => {
                if let Some((_, p, q)) = select_extremum(self.terms, c, x, y) {
                    need.extend([p, q]);
                } else {
                    self.cond_leaves(c, &mut need);
                    need.retain(|&n| self.lookup(n).is_none());
                    if need.is_empty() {
                        let branch = if self.eval_cond(c)? { x } else { y };
                        need.push(branch);
                    }
                }
            }
            Node::Cmp(..) | Node::Not(_) | Node::And(_) | Node::Or(_) => {
                self.cond_leaves(t, &mut need)
            }
            Node::Add(_) => match self.chain(t) {
                Some((steps, base)) => Self::chain_inputs(&steps, base, &mut need),
                None => self.terms.for_each_child(t, |c| need.push(c)),
            },
            _ => self.terms.for_each_child(t, |c| need.push(c)),
        }
        need.retain(|&n| self.lookup(n).is_none());
        Ok(need)
    }

    pub fn convert(&mut self, root: TermId) -> Result<Rc<Rf>, Halt> {
        let mut stack = vec![root];
        while let Some(&t) = stack.last() {
            if self.lookup(t).is_some() {
                stack.pop();
                continue;
            }
            let need = self.missing(t)?;
            if !need.is_empty() {
                stack.extend(need);
                continue;
            }
            let rf = Rc::new(self.convert_node(t)?);
            if self.dep.get(&t).copied().unwrap_or(true) {
                if self.base_case() {
                    self.base.insert(t, rf);
                } else {
                    self.branch.insert(t, rf);
                }
            } else {
                self.pure.insert(t, rf);
            }
            stack.pop();
        }
        Ok(self.get(root))
    }

    fn convert_node(&mut self, t: TermId) -> Result<Rf, Halt> {
        let node = self.terms.node(t).clone();
        Ok(match node {
            Node::Input { .. } | Node::Param(_) => self.atom_rf(Atom::Leaf(t)),
            Node::Const(c) => self.constant(&c)?,
            Node::Opaque(op, _) => {
                return Err(Halt::Stop(format!(
                    "the term contains bit-level code (`{op}`) that is not read as real arithmetic"
                )))
            }
            Node::Inf { .. } | Node::NaN => {
                return Err(Halt::Stop("the term contains an infinity or NaN".into()))
            }
            Node::Add(ops) => {
                if let Some((steps, base)) = self.chain(t) {
                    return Ok(self.fold_chain(&steps, base)?);
                }
                let mut acc = Rf::constant(rat(0));
                for o in ops.iter() {
                    let r = self.get(*o);
                    acc = self.add(&acc, &r)?;
                }
                acc
            }
            Node::Mul(ops) => {
                let mut acc = Rf::constant(rat(1));
                for o in ops.iter() {
                    let r = self.get(*o);
                    acc = self.mul(&acc, &r)?;
                }
                acc
            }
            Node::Pow(b, k) => {
                let base_node = self.terms.node(b).clone();
                match base_node {
                    Node::Call(Func::Sqrt, a) if k % 2 == 0 => {
                        // sqrt(a)^(2j) = a^j (a >= 0 recorded by the sqrt)
                        let a = self.get(a);
                        if k < 0 {
                            let s = self.get(b);
                            self.require(PreKind::NonZero, b, &s);
                        }
                        self.pow(&a, k / 2)?
                    }
                    Node::Call(Func::Rsqrt, a) if k % 2 == 0 => {
                        let a = self.get(a);
                        self.pow(&a, -(k / 2))?
                    }
                    _ => {
                        let r = self.get(b);
                        if k < 0 && !self.nonzero(&r) {
                            self.require(PreKind::NonZero, b, &r);
                        }
                        self.pow(&r, k)?
                    }
                }
            }
            Node::Call(f, a) => {
                let r = self.get(a);
                self.call(f, &r, a)?
            }
            // Where the preconditions hold (every log's and root's argument in its
            // domain, every denominator non-zero), no operand is NaN and maxNum is max;
            // the refuter compares the sides by IEEE's rules where they fail.
            Node::Max(ops) | Node::Min(ops) | Node::MaxNum(ops) | Node::MinNum(ops) => {
                let is_max = matches!(self.terms.node(t), Node::Max(_) | Node::MaxNum(_));
                let rs: Vec<Rc<Rf>> = ops.iter().map(|&o| self.get(o)).collect();
                self.extremum(&rs, is_max)?
            }
            Node::Cmp(..) | Node::Not(_) | Node::And(_) | Node::Or(_) => {
                Rf::constant(rat(self.eval_cond(t)? as i64))
            }
            Node::Select(c, x, y) => {
                if let Some((is_max, p, q)) = select_extremum(self.terms, c, x, y) {
                    let rs = [self.get(p), self.get(q)];
                    self.extremum(&rs, is_max)?
                } else {
                    let branch = if self.eval_cond(c)? { x } else { y };
                    (*self.get(branch)).clone()
                }
            }
        })
    }

    /// Whether every atom is an input, a param or a known constant (with exponential
    /// parts), where the canonical form is complete.
    pub fn has_extrema(&self) -> bool {
        self.atoms
            .iter()
            .any(|a| matches!(a, Atom::Max(_) | Atom::Min(_)))
    }

    pub fn in_exp_poly_fragment(&self) -> bool {
        self.atoms.iter().all(|a| {
            matches!(a, Atom::Leaf(_) | Atom::Ln2 | Atom::Ln10 | Atom::SqrtPi)
                || matches!(a, Atom::Fn(Func::Sqrt, arg) if self.rf(*arg).as_const().is_some())
        })
    }

    /// Names of the opaque functions among the atoms (for Unknown reasons).
    pub fn opaque_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .atoms
            .iter()
            .filter_map(|a| match a {
                Atom::Fn(f, _) => Some(format!("{f:?}").to_lowercase()),
                Atom::Exp(_) => Some("exp of a quotient".into()),
                Atom::Max(_) => Some("max".into()),
                Atom::Min(_) => Some("min".into()),
                _ => None,
            })
            .collect();
        v.sort();
        v.dedup();
        v
    }
}

/// `Some(k)` when `c = base^k` for an integer `k ≠ 0`.
fn int_log(c: &BigRational, base: i64) -> Option<i64> {
    if !c.is_positive() || c.is_one() {
        return None;
    }
    let b = num_bigint::BigInt::from(base);
    let (mut n, neg) = if c.is_integer() {
        (c.numer().clone(), false)
    } else if c.numer().is_one() {
        (c.denom().clone(), true)
    } else {
        return None;
    };
    let mut k = 0i64;
    while n > num_bigint::BigInt::one() {
        if (&n % &b) != num_bigint::BigInt::zero() {
            return None;
        }
        n /= &b;
        k += 1;
    }
    Some(if neg { -k } else { k })
}

trait Pipe: Sized {
    fn pipe<R>(self, f: impl FnOnce(Self) -> R) -> R {
        f(self)
    }
}
impl<T> Pipe for T {}

/// Whether literals of the form `m1 - m2 > 0`, `<= 0` or `= 0` (two monomials, opposite
/// coefficients, no constant; `(poly, is_pos, value)` as in `case_infeasible`) order
/// their monomials in a cycle with a strict step (`a < b <= c <= a`): then no real point
/// satisfies them. Other literals are ignored (dropping constraints never makes a
/// feasible case infeasible).
fn order_cycle(lits: &[(Poly, bool, bool)]) -> bool {
    let mut nodes: Vec<&Mono> = Vec::new();
    fn node<'m>(m: &'m Mono, nodes: &mut Vec<&'m Mono>) -> usize {
        nodes.iter().position(|n| **n == *m).unwrap_or_else(|| {
            nodes.push(m);
            nodes.len() - 1
        })
    }
    // Edges u -> v meaning u <= v (strict: u < v).
    let mut edges: Vec<(usize, usize, bool)> = Vec::new();
    for (q, is_pos, v) in lits {
        let [(m1, c1), (m2, c2)] = q.0.as_slice() else {
            continue;
        };
        if m1.is_one() || m2.is_one() || *c1 != -c2.clone() {
            continue;
        }
        // q > 0  <=>  hi > lo
        let (hi, lo) = if c1.is_positive() { (m1, m2) } else { (m2, m1) };
        let (hi, lo) = (node(hi, &mut nodes), node(lo, &mut nodes));
        match (is_pos, v) {
            (true, true) => edges.push((lo, hi, true)),
            (true, false) => edges.push((hi, lo, false)),
            (false, true) => {
                edges.push((hi, lo, false));
                edges.push((lo, hi, false));
            }
            (false, false) => {}
        }
    }
    if !edges.iter().any(|e| e.2) {
        return false;
    }
    let n = nodes.len();
    // reach[u][v]: v is reachable from u
    let mut reach = vec![vec![false; n]; n];
    for &(u, v, _) in &edges {
        reach[u][v] = true;
    }
    for k in 0..n {
        for i in 0..n {
            if reach[i][k] {
                for j in 0..n {
                    if reach[k][j] {
                        reach[i][j] = true;
                    }
                }
            }
        }
    }
    edges
        .iter()
        .any(|&(u, v, strict)| strict && (u == v || reach[v][u]))
}
