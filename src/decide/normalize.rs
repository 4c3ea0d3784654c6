//! Normalise: a term rebuilt from its canonical form (see `canon`) in a textbook shape.
//!
//! Architecture invariant: the canonical form is built with the decider's own `Canon`
//! (so exponentials are merged, `exp(a)·exp(b) = exp(a+b)`, and the exponential factor
//! common to a quotient's numerator and denominator is cancelled); the term is then
//! rebuilt with the ordinary smart constructors as a sum of monomials with the factors
//! common to every monomial pulled out (`c·Σ`, `scale·Σ q·k`, `exp(q)·Σ`), and a quotient
//! as `n · d^-1`. The result equals the input wherever the input's preconditions hold;
//! callers that use it still prove what they build from it against the original term
//! (synth proves every lifted formula), and tests decide `normalize(t) = t`.
//! This is the one function of `decide` that writes to the term store.

use super::canon::{Atom, Canon, Dag, Reached, Rf};
use super::poly::{ExpId, Mono, Poly};
use crate::term::{Func, TermId, Terms};
use num_rational::BigRational;
use num_traits::{One, Signed};
use std::cell::RefCell;
use std::collections::HashMap;

/// An owned expression, built from a canonical form before the term store is written.
enum Expr {
    Term(TermId),
    Const(BigRational),
    Float(f64),
    Call(Func, Box<Expr>),
    Max(Vec<Expr>),
    Min(Vec<Expr>),
    Sum(Vec<Expr>),
    Prod(Vec<Expr>),
    Pow(Box<Expr>, i32),
    /// A canonical atom, built once however often it occurs (`exp(x_j - max(x))` for
    /// every `j` shares the `max`).
    Atom(u32),
    /// `exp(q)` for the exponent `q` interned as this id, likewise built once.
    Exp(ExpId),
}

/// `t` rebuilt from its canonical form; `None` when it has none (a `select` whose
/// condition the form cannot fix, an infinity, an expansion beyond the limit).
pub fn normalize(terms: &mut Terms, t: TermId) -> Option<TermId> {
    normalize_all(terms, &[t], false)[0]
}

/// Roots per chunk of [`normalize_all`]: fixed, so that the terms built do not depend
/// on the thread count; large, so that a chunk spans whole rows (flash attention's
/// 16×16 output, two factors each, is 4 chunks: measured faster than 16 or 512).
const CHUNK: usize = 128;

/// Most chunks one call splits its roots into (a wide row's shared sum is converted
/// a bounded number of times); the chunk size is a function of the root count alone.
const MAX_CHUNKS: usize = 8;

/// Roots per chunk: larger where neighbouring roots share most of their sub-terms
/// (see `canon::neighbours_share`); a function of the roots alone.
fn chunk_size(terms: &Terms, roots: &[TermId]) -> usize {
    if roots.len() > CHUNK && super::canon::neighbours_share(terms, &roots[..1], &roots[1..2]) {
        CHUNK.max(roots.len().div_ceil(MAX_CHUNKS))
    } else {
        CHUNK
    }
}

/// [`normalize`] for each of `roots`; with `keep_exp`, the exponential factor common to
/// a sum's monomials stays in each of them (`Σ exp(x_j - m)`, not `exp(-m)·Σ exp(x_j)`).
/// Roots are converted in chunks (in parallel),
/// each chunk with one canonical-form cache: the sub-terms neighbouring elements share
/// (a row's max and sum) are converted and rebuilt once per chunk.
pub fn normalize_all(terms: &mut Terms, roots: &[TermId], keep_exp: bool) -> Vec<Option<TermId>> {
    let (at, distinct) = distinct_roots(roots);
    let chunks = convert_distinct(terms, &distinct, &[keep_exp]);
    let built = build_chunks(terms, chunks.iter().map(|c| &c[0]));
    spread(built, at)
}

/// [`normalize_all`] with `keep_exp`, and the same roots with `!keep_exp` rebuilt from
/// the same canonical forms but not yet written ([`Unbuilt::build`]): a caller that may
/// want both (synth's stall hook tries one, then the other) converts once. Written
/// later, the second gives the terms `normalize_all(roots, !keep_exp)` would give then:
/// the forms are a function of the roots alone, and nothing is written before `build`.
pub fn normalize_all_both(
    terms: &mut Terms,
    roots: &[TermId],
    keep_exp: bool,
) -> (Vec<Option<TermId>>, Unbuilt) {
    let (at, distinct) = distinct_roots(roots);
    let mut chunks = convert_distinct(terms, &distinct, &[keep_exp, !keep_exp]);
    let other: Vec<Rebuilt> = chunks
        .iter_mut()
        .map(|c| c.pop().expect("two rebuilds"))
        .collect();
    let built = build_chunks(terms, chunks.iter().map(|c| &c[0]));
    let first = spread(built, at.clone());
    (first, Unbuilt { chunks: other, at })
}

