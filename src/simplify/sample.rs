//! Herbie-style checking of the rule files: both sides of every `rewrite` are
//! evaluated at random points (pattern variables bound to random 3×3 tensors, numbers,
//! axes and flags) and must agree wherever both are defined; every guard `rule`'s
//! conclusion must hold of the values wherever its facts hold. A guarded rule is sampled
//! inside its guards only: `scalar-like v` binds a scalar, `const-along v ax` a tensor
//! of extent 1 along `ax`, `rank v n` binds `n` (2), `(= q c)` binds `q` to `c`, and a
//! comparison rejects the points outside it. A variable a gather reads as its index
//! (`(Take x t ax)`, the labels of `CrossEntropy`/`NllLoss`) binds an integer label
//! vector of 3 elements taking the values -2..=3 (in range, outside it, and the
//! ignored values the rules' constants can take).
//!
//! Invariant: deterministic (a fixed seed, a fixed generator); the meaning of both
//! sides is [`super::Named::expand`] evaluated by the term evaluator, the same
//! semantics every other part of lift uses.

use super::lang;
use super::Rules;
use crate::formula::{Formula, ShapeEnv};
use egglog::ast::Literal;
use egglog::{TermDag, TermId};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::Zero;
use std::collections::BTreeMap;

/// An s-expression of a rule file.
#[derive(Clone, Debug, PartialEq)]
pub enum Sexp {
    Atom(String),
    Str(String),
    List(Vec<Sexp>),
}

/// The s-expressions of `text` (`;` comments dropped); `None` on unbalanced parentheses.
pub fn parse(text: &str) -> Option<Vec<Sexp>> {
    let mut stack: Vec<Vec<Sexp>> = vec![Vec::new()];
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ';' => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
            }
            '(' => stack.push(Vec::new()),
            ')' => {
                let list = stack.pop()?;
                stack.last_mut()?.push(Sexp::List(list));
            }
            '"' => {
                let mut s = String::new();
                for d in chars.by_ref() {
                    if d == '"' {
                        break;
                    }
                    s.push(d);
                }
                stack.last_mut()?.push(Sexp::Str(s));
            }
            c if c.is_whitespace() => {}
            c => {
                let mut s = c.to_string();
                while let Some(&d) = chars.peek() {
                    if d.is_whitespace() || d == '(' || d == ')' || d == ';' {
                        break;
                    }
                    s.push(d);
                    chars.next();
                }
                stack.last_mut()?.push(Sexp::Atom(s));
            }
        }
    }
    (stack.len() == 1).then(|| stack.pop()).flatten()
}

/// One `rewrite` of a rule file.
#[derive(Clone, Debug)]
pub struct Rewrite {
    pub file: String,
    pub lhs: Sexp,
    pub rhs: Sexp,
    pub guards: Vec<Sexp>,
}

/// What sampling one rewrite found.
#[derive(Clone, Debug)]
pub struct Report {
    pub rule: String,
    /// Points where both sides were defined (finite).
    pub defined: usize,
    /// The first point where the sides differ: what each side gave.
    pub disagreement: Option<String>,
}

/// The constructors of `(datatype Expr ...)` and their argument sorts.
pub fn constructors(rules: &Rules) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for f in &rules.files {
        for item in parse(&f.text).unwrap_or_default() {
            let Sexp::List(items) = item else { continue };
            if items.first() != Some(&Sexp::Atom("datatype".into())) {
                continue;
            }
            for v in &items[2..] {
                let Sexp::List(parts) = v else { continue };
                let Some(Sexp::Atom(name)) = parts.first() else {
                    continue;
                };
                let sorts = parts[1..]
                    .iter()
                    .take_while(|p| !matches!(p, Sexp::Atom(a) if a.starts_with(':')))
                    .filter_map(|p| match p {
                        Sexp::Atom(a) => Some(a.clone()),
                        _ => None,
                    })
                    .collect();
                out.insert(name.clone(), sorts);
            }
        }
    }
    out
}

