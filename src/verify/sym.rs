//! Integers over symbolic sizes and program ids, and conditions over them, with their
//! translation to Z3.
//!
//! Invariant: a [`Poly`] is in canonical form (monomials sorted, no zero coefficient),
//! so equal polynomials are equal values and print the same; everything that is not a
//! polynomial (floor division, modulo, min, max) is an [`Atom`] whose operands are
//! themselves canonical. Z3 sees exactly these definitions (`div`/`mod` are floor
//! division and remainder for the positive divisors we create), nothing else.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use z3::ast::{Ast, Bool, Int};

/// A variable or a non-polynomial operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Atom {
    /// A size (`M`), a program id (`pid_x`) or another named integer.
    Sym(Arc<str>),
    /// `floor(a / b)`, only built for `b > 0`.
    FloorDiv(Box<Poly>, Box<Poly>),
    /// `a - b·floor(a / b)`, only built for `b > 0`.
    Mod(Box<Poly>, Box<Poly>),
    Min(Box<Poly>, Box<Poly>),
    Max(Box<Poly>, Box<Poly>),
}

/// A monomial: atoms with their (positive) powers, sorted.
type Mono = Vec<(Atom, u32)>;

/// An integer polynomial with i128 coefficients over [`Atom`]s, canonical. Shared
/// behind an `Arc`: conditions and indices are copied far more often than built (a
/// guard's condition per summand piece, per lane).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Poly(Arc<BTreeMap<Mono, i128>>);

impl Poly {
    pub fn constant(c: i128) -> Poly {
        let mut m = BTreeMap::new();
        if c != 0 {
            m.insert(Vec::new(), c);
        }
        Poly(Arc::new(m))
    }

    pub fn sym(name: &str) -> Poly {
        Poly::atom(Atom::Sym(name.into()))
    }