/// The second rebuild of [`normalize_all_both`], not yet written to the term store.
pub struct Unbuilt {
    chunks: Vec<Rebuilt>,
    at: Option<Vec<usize>>,
}

impl Unbuilt {
    /// The normalised terms, in the order of the roots given.
    pub fn build(self, terms: &mut Terms) -> Vec<Option<TermId>> {
        let built = build_chunks(terms, self.chunks.iter());
        spread(built, self.at)
    }
}

/// A chunk's expressions, with the atoms and exponentials they refer to.
type Rebuilt = (Vec<Option<Expr>>, Shared);

/// The distinct roots, each once (every element of a row has the row's sum as a
/// factor: a row's sum converted in every chunk would cost its canonical form once per
/// chunk), and each root's position among them where some repeat.
fn distinct_roots(roots: &[TermId]) -> (Option<Vec<usize>>, Vec<TermId>) {
    let mut first: rustc_hash::FxHashMap<TermId, usize> = Default::default();
    let mut distinct = Vec::new();
    let at: Vec<usize> = roots
        .iter()
        .map(|&t| {
            *first.entry(t).or_insert_with(|| {
                distinct.push(t);
                distinct.len() - 1
            })
        })
        .collect();
    ((distinct.len() < roots.len()).then_some(at), distinct)
}

/// Per root, its normal form among the distinct roots' `normal`.
fn spread(normal: Vec<Option<TermId>>, at: Option<Vec<usize>>) -> Vec<Option<TermId>> {
    match at {
        Some(at) => at.into_iter().map(|i| normal[i]).collect(),
        None => normal,
    }
}

/// Per chunk of the distinct `roots`, its expressions rebuilt once per entry of
/// `keep_exps`.
fn convert_distinct(terms: &Terms, roots: &[TermId], keep_exps: &[bool]) -> Vec<Vec<Rebuilt>> {
    use rayon::prelude::*;
    roots
        .par_chunks(chunk_size(terms, roots))
        .map(|chunk| convert_chunk(terms, chunk, keep_exps))
        .collect()
}

/// The terms of the chunks' expressions, in order.
fn build_chunks<'e>(
    terms: &mut Terms,
    chunks: impl Iterator<Item = &'e Rebuilt>,
) -> Vec<Option<TermId>> {
    let mut out = Vec::new();
    for (exprs, shared) in chunks {
        let mut built = Built::default();
        for e in exprs {
            out.push(e.as_ref().map(|e| build(terms, e, shared, &mut built)));
        }
    }
    out
}

/// `roots`' canonical forms, rebuilt as expressions once per entry of `keep_exps`.
fn convert_chunk(terms: &Terms, roots: &[TermId], keep_exps: &[bool]) -> Vec<Rebuilt> {
    let mut canon: Option<Canon> = None;
    let mut rfs = Vec::with_capacity(roots.len());
    let mut reached = Reached::default();
    for &t in roots {
        // Only the nodes new to this chunk: `next_pair` records facts of new nodes.
        let dag = Dag::new_since(terms, t, &mut reached);
        // Recorded even for a root with an infinity: a later root may share its nodes.
        let canon = match &mut canon {
            Some(c) => {
                c.next_pair(&dag);
                c
            }
            None => canon.insert(Canon::new(terms, &dag, 20_000)),
        };
        if dag.has_inf_nan {
            rfs.push(None);
            continue;
        }
        rfs.push(canon.convert(t).ok());
    }
    let Some(canon) = canon else {
        let none = || (roots.iter().map(|_| None).collect(), Shared::default());
        return keep_exps.iter().map(|_| none()).collect();
    };
    keep_exps
        .iter()
        .map(|&keep_exp| rebuild_chunk(&canon, &rfs, keep_exp))
        .collect()
}