/// Every `rewrite` (a `birewrite` gives both directions) of `rules`.
pub fn rewrites(rules: &Rules) -> Result<Vec<Rewrite>, String> {
    let mut out = Vec::new();
    for f in &rules.files {
        let items = parse(&f.text).ok_or_else(|| format!("{}: unbalanced parentheses", f.name))?;
        for item in items {
            let Sexp::List(parts) = item else { continue };
            let both = match parts.first() {
                Some(Sexp::Atom(h)) if h == "rewrite" => false,
                Some(Sexp::Atom(h)) if h == "birewrite" => true,
                _ => continue,
            };
            let (Some(lhs), Some(rhs)) = (parts.get(1), parts.get(2)) else {
                return Err(format!("{}: a rewrite needs two sides", f.name));
            };
            let mut guards = Vec::new();
            for w in parts[3..].windows(2) {
                if let (Sexp::Atom(k), Sexp::List(g)) = (&w[0], &w[1]) {
                    if k == ":when" {
                        guards = g.clone();
                    }
                }
            }
            let r = Rewrite {
                file: f.name.clone(),
                lhs: lhs.clone(),
                rhs: rhs.clone(),
                guards: guards.clone(),
            };
            if both {
                out.push(Rewrite {
                    lhs: rhs.clone(),
                    rhs: lhs.clone(),
                    ..r.clone()
                });
            }
            out.push(r);
        }
    }
    Ok(out)
}

/// SplitMix64: a fixed, seedable generator (no dependency, same numbers everywhere).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [-2, 2).
    fn real(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
    }
    /// A small rational p/8, p in -16..16.
    fn rational(&mut self) -> BigRational {
        let p = (self.next() % 33) as i64 - 16;
        BigRational::new(BigInt::from(p), BigInt::from(8))
    }
}

/// A value a pattern evaluates to.
#[derive(Clone, Debug)]
enum Val {
    Term(TermId),
    Int(i64),
    Bool(bool),
    Rat(BigRational),
    Str(String),
}

/// The bindings of one point, and how to build terms under them.
struct Point<'a> {
    ctors: &'a BTreeMap<String, Vec<String>>,
    vars: BTreeMap<String, Val>,
    dag: TermDag,
    leaves: Vec<Formula>,
    env: ShapeEnv,
    /// Varies the inputs' values from point to point.
    salt: u64,
    /// The variables bound to integer label vectors (see the module documentation).
    labels: Vec<String>,
}

/// The values a label vector's elements take.
const LABEL_VALUES: [i64; 6] = [-2, -1, 0, 1, 2, 3];

/// The variables `e` uses as a gather's labels (the second operand of `Take`,
/// `CrossEntropy`, `NllLoss`).
fn label_variables(e: &Sexp, out: &mut Vec<String>) {
    let Sexp::List(items) = e else { return };
    if let [Sexp::Atom(h), _, Sexp::Atom(t), ..] = items.as_slice() {
        if ["Take", "CrossEntropy", "NllLoss"].contains(&h.as_str())
            && is_variable(t)
            && !out.contains(t)
        {
            out.push(t.clone());
        }
    }
    items.iter().for_each(|i| label_variables(i, out));
}

impl Point<'_> {
    fn term(&mut self, v: Val) -> TermId {
        match v {
            Val::Term(t) => t,
            Val::Int(i) => self.dag.lit(Literal::Int(i)),
            Val::Bool(b) => self.dag.lit(Literal::Bool(b)),
            Val::Str(s) => self.dag.lit(Literal::String(s)),
            Val::Rat(q) => {
                let p = self.dag.lit(Literal::String(q.numer().to_string()));
                let d = self.dag.lit(Literal::String(q.denom().to_string()));
                let p = self.dag.app("from-string".into(), vec![p]);
                let d = self.dag.app("from-string".into(), vec![d]);
                self.dag.app("bigrat".into(), vec![p, d])
            }
        }
    }

    /// `e` under the bindings; `None` for an unbound name or a primitive it lacks.
    fn eval(&mut self, e: &Sexp) -> Option<Val> {
        match e {
            Sexp::Str(s) => Some(Val::Str(s.clone())),
            Sexp::Atom(a) => match a.as_str() {
                "true" => Some(Val::Bool(true)),
                "false" => Some(Val::Bool(false)),
                _ => match a.parse::<i64>() {
                    Ok(i) => Some(Val::Int(i)),
                    Err(_) => self.vars.get(a).cloned(),
                },
            },
            Sexp::List(items) => {
                let Some(Sexp::Atom(head)) = items.first() else {
                    return None;
                };
                let args: Vec<Val> = items[1..]
                    .iter()
                    .map(|a| self.eval(a))
                    .collect::<Option<_>>()?;
                if self.ctors.contains_key(head) {
                    let kids = args.into_iter().map(|a| self.term(a)).collect();
                    return Some(Val::Term(self.dag.app(head.clone(), kids)));
                }
                primitive(head, &args)
            }
        }
    }

    /// The shape and value (row-major) of the term `t` as a formula, at the inputs'
    /// random values.
    fn value(&self, t: TermId) -> Option<(Vec<usize>, Vec<f64>)> {
        let f = lang::decode(&self.dag, t, &self.leaves).ok()?.expand();
        let mut terms = crate::term::Terms::new();
        self.env.declare_int_values(&mut terms);
        let ids = f.instantiate(&mut terms, &self.env).ok()?;
        Some((
            f.shape(&self.env).ok()?,
            ids.iter()
                .map(|id| {
                    let input = |n: &str, i: &[i64]| {
                        let v = input_value(self.salt, n, i);
                        if self.labels.iter().any(|l| l == n) {
                            // -2..=3 from the value's position in [-2, 2)
                            let k = ((v + 2.0) * 1.5).floor() as usize;
                            LABEL_VALUES[k.min(LABEL_VALUES.len() - 1)] as f64
                        } else {
                            v
                        }
                    };
                    terms.eval(*id, &input, &|n| input_value(self.salt, n, &[]))
                })
                .collect(),
        ))
    }
}