    /// The symbol's name, when the polynomial is one symbol.
    pub fn as_sym(&self) -> Option<&str> {
        match self.0.iter().next() {
            Some((mono, 1)) if self.0.len() == 1 => match &mono[..] {
                [(Atom::Sym(s), 1)] => Some(s),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn atom(a: Atom) -> Poly {
        Poly(Arc::new(BTreeMap::from([(vec![(a, 1)], 1)])))
    }

    /// The value, when the polynomial is a constant.
    pub fn as_const(&self) -> Option<i128> {
        match self.0.len() {
            0 => Some(0),
            1 => self.0.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    /// The constant term (`3` of `N*pid_x + 3`).
    pub fn constant_term(&self) -> i128 {
        self.0.get(&Vec::new()).copied().unwrap_or(0)
    }

    pub fn add(&self, o: &Poly) -> Poly {
        if o.0.is_empty() {
            return self.clone();
        }
        let mut m = (*self.0).clone();
        for (k, c) in o.0.iter() {
            let e = m.entry(k.clone()).or_insert(0);
            *e += c;
            if *e == 0 {
                m.remove(k);
            }
        }
        Poly(Arc::new(m))
    }

    pub fn scale(&self, c: i128) -> Poly {
        if c == 0 {
            return Poly::default();
        }
        Poly(Arc::new(
            self.0.iter().map(|(k, v)| (k.clone(), v * c)).collect(),
        ))
    }

    pub fn neg(&self) -> Poly {
        self.scale(-1)
    }

    pub fn sub(&self, o: &Poly) -> Poly {
        self.add(&o.neg())
    }

    pub fn mul(&self, o: &Poly) -> Poly {
        let mut out = Poly::default();
        for (ka, ca) in self.0.iter() {
            for (kb, cb) in o.0.iter() {
                let mut mono: BTreeMap<Atom, u32> = ka.iter().cloned().collect();
                for (a, p) in kb {
                    *mono.entry(a.clone()).or_insert(0) += p;
                }
                let term = Poly(Arc::new(BTreeMap::from([(
                    mono.into_iter().collect(),
                    ca * cb,
                )])));
                out = out.add(&term);
            }
        }
        out
    }

    /// `floor(self / d)` for a divisor known positive: exact when every coefficient is
    /// divisible by a constant `d`, else an atom.
    pub fn floor_div(&self, d: &Poly) -> Poly {
        if let Some(c) = d.as_const() {
            if c == 1 {
                return self.clone();
            }
            if c > 0 && self.0.values().all(|v| v % c == 0) {
                return Poly(Arc::new(
                    self.0.iter().map(|(k, v)| (k.clone(), v / c)).collect(),
                ));
            }
            if let Some(a) = self.as_const() {
                return Poly::constant(a.div_euclid(c));
            }
            // `c·q + r` with a constant `r`: `q + r div c`, the monomials being
            // integers (a cdiv of a size that is a multiple, `(4·NT + 3) // 4 = NT`).
            if let Some((q, r)) = self.split_by(d) {
                if let Some(r) = r.as_const() {
                    return q.add(&Poly::constant(r.div_euclid(c)));
                }
            }
        }
        Poly::atom(Atom::FloorDiv(Box::new(self.clone()), Box::new(d.clone())))
    }

    /// `self mod d` for a divisor known positive.
    pub fn modulo(&self, d: &Poly) -> Poly {
        if let (Some(a), Some(c)) = (self.as_const(), d.as_const()) {
            if c > 0 {
                return Poly::constant(a.rem_euclid(c));
            }
        }
        // `c·q + r` with a constant `r`: `r mod c`.
        if let Some(c) = d.as_const().filter(|&c| c > 0) {
            if let Some((_, r)) = self.split_by(d) {
                if let Some(r) = r.as_const() {
                    return Poly::constant(r.rem_euclid(c));
                }
            }
        }
        if d.as_const() == Some(1) {
            return Poly::default();
        }
        Poly::atom(Atom::Mod(Box::new(self.clone()), Box::new(d.clone())))
    }

    pub fn min_with(&self, o: &Poly) -> Poly {
        match (self.as_const(), o.as_const()) {
            (Some(a), Some(b)) => Poly::constant(a.min(b)),
            _ if self == o => self.clone(),
            _ => Poly::atom(Atom::Min(Box::new(self.clone()), Box::new(o.clone()))),
        }
    }

    pub fn max_with(&self, o: &Poly) -> Poly {
        match (self.as_const(), o.as_const()) {
            (Some(a), Some(b)) => Poly::constant(a.max(b)),
            _ if self == o => self.clone(),
            _ => Poly::atom(Atom::Max(Box::new(self.clone()), Box::new(o.clone()))),
        }
    }

    /// Splits `self = q·d + r` syntactically for a divisor `d` that is one symbol or a
    /// positive constant: `q` collects the monomials that `d` divides. The caller
    /// proves `0 <= r < d` before reading `(q, r)` as a row-major index pair.
    pub fn split_by(&self, d: &Poly) -> Option<(Poly, Poly)> {
        let (mut q, mut r) = (BTreeMap::new(), BTreeMap::new());
        if let Some(c) = d.as_const() {
            if c <= 0 {
                return None;
            }
            for (k, v) in self.0.iter() {
                let (qv, rv) = if k.is_empty() {
                    (v.div_euclid(c), v.rem_euclid(c))
                } else if v % c == 0 {
                    (v / c, 0)
                } else {
                    (0, *v)
                };
                if qv != 0 {
                    q.insert(k.clone(), qv);
                }
                if rv != 0 {
                    r.insert(k.clone(), rv);
                }
            }
            return Some((Poly(Arc::new(q)), Poly(Arc::new(r))));
        }
        // A single monomial c·m: q takes the monomials that m divides with a
        // coefficient that c divides.
        let [(mono, &c)] = d.0.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        if c <= 0 {
            return None;
        }
        for (k, v) in self.0.iter() {
            let mut k2: BTreeMap<Atom, u32> = k.iter().cloned().collect();
            let divides = v % c == 0
                && mono
                    .iter()
                    .all(|(a, p)| k2.get(a).is_some_and(|have| have >= p));
            if divides {
                for (a, p) in mono {
                    let e = k2.get_mut(a).expect("checked");
                    *e -= p;
                    if *e == 0 {
                        k2.remove(a);
                    }
                }
                q.insert(k2.into_iter().collect(), v / c);
            } else {
                r.insert(k.clone(), *v);
            }
        }
        Some((Poly(Arc::new(q)), Poly(Arc::new(r))))
    }

    /// Its monomials, each as a polynomial with coefficient 1, with their coefficients
    /// (canonical order).
    pub fn terms(&self) -> Vec<(Poly, i128)> {
        let one = |k: &Mono| Poly(Arc::new(BTreeMap::from([(k.clone(), 1)])));
        self.0.iter().map(|(k, c)| (one(k), *c)).collect()
    }

    /// The names of the symbols it reads (inside atoms too).
    pub fn symbols(&self, out: &mut Vec<Arc<str>>) {
        for k in self.0.keys() {
            for (a, _) in k {
                a.symbols(out);
            }
        }
    }

    /// Whether the polynomial is non-negative by its form: non-negative coefficients
    /// over atoms that are (symbols `nonneg` vouches for, floors of non-negative
    /// values, remainders, which lie in `[0, b)`, and minima and maxima accordingly).
    pub fn nonneg_over(&self, nonneg: &dyn Fn(&str) -> bool) -> bool {
        self.0
            .iter()
            .all(|(k, c)| *c >= 0 && k.iter().all(|(a, _)| a.nonneg_over(nonneg)))
    }

    /// Substitutes concrete values for symbols (those missing stay).
    pub fn subst(&self, vals: &BTreeMap<Arc<str>, i128>) -> Poly {
        let mut out = Poly::default();
        for (k, c) in self.0.iter() {
            let mut t = Poly::constant(*c);
            for (a, p) in k {
                let v = a.subst(vals);
                for _ in 0..*p {
                    t = t.mul(&v);
                }
            }
            out = out.add(&t);
        }
        out
    }

    /// `self` with each top-level `min`/`max` atom replaced by the operand it picks,
    /// `le(a, b)` saying whether `a <= b` (`max(t, 0)` is `t` where `0 <= t`); `le` is
    /// asked once per atom, `(second, first)` for a max and `(first, second)` for a min.
    pub fn settle_extrema(&self, le: &mut dyn FnMut(&Poly, &Poly) -> bool) -> Poly {
        let mut out = Poly::default();
        for (k, c) in self.0.iter() {
            let mut t = Poly::constant(*c);
            for (a, p) in k {
                let v = match a {
                    Atom::Max(x, y) => (**if le(y, x) { x } else { y }).clone(),
                    Atom::Min(x, y) => (**if le(x, y) { x } else { y }).clone(),
                    _ => Poly::atom(a.clone()),
                };
                for _ in 0..*p {
                    t = t.mul(&v);
                }
            }
            out = out.add(&t);
        }
        out
    }
}

impl Atom {
    fn symbols(&self, out: &mut Vec<Arc<str>>) {
        match self {
            Atom::Sym(s) => {
                if !out.contains(s) {
                    out.push(s.clone())
                }
            }
            Atom::FloorDiv(a, b) | Atom::Mod(a, b) | Atom::Min(a, b) | Atom::Max(a, b) => {
                a.symbols(out);
                b.symbols(out);
            }
        }
    }

    fn nonneg_over(&self, nonneg: &dyn Fn(&str) -> bool) -> bool {
        match self {
            Atom::Sym(s) => nonneg(s),
            Atom::FloorDiv(a, _) => a.nonneg_over(nonneg),
            Atom::Mod(..) => true,
            Atom::Min(a, b) => a.nonneg_over(nonneg) && b.nonneg_over(nonneg),
            Atom::Max(a, b) => a.nonneg_over(nonneg) || b.nonneg_over(nonneg),
        }
    }

    fn subst(&self, vals: &BTreeMap<Arc<str>, i128>) -> Poly {
        match self {
            Atom::Sym(s) => match vals.get(s) {
                Some(v) => Poly::constant(*v),
                None => Poly::atom(self.clone()),
            },
            Atom::FloorDiv(a, b) => a.subst(vals).floor_div(&b.subst(vals)),
            Atom::Mod(a, b) => a.subst(vals).modulo(&b.subst(vals)),
            Atom::Min(a, b) => a.subst(vals).min_with(&b.subst(vals)),
            Atom::Max(a, b) => a.subst(vals).max_with(&b.subst(vals)),
        }
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Atom::Sym(s) => write!(f, "{s}"),
            Atom::FloorDiv(a, b) => write!(f, "({a}) // ({b})"),
            Atom::Mod(a, b) => write!(f, "({a}) % ({b})"),
            Atom::Min(a, b) => write!(f, "min({a}, {b})"),
            Atom::Max(a, b) => write!(f, "max({a}, {b})"),
        }
    }
}

impl fmt::Display for Poly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return write!(f, "0");
        }
        for (i, (k, c)) in self.0.iter().rev().enumerate() {
            let (sign, mag) = if *c < 0 { ("-", -c) } else { ("+", *c) };
            match (i, sign) {
                (0, "-") => write!(f, "-")?,
                (0, _) => {}
                _ => write!(f, " {sign} ")?,
            }
            if k.is_empty() {
                write!(f, "{mag}")?;
                continue;
            }
            if mag != 1 {
                write!(f, "{mag}*")?;
            }
            for (j, (a, p)) in k.iter().enumerate() {
                if j > 0 {
                    write!(f, "*")?;
                }
                write!(f, "{a}")?;
                if *p > 1 {
                    write!(f, "^{p}")?;
                }
            }
        }
        Ok(())
    }
}

/// Integer comparisons, as `arith.cmpi` predicates read over unbounded integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rel {
    Lt,
    Le,
    Eq,
    Ne,
}