/// The expressions of the canonical forms `rfs`, with every atom and exponential
/// reachable from them rebuilt once.
fn rebuild_chunk(canon: &Canon, rfs: &[Option<std::rc::Rc<Rf>>], keep_exp: bool) -> Rebuilt {
    let rebuild = Rebuild {
        canon,
        keep_exp,
        used: RefCell::new(Vec::new()),
        used_exps: RefCell::new(Vec::new()),
    };
    let exprs: Vec<Option<Expr>> = rfs
        .iter()
        .map(|rf| rf.as_ref().map(|rf| rebuild.rf(rf)))
        .collect();
    let mut shared = Shared::default();
    loop {
        let next = rebuild.used.borrow_mut().pop();
        if let Some(a) = next {
            shared
                .atoms
                .entry(a)
                .or_insert_with(|| rebuild.atom_expr(a));
            continue;
        }
        let next = rebuild.used_exps.borrow_mut().pop();
        let Some(x) = next else { break };
        if let std::collections::hash_map::Entry::Vacant(e) = shared.exps.entry(x) {
            let q = rebuild.poly(rebuild.canon.alg.exp_poly(x));
            e.insert(Expr::Call(Func::Exp, Box::new(q)));
        }
    }
    (exprs, shared)
}

/// The expressions of the atoms and exponentials that [`Expr::Atom`] and [`Expr::Exp`]
/// refer to.
#[derive(Default)]
struct Shared {
    atoms: HashMap<u32, Expr>,
    exps: HashMap<ExpId, Expr>,
}

/// Their terms, once built.
#[derive(Default)]
struct Built {
    atoms: HashMap<u32, TermId>,
    exps: HashMap<ExpId, TermId>,
}

fn build(terms: &mut Terms, e: &Expr, shared: &Shared, built: &mut Built) -> TermId {
    match e {
        Expr::Atom(a) => {
            if let Some(&t) = built.atoms.get(a) {
                return t;
            }
            let t = build(terms, &shared.atoms[a], shared, built);
            built.atoms.insert(*a, t);
            t
        }
        Expr::Exp(x) => {
            if let Some(&t) = built.exps.get(x) {
                return t;
            }
            let t = build(terms, &shared.exps[x], shared, built);
            built.exps.insert(*x, t);
            t
        }
        Expr::Term(t) => *t,
        Expr::Const(c) => terms.constant(c.clone()),
        Expr::Float(v) => terms.float(*v),
        Expr::Call(f, a) => {
            let a = build(terms, a, shared, built);
            terms.call(*f, a)
        }
        Expr::Max(v) | Expr::Min(v) | Expr::Sum(v) | Expr::Prod(v) => {
            let ops: Vec<TermId> = v.iter().map(|x| build(terms, x, shared, built)).collect();
            match e {
                Expr::Max(_) => terms.maxn(&ops),
                Expr::Min(_) => terms.minn(&ops),
                Expr::Sum(_) => terms.sum(&ops),
                _ => terms.product(&ops),
            }
        }
        Expr::Pow(a, k) => {
            let a = build(terms, a, shared, built);
            terms.powi(a, *k)
        }
    }
}

struct Rebuild<'a, 't> {
    canon: &'a Canon<'t>,
    keep_exp: bool,
    /// Atoms and exponentials referred to by the expressions built so far (worklists).
    used: RefCell<Vec<u32>>,
    used_exps: RefCell<Vec<ExpId>>,
}

impl Rebuild<'_, '_> {
    fn rf(&self, rf: &Rf) -> Expr {
        let n = self.poly(&rf.n);
        if rf.d.is_one() {
            return n;
        }
        let d = self.poly(&rf.d);
        Expr::Prod(vec![n, Expr::Pow(Box::new(d), -1)])
    }

    fn atom(&self, a: u32) -> Expr {
        self.used.borrow_mut().push(a);
        Expr::Atom(a)
    }

    fn atom_expr(&self, a: u32) -> Expr {
        match &self.canon.atoms[a as usize] {
            Atom::Leaf(t) => Expr::Term(*t),
            Atom::Ln2 => Expr::Call(
                Func::Log,
                Box::new(Expr::Const(BigRational::from_integer(2.into()))),
            ),
            Atom::Ln10 => Expr::Call(
                Func::Log,
                Box::new(Expr::Const(BigRational::from_integer(10.into()))),
            ),
            Atom::SqrtPi => Expr::Call(Func::Sqrt, Box::new(Expr::Float(std::f64::consts::PI))),
            Atom::Fn(f, arg) => Expr::Call(*f, Box::new(self.rf(self.canon.rf(*arg)))),
            Atom::Exp(arg) => Expr::Call(Func::Exp, Box::new(self.rf(self.canon.rf(*arg)))),
            Atom::Max(ops) => Expr::Max(ops.iter().map(|&o| self.rf(self.canon.rf(o))).collect()),
            Atom::Min(ops) => Expr::Min(ops.iter().map(|&o| self.rf(self.canon.rf(o))).collect()),
        }
    }