/// The value of input `name` at `index` (a scalar's index is empty) at the point
/// `salt`: a hash of the three, in [-2, 2).
fn input_value(salt: u64, name: &str, index: &[i64]) -> f64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ salt;
    for b in name
        .bytes()
        .chain(index.iter().flat_map(|i| i.to_le_bytes()))
    {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    Rng(h).real()
}

fn primitive(head: &str, args: &[Val]) -> Option<Val> {
    use Val::*;
    Some(match (head, args) {
        ("bigint", [Int(i)]) => Rat(BigRational::from_integer(BigInt::from(*i))),
        ("from-string", [Str(s)]) => Rat(BigRational::from_integer(s.parse().ok()?)),
        ("bigrat", [Rat(p), Rat(q)]) if !q.is_zero() => Rat(p / q),
        ("neg", [Rat(p)]) => Rat(-p),
        ("+", [Rat(p), Rat(q)]) => Rat(p + q),
        ("-", [Rat(p), Rat(q)]) => Rat(p - q),
        ("*", [Rat(p), Rat(q)]) => Rat(p * q),
        ("/", [Rat(p), Rat(q)]) if !q.is_zero() => Rat(p / q),
        ("+", [Int(p), Int(q)]) => Int(p + q),
        ("-", [Int(p), Int(q)]) => Int(p - q),
        _ => return None,
    })
}

/// The pattern variables of `e` with their sorts (by the constructor argument they fill).
fn variables(e: &Sexp, ctors: &BTreeMap<String, Vec<String>>, out: &mut BTreeMap<String, String>) {
    let Sexp::List(items) = e else { return };
    let Some(Sexp::Atom(head)) = items.first() else {
        return;
    };
    let sorts = match head.as_str() {
        "scalar-like" => vec!["Expr".to_string()],
        "const-along" | "rank" => vec!["Expr".to_string(), "i64".to_string()],
        h => ctors.get(h).cloned().unwrap_or_default(),
    };
    for (k, a) in items[1..].iter().enumerate() {
        match a {
            Sexp::Atom(v) if is_variable(v) => {
                if let Some(s) = sorts.get(k) {
                    out.entry(v.clone()).or_insert_with(|| s.clone());
                }
            }
            _ => variables(a, ctors, out),
        }
    }
}

fn is_variable(a: &str) -> bool {
    a.starts_with(|c: char| c.is_ascii_lowercase()) && a != "true" && a != "false"
}