/// A condition over symbolic integers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cond {
    Const(bool),
    /// `p rel 0`.
    Cmp(Rel, Poly),
    Not(Box<Cond>),
    And(Vec<Cond>),
    Or(Vec<Cond>),
}

impl Cond {
    /// `a rel b`, folded when `a - b` is a constant.
    pub fn cmp(rel: Rel, a: &Poly, b: &Poly) -> Cond {
        let d = a.sub(b);
        if let Some(c) = d.as_const() {
            return Cond::Const(match rel {
                Rel::Lt => c < 0,
                Rel::Le => c <= 0,
                Rel::Eq => c == 0,
                Rel::Ne => c != 0,
            });
        }
        Cond::Cmp(rel, d)
    }

    /// The truth value at integer values for the symbols (`None` when one is missing).
    pub fn eval(&self, vals: &BTreeMap<Arc<str>, i128>) -> Option<bool> {
        Some(match self {
            Cond::Const(b) => *b,
            Cond::Cmp(rel, p) => {
                let c = p.subst(vals).as_const()?;
                match rel {
                    Rel::Lt => c < 0,
                    Rel::Le => c <= 0,
                    Rel::Eq => c == 0,
                    Rel::Ne => c != 0,
                }
            }
            Cond::Not(c) => !c.eval(vals)?,
            Cond::And(cs) => {
                let mut all = true;
                for c in cs {
                    all &= c.eval(vals)?;
                }
                all
            }
            Cond::Or(cs) => {
                let mut any = false;
                for c in cs {
                    any |= c.eval(vals)?;
                }
                any
            }
        })
    }