    /// `c · exp(q) · Π atoms`, without the factors in `skip_*`.
    fn mono(
        &self,
        m: &Mono,
        c: &BigRational,
        skip_exp: Option<&Poly>,
        skip: &[(u32, i32)],
    ) -> Expr {
        let mut f = Vec::new();
        if !c.is_one() {
            f.push(Expr::Const(c.clone()));
        }
        if m.exp != 0 {
            match skip_exp {
                Some(s) => {
                    let q = self.canon.alg.exp_poly(m.exp).add(&s.neg());
                    if !q.is_zero() {
                        f.push(Expr::Call(Func::Exp, Box::new(self.poly(&q))));
                    }
                }
                None => {
                    self.used_exps.borrow_mut().push(m.exp);
                    f.push(Expr::Exp(m.exp));
                }
            }
        }
        for &(a, e) in m.atoms.iter() {
            let e2 = e - skip.iter().find(|s| s.0 == a).map_or(0, |s| s.1);
            if e2 != 0 {
                let x = self.atom(a);
                f.push(if e2 == 1 {
                    x
                } else {
                    Expr::Pow(Box::new(x), e2)
                });
            }
        }
        match f.len() {
            0 => Expr::Const(BigRational::one()),
            1 => f.pop().expect("one factor"),
            _ => Expr::Prod(f),
        }
    }

    /// A sum of monomials with the common coefficient, atoms and exponential factor
    /// pulled out.
    fn poly(&self, p: &Poly) -> Expr {
        if p.is_zero() {
            return Expr::Const(BigRational::from_integer(0.into()));
        }
        if p.len() == 1 {
            let (m, c) = &p.0[0];
            return self.mono(m, c, None, &[]);
        }
        // Common |coefficient|.
        let c0 = p.0[0].1.abs();
        let coef = p.0.iter().all(|(_, c)| c.abs() == c0).then_some(c0);
        // Common atoms: the smallest exponent of the same sign in every monomial.
        let mut common: Vec<(u32, i32)> = p.0[0].0.atoms.to_vec();
        for (m, _) in &p.0[1..] {
            common = common
                .into_iter()
                .filter_map(|(a, e)| {
                    let &(_, e2) = m.atoms.iter().find(|x| x.0 == a)?;
                    (e.signum() == e2.signum())
                        .then(|| (a, if e > 0 { e.min(e2) } else { e.max(e2) }))
                })
                .collect();
        }
        // Common exponential part: the exponent monomials on which all agree.
        let mut cexp: Option<Poly> = None;
        if !self.keep_exp && p.0.iter().all(|(m, _)| m.exp != 0) {
            let mut v = self.canon.alg.exp_poly(p.0[0].0.exp).0.clone();
            for (m, _) in &p.0[1..] {
                let q = self.canon.alg.exp_poly(m.exp);
                v.retain(|(cm, cc)| {
                    q.0.binary_search_by(|(qm, _)| qm.cmp(cm))
                        .is_ok_and(|i| &q.0[i].1 == cc)
                });
            }
            if !v.is_empty() {
                cexp = Some(Poly(v));
            }
        }
        let inner: Vec<Expr> =
            p.0.iter()
                .map(|(m, c)| {
                    let c = match &coef {
                        Some(k) => c / k,
                        None => c.clone(),
                    };
                    self.mono(m, &c, cexp.as_ref(), &common)
                })
                .collect();
        let mut f = Vec::new();
        if let Some(k) = coef.filter(|k| !k.is_one()) {
            f.push(Expr::Const(k));
        }
        if let Some(q) = &cexp {
            f.push(Expr::Call(Func::Exp, Box::new(self.poly(q))));
        }
        for &(a, e) in &common {
            let x = self.atom(a);
            f.push(if e == 1 { x } else { Expr::Pow(Box::new(x), e) });
        }
        if f.is_empty() {
            return Expr::Sum(inner);
        }
        f.push(Expr::Sum(inner));
        Expr::Prod(f)
    }
}