/// Samples `rule` at `points` random points from `seed`.
pub fn sample(rule: &Rewrite, rules: &Rules, points: usize, seed: u64) -> Report {
    let ctors = constructors(rules);
    let mut sorts = BTreeMap::new();
    variables(&rule.lhs, &ctors, &mut sorts);
    variables(&rule.rhs, &ctors, &mut sorts);
    for g in &rule.guards {
        variables(g, &ctors, &mut sorts);
    }
    let text = format!("{}: {:?} => {:?}", rule.file, rule.lhs, rule.rhs);
    let mut report = Report {
        rule: text,
        defined: 0,
        disagreement: None,
    };
    let mut labels = Vec::new();
    label_variables(&rule.lhs, &mut labels);
    label_variables(&rule.rhs, &mut labels);
    let mut rng = Rng(seed);
    for _ in 0..points {
        let Some(mut p) = bind(&sorts, &rule.guards, &ctors, &labels, &mut rng) else {
            continue;
        };
        let (Some(Val::Term(l)), Some(Val::Term(r))) = (p.eval(&rule.lhs), p.eval(&rule.rhs))
        else {
            continue;
        };
        let (Some((sa, a)), Some((sb, b))) = (p.value(l), p.value(r)) else {
            report.disagreement = Some("a side does not type-check at this point".into());
            return report;
        };
        if sa != sb {
            report.disagreement = Some(format!("shapes differ: {sa:?} vs {sb:?}"));
            return report;
        }
        if a.iter().chain(&b).any(|v| !v.is_finite()) {
            continue;
        }
        report.defined += 1;
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * (1.0 + x.abs().max(y.abs()));
        if let Some((x, y)) = a.iter().zip(&b).find(|(x, y)| !close(**x, **y)) {
            report.disagreement = Some(format!("{x} vs {y} at {:?}", p.vars));
            return report;
        }
    }
    report
}

/// One guard rule, `(rule (facts) ((relation e ..)))`: where the facts hold, the
/// relation holds.
#[derive(Clone, Debug)]
pub struct Derivation {
    pub file: String,
    pub facts: Vec<Sexp>,
    pub conclusion: Sexp,
}

/// Every `rule` of `rules` that concludes one guard relation (`scalar-like`,
/// `const-along`).
pub fn derivations(rules: &Rules) -> Result<Vec<Derivation>, String> {
    let mut out = Vec::new();
    for f in &rules.files {
        let items = parse(&f.text).ok_or_else(|| format!("{}: unbalanced parentheses", f.name))?;
        for item in items {
            let Sexp::List(parts) = item else { continue };
            if parts.first() != Some(&Sexp::Atom("rule".into())) {
                continue;
            }
            let (Some(Sexp::List(facts)), Some(Sexp::List(actions))) = (parts.get(1), parts.get(2))
            else {
                return Err(format!("{}: a rule needs facts and actions", f.name));
            };
            for a in actions {
                out.push(Derivation {
                    file: f.name.clone(),
                    facts: facts.clone(),
                    conclusion: a.clone(),
                });
            }
        }
    }
    Ok(out)
}

/// Samples `rule` at `points` random points from `seed`: its conclusion must hold of
/// the values wherever its facts hold (`scalar-like`: every element equal;
/// `const-along e ax`: equal along `ax`).
pub fn sample_derivation(rule: &Derivation, rules: &Rules, points: usize, seed: u64) -> Report {
    let ctors = constructors(rules);
    let mut sorts = BTreeMap::new();
    for g in rule.facts.iter().chain([&rule.conclusion]) {
        variables(g, &ctors, &mut sorts);
    }
    let mut report = Report {
        rule: format!("{}: {:?} => {:?}", rule.file, rule.facts, rule.conclusion),
        defined: 0,
        disagreement: None,
    };
    let Sexp::List(c) = &rule.conclusion else {
        report.disagreement = Some("the conclusion is no relation".into());
        return report;
    };
    let mut rng = Rng(seed);
    for _ in 0..points {
        let Some(mut p) = bind(&sorts, &rule.facts, &ctors, &[], &mut rng) else {
            continue;
        };
        let (axis, e) = match c.as_slice() {
            [Sexp::Atom(h), e] if h == "scalar-like" => (None, e),
            [Sexp::Atom(h), e, ax] if h == "const-along" => match p.eval(ax) {
                Some(Val::Int(a)) => (usize::try_from(a).ok(), e),
                _ => continue,
            },
            _ => {
                report.disagreement = Some(format!("unknown relation {c:?}"));
                return report;
            }
        };
        let Some(Val::Term(t)) = p.eval(e) else {
            continue;
        };
        let Some((shape, v)) = p.value(t) else {
            report.disagreement = Some("the term does not type-check at this point".into());
            return report;
        };
        if v.iter().any(|x| !x.is_finite()) {
            continue;
        }
        report.defined += 1;
        let holds = match axis {
            None => v.windows(2).all(|w| w[0] == w[1]),
            Some(ax) => constant_along(&shape, &v, ax),
        };
        if !holds {
            report.disagreement = Some(format!("{c:?} fails: {shape:?} {v:?}"));
            return report;
        }
    }
    report
}