    pub fn not(self) -> Cond {
        match self {
            Cond::Const(b) => Cond::Const(!b),
            Cond::Not(c) => *c,
            c => Cond::Not(Box::new(c)),
        }
    }

    pub fn and(a: Cond, b: Cond) -> Cond {
        match (a, b) {
            (Cond::Const(false), _) | (_, Cond::Const(false)) => Cond::Const(false),
            (Cond::Const(true), c) | (c, Cond::Const(true)) => c,
            (a, b) if a == b => a,
            (a, b) => Cond::And(vec![a, b]),
        }
    }

    pub fn or(a: Cond, b: Cond) -> Cond {
        match (a, b) {
            (Cond::Const(true), _) | (_, Cond::Const(true)) => Cond::Const(true),
            (Cond::Const(false), c) | (c, Cond::Const(false)) => c,
            (a, b) if a == b => a,
            (a, b) => Cond::Or(vec![a, b]),
        }
    }

    pub fn as_const(&self) -> Option<bool> {
        match self {
            Cond::Const(b) => Some(*b),
            _ => None,
        }
    }

    /// The symbols the condition mentions (with repeats).
    pub fn symbols(&self, out: &mut Vec<Arc<str>>) {
        match self {
            Cond::Const(_) => {}
            Cond::Cmp(_, p) => p.symbols(out),
            Cond::Not(c) => c.symbols(out),
            Cond::And(cs) | Cond::Or(cs) => cs.iter().for_each(|c| c.symbols(out)),
        }
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::Const(b) => write!(f, "{b}"),
            Cond::Cmp(rel, p) => {
                let r = match rel {
                    Rel::Lt => "<",
                    Rel::Le => "<=",
                    Rel::Eq => "==",
                    Rel::Ne => "!=",
                };
                write!(f, "{p} {r} 0")
            }
            Cond::Not(c) => write!(f, "!({c})"),
            Cond::And(cs) | Cond::Or(cs) => {
                let op = if matches!(self, Cond::And(_)) {
                    " && "
                } else {
                    " || "
                };
                for (i, c) in cs.iter().enumerate() {
                    if i > 0 {
                        write!(f, "{op}")?;
                    }
                    write!(f, "({c})")?;
                }
                Ok(())
            }
        }
    }
}

/// Translation to Z3 in one context.
pub struct Smt<'ctx> {
    pub ctx: &'ctx z3::Context,
}

impl<'ctx> Smt<'ctx> {
    /// Whether `c` follows from `solver`'s assertions (an unknown answer is "no").
    pub fn holds(&self, solver: &z3::Solver<'ctx>, c: &Cond) -> bool {
        if let Some(b) = c.as_const() {
            return b;
        }
        solver.push();
        solver.assert(&self.cond(c).not());
        let r = solver.check() == z3::SatResult::Unsat;
        solver.pop(1);
        r
    }

    pub fn int(&self, p: &Poly) -> Int<'ctx> {
        let mut terms: Vec<Int<'ctx>> = Vec::new();
        for (k, c) in p.0.iter() {
            let mut factors: Vec<Int<'ctx>> = Vec::new();
            if *c != 1 || k.is_empty() {
                factors.push(self.big(*c));
            }
            for (a, pow) in k {
                let x = self.atom(a);
                for _ in 0..*pow {
                    factors.push(x.clone());
                }
            }
            if factors.len() == 1 {
                terms.push(factors.pop().expect("one factor"));
                continue;
            }
            let refs: Vec<&Int<'ctx>> = factors.iter().collect();
            terms.push(Int::mul(self.ctx, &refs));
        }
        match terms.len() {
            0 => return Int::from_i64(self.ctx, 0),
            1 => return terms.pop().expect("one term"),
            _ => {}
        }
        let refs: Vec<&Int<'ctx>> = terms.iter().collect();
        Int::add(self.ctx, &refs)
    }

    fn big(&self, c: i128) -> Int<'ctx> {
        match i64::try_from(c) {
            Ok(v) => Int::from_i64(self.ctx, v),
            Err(_) => Int::from_str(self.ctx, &c.to_string()).expect("integer literal"),
        }
    }

    fn atom(&self, a: &Atom) -> Int<'ctx> {
        match a {
            Atom::Sym(s) => Int::new_const(self.ctx, &**s),
            Atom::FloorDiv(x, y) => self.int(x).div(&self.int(y)),
            Atom::Mod(x, y) => self.int(x).modulo(&self.int(y)),
            Atom::Min(x, y) => {
                let (x, y) = (self.int(x), self.int(y));
                x.le(&y).ite(&x, &y)
            }
            Atom::Max(x, y) => {
                let (x, y) = (self.int(x), self.int(y));
                x.ge(&y).ite(&x, &y)
            }
        }
    }

    pub fn cond(&self, c: &Cond) -> Bool<'ctx> {
        match c {
            Cond::Const(b) => Bool::from_bool(self.ctx, *b),
            Cond::Cmp(rel, p) => {
                let x = self.int(p);
                let z = Int::from_i64(self.ctx, 0);
                match rel {
                    Rel::Lt => x.lt(&z),
                    Rel::Le => x.le(&z),
                    Rel::Eq => x._eq(&z),
                    Rel::Ne => x._eq(&z).not(),
                }
            }
            Cond::Not(c) => self.cond(c).not(),
            Cond::And(cs) => {
                let v: Vec<Bool<'ctx>> = cs.iter().map(|c| self.cond(c)).collect();
                let r: Vec<&Bool<'ctx>> = v.iter().collect();
                Bool::and(self.ctx, &r)
            }
            Cond::Or(cs) => {
                let v: Vec<Bool<'ctx>> = cs.iter().map(|c| self.cond(c)).collect();
                let r: Vec<&Bool<'ctx>> = v.iter().collect();
                Bool::or(self.ctx, &r)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polynomials_are_canonical() {
        let (n, p) = (Poly::sym("N"), Poly::sym("pid_x"));
        let a = p.mul(&n).add(&Poly::constant(3));
        let b = Poly::constant(3).add(&n.mul(&p));
        assert_eq!(a, b);
        assert_eq!(a.to_string(), b.to_string());
        assert_eq!(a.sub(&b), Poly::default());
        let (q, r) = a.split_by(&n).unwrap();
        assert_eq!((q, r), (p.clone(), Poly::constant(3)));
        let e = p.scale(8).add(&Poly::constant(5));
        assert_eq!(
            e.split_by(&Poly::constant(8)).unwrap(),
            (p, Poly::constant(5))
        );
        assert_eq!(Cond::cmp(Rel::Lt, &a, &b), Cond::Const(false));
    }

    /// Floors and remainders by a constant that reduce by form (`(4·N + 3) // 4 = N`)
    /// agree with integer division at every value, negative constants included; the
    /// others stay atoms.
    #[test]
    fn floor_and_mod_by_a_constant_agree_with_integer_division() {
        let n = Poly::sym("N");
        for (k, r) in [(4, 3), (4, 5), (4, -1), (4, -7), (3, 0), (6, 11)] {
            let e = n.scale(k).add(&Poly::constant(r));
            let (q, m) = (
                e.floor_div(&Poly::constant(4)),
                e.modulo(&Poly::constant(4)),
            );
            // Reduced by form exactly where 4 divides the coefficient of N.
            let reduced = k % 4 == 0;
            assert_eq!(!reduced, q.to_string().contains("//"), "{e} // 4 = {q}");
            for v in -9..=9i128 {
                let vals: BTreeMap<Arc<str>, i128> = [(Arc::from("N"), v)].into();
                let x = k * v + r;
                assert_eq!(
                    q.subst(&vals).as_const(),
                    Some(x.div_euclid(4)),
                    "{e} // 4 at N={v}"
                );
                assert_eq!(
                    m.subst(&vals).as_const(),
                    Some(x.rem_euclid(4)),
                    "{e} % 4 at N={v}"
                );
            }
        }
    }

    #[test]
    fn z3_reads_the_definitions() {
        let ctx = z3::Context::new(&z3::Config::new());
        let smt = Smt { ctx: &ctx };
        let s = z3::Solver::new(&ctx);
        let n = Poly::sym("N");
        // cdiv(N, 4)·4 >= N for N >= 1: provable, so its negation is unsat.
        let c = n
            .add(&Poly::constant(3))
            .floor_div(&Poly::constant(4))
            .scale(4);
        s.assert(&smt.cond(&Cond::cmp(Rel::Le, &Poly::constant(1), &n)));
        s.assert(&smt.cond(&Cond::cmp(Rel::Lt, &c, &n)));
        assert_eq!(s.check(), z3::SatResult::Unsat);
    }

    /// Some conditions over floors, remainders, minima and maxima of sizes.
    fn sample_conds() -> Vec<Cond> {
        let (m, n) = (Poly::sym("M"), Poly::sym("N"));
        let four = Poly::constant(4);
        vec![
            Cond::cmp(Rel::Lt, &n.floor_div(&four).scale(4), &n),
            Cond::cmp(Rel::Le, &m.modulo(&n), &Poly::constant(2)),
            Cond::cmp(
                Rel::Eq,
                &m.min_with(&n),
                &m.max_with(&n).sub(&Poly::constant(1)),
            ),
            Cond::and(
                Cond::cmp(Rel::Ne, &m.mul(&n), &Poly::constant(6)),
                Cond::cmp(Rel::Lt, &m, &n).not(),
            ),
            Cond::or(
                Cond::cmp(Rel::Lt, &m.add(&n).modulo(&four), &Poly::constant(1)),
                Cond::cmp(Rel::Eq, &m, &Poly::constant(3)),
            ),
        ]
    }

    #[test]
    fn eval_agrees_with_z3() {
        let ctx = z3::Context::new(&z3::Config::new());
        let smt = Smt { ctx: &ctx };
        for c in sample_conds() {
            for m in 1..7 {
                for n in 1..7 {
                    let vals = BTreeMap::from([(Arc::from("M"), m), (Arc::from("N"), n)]);
                    let s = z3::Solver::new(&ctx);
                    let pin = |x: &str, v| Cond::cmp(Rel::Eq, &Poly::sym(x), &Poly::constant(v));
                    s.assert(&smt.cond(&pin("M", m)));
                    s.assert(&smt.cond(&pin("N", n)));
                    let z3_says = smt.holds(&s, &c);
                    assert_eq!(c.eval(&vals), Some(z3_says), "{c} at M={m}, N={n}");
                }
            }
            // A missing symbol leaves the value unknown.
            assert_eq!(c.eval(&BTreeMap::new()), None, "{c}");
        }
    }

    #[test]
    fn nonneg_by_form_is_proved_by_z3() {
        let ctx = z3::Context::new(&z3::Config::new());
        let smt = Smt { ctx: &ctx };
        let (m, n, x) = (Poly::sym("M"), Poly::sym("N"), Poly::sym("x"));
        let sizes = |s: &str| s == "M" || s == "N";
        let s = z3::Solver::new(&ctx);
        for v in ["M", "N"] {
            s.assert(&smt.cond(&Cond::cmp(Rel::Le, &Poly::constant(1), &Poly::sym(v))));
        }
        let zero = Poly::default();
        let yes = [
            m.mul(&n).scale(3).add(&Poly::constant(2)),
            m.sub(&n).modulo(&Poly::constant(4)),
            m.floor_div(&n).add(&x.modulo(&n)),
            x.max_with(&m),
            m.min_with(&n.scale(2)),
        ];
        for p in &yes {
            assert!(p.nonneg_over(&sizes), "{p} should be non-negative by form");
            assert!(smt.holds(&s, &Cond::cmp(Rel::Le, &zero, p)), "{p}");
        }
        // Not by form: a negative coefficient, a symbol of unknown sign.
        for p in [
            m.sub(&Poly::constant(1)),
            x.clone(),
            x.min_with(&m),
            m.sub(&n).floor_div(&n),
        ] {
            assert!(!p.nonneg_over(&sizes), "{p} is not non-negative by form");
        }
    }
}