/// Whether `v` (row-major, of `shape`) is the same at every index along `axis`. A
/// number is constant along every axis; a tensor without that axis is not (NumPy's
/// broadcasting would align its axes elsewhere).
fn constant_along(shape: &[usize], v: &[f64], axis: usize) -> bool {
    if axis >= shape.len() {
        return shape.is_empty();
    }
    let stride: usize = shape[axis + 1..].iter().product();
    (0..v.len()).all(|i| {
        let k = (i / stride) % shape[axis];
        v[i] == v[i - k * stride]
    })
}

/// Random bindings of `sorts` inside `guards`; `None` when the point falls outside.
fn bind<'a>(
    sorts: &BTreeMap<String, String>,
    guards: &[Sexp],
    ctors: &'a BTreeMap<String, Vec<String>>,
    labels: &[String],
    rng: &mut Rng,
) -> Option<Point<'a>> {
    let mut p = Point {
        ctors,
        vars: BTreeMap::new(),
        dag: TermDag::default(),
        leaves: Vec::new(),
        env: ShapeEnv::new(),
        salt: rng.next(),
        labels: labels.to_vec(),
    };
    // What the guards ask of each variable.
    let mut scalar = Vec::new();
    let mut along: BTreeMap<String, Sexp> = BTreeMap::new();
    for g in guards {
        let Sexp::List(items) = g else { continue };
        match items.as_slice() {
            [Sexp::Atom(h), Sexp::Atom(v)] if h == "scalar-like" => scalar.push(v.clone()),
            [Sexp::Atom(h), Sexp::Atom(v), ax] if h == "const-along" => {
                along.insert(v.clone(), ax.clone());
            }
            [Sexp::Atom(h), _, Sexp::Atom(n)] if h == "rank" => {
                p.vars.insert(n.clone(), Val::Int(2));
            }
            _ => {}
        }
    }
    // Axes and flags first (a const-along guard names an axis).
    for (v, s) in sorts {
        let val = match s.as_str() {
            "i64" if !p.vars.contains_key(v) => Val::Int((rng.next() % 2) as i64),
            "bool" => Val::Bool(rng.next().is_multiple_of(2)),
            "BigRat" => Val::Rat(rng.rational()),
            // a name: a scalar parameter of that name
            "String" => {
                let name = format!("{v}_param");
                p.env = std::mem::take(&mut p.env).scalar(&name);
                Val::Str(name)
            }
            _ => continue,
        };
        p.vars.insert(v.clone(), val);
    }
    for (v, s) in sorts {
        if s != "Expr" {
            continue;
        }
        let leaf = if scalar.contains(v) {
            p.env = std::mem::take(&mut p.env).scalar(v);
            Formula::scalar(v)
        } else if labels.contains(v) {
            p.env = std::mem::take(&mut p.env).tensor(v, &[3]);
            p.env.int_values.insert(v.clone(), LABEL_VALUES.to_vec());
            Formula::input(v)
        } else {
            let mut shape = vec![3usize, 3];
            if let Some(ax) = along.get(v) {
                let Some(Val::Int(a)) = p.eval(ax) else {
                    return None;
                };
                *shape.get_mut(usize::try_from(a).ok()?)? = 1;
            }
            p.env = std::mem::take(&mut p.env).tensor(v, &shape);
            Formula::input(v)
        };
        p.leaves.push(leaf);
        let k = p.dag.lit(Literal::Int(p.leaves.len() as i64 - 1));
        let t = p.dag.app("Leaf".into(), vec![k]);
        p.vars.insert(v.clone(), Val::Term(t));
    }
    // Equalities bind; comparisons filter.
    for g in guards {
        let Sexp::List(items) = g else { continue };
        match items.as_slice() {
            [Sexp::Atom(h), Sexp::Atom(v), e] if h == "=" => {
                let val = p.eval(e)?;
                p.vars.insert(v.clone(), val);
            }
            [Sexp::Atom(h), a, b] if ["<", ">", "<=", ">="].contains(&h.as_str()) => {
                let (Val::Rat(a), Val::Rat(b)) = (p.eval(a)?, p.eval(b)?) else {
                    return None;
                };
                let holds = match h.as_str() {
                    "<" => a < b,
                    ">" => a > b,
                    "<=" => a <= b,
                    _ => a >= b,
                };
                if !holds {
                    return None;
                }
            }
            _ => {}
        }
    }
    Some(p)
}
