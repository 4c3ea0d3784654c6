//! Shared sub-formulas: a sub-formula that occurs more than once is printed once, bound
//! to a short name, `(p @ v) / sum(p, axis=1) where p = exp2(s - max(s, axis=1)), s =
//! scale * (q @ k.T)`, so a reader sees the kernel's structure instead of re-reading
//! the same twenty characters.
//!
//! How: count every non-leaf sub-tree of the formula and of the bodies bound so far;
//! bind the largest one that occurs twice and whose text is long enough to be worth a
//! name ([`MIN_TEXT`]); repeat up to [`MAX_BINDINGS`] times. Names are `s`, `t`, `u`,
//! ... skipping every name the formula's environment already uses.
//!
//! Invariant: this is a way of printing, not a rewrite: substituting the bindings back,
//! innermost last, gives the formula exactly ([`Shared::inline`]).

use crate::formula::{Formula, ShapeEnv};
use crate::simplify::Named;
use std::collections::HashMap;

/// At most this many names per formula (more reads like a program, not a formula).
const MAX_BINDINGS: usize = 3;

/// A repeated sub-formula shorter than this (in the text rendering) stays inline:
/// `exp(x)` twice reads better than `s ... where s = exp(x)`.
const MIN_TEXT: usize = 12;

/// Names tried in order; past them `s1`, `s2`, ...
const NAMES: [&str; 6] = ["s", "t", "u", "r", "g", "h"];

/// A formula printed with its repeated sub-formulas bound to names.
#[derive(Clone, Debug, PartialEq)]
pub struct Shared {
    /// The formula with each bound sub-formula replaced by its name (an input leaf).
    pub body: Named,
    /// `(name, definition)`, in the order bound: a definition may use names bound after
    /// it (larger sub-formulas are bound first), never one bound before it.
    pub bindings: Vec<(String, Named)>,
    /// `env` with every bound name declared as a tensor of its sub-formula's shape.
    pub env: ShapeEnv,
}

impl Shared {
    /// The formula with every name replaced by its definition (what was shared).
    pub fn inline(&self) -> Named {
        let mut n = self.body.clone();
        for (name, def) in &self.bindings {
            n = replace(&n, &leaf(name), def);
        }
        n
    }
}

/// `n` with its repeated sub-formulas bound; `text` prints a candidate (to measure it).
pub fn share(n: &Named, env: &ShapeEnv, text: &dyn Fn(&Named, &ShapeEnv) -> String) -> Shared {
    let mut out = Shared {
        body: n.clone(),
        bindings: Vec::new(),
        env: env.clone(),
    };
    let mut fresh = NAMES
        .iter()
        .map(|s| s.to_string())
        .chain((1..).map(|k| format!("s{k}")))
        .filter(|s| !taken(s, env));
    while out.bindings.len() < MAX_BINDINGS {
        let Some(sub) = repeated(&out, text) else {
            break;
        };
        let Ok(shape) = sub.expand().shape(&out.env) else {
            break;
        };
        let name = fresh.next().expect("names never run out");
        let l = leaf(&name);
        out.body = replace(&out.body, &sub, &l);
        for (_, def) in out.bindings.iter_mut() {
            *def = replace(def, &sub, &l);
        }
        out.env = std::mem::take(&mut out.env).tensor(&name, &shape);
        out.bindings.push((name, sub));
    }
    out
}

/// The largest sub-formula occurring at least twice (over the body and the definitions)
/// whose text is at least [`MIN_TEXT`] long; the first met in pre-order on a tie.
fn repeated(s: &Shared, text: &dyn Fn(&Named, &ShapeEnv) -> String) -> Option<Named> {
    let mut counts: HashMap<&Named, usize> = HashMap::new();
    let mut order: Vec<&Named> = Vec::new();
    for n in std::iter::once(&s.body).chain(s.bindings.iter().map(|(_, d)| d)) {
        count(n, &mut counts, &mut order);
    }
    let mut best: Option<&Named> = None;
    for &n in &order {
        if counts[n] < 2 || best.is_some_and(|b| b.size() >= n.size()) {
            continue;
        }
        if text(n, &s.env).chars().count() >= MIN_TEXT {
            best = Some(n);
        }
    }
    best.cloned()
}

/// Counts every non-leaf sub-tree of `n` (pre-order, first occurrences into `order`).
fn count<'a>(n: &'a Named, counts: &mut HashMap<&'a Named, usize>, order: &mut Vec<&'a Named>) {
    let kids = children(n);
    if kids.is_empty() {
        return;
    }
    let c = counts.entry(n).or_insert(0);
    if *c == 0 {
        order.push(n);
    }
    *c += 1;
    for k in kids {
        count(k, counts, order);
    }
}

/// The named children of a node; a plain formula is a leaf here (its inside is not
/// named arithmetic and prints as one piece).
fn children(n: &Named) -> Vec<&Named> {
    match n {
        Named::Formula(_) | Named::Constant { .. } => vec![],
        Named::Unary(_, a) | Named::Powi(a, _) | Named::Transpose(a) => vec![a],
        Named::Reduce { arg, .. } => vec![arg],
        Named::Binary(_, a, b) | Named::MatMul(a, b) => vec![a, b],
        Named::Call(_, args) | Named::Node(_, args) => args.iter().collect(),
    }
}

/// `n` with every occurrence of `from` replaced by `to`.
pub(super) fn replace(n: &Named, from: &Named, to: &Named) -> Named {
    if n == from {
        return to.clone();
    }
    let r = |a: &Named| Box::new(replace(a, from, to));
    match n {
        Named::Formula(_) | Named::Constant { .. } => n.clone(),
        Named::Unary(op, a) => Named::Unary(*op, r(a)),
        Named::Powi(a, k) => Named::Powi(r(a), *k),
        Named::Transpose(a) => Named::Transpose(r(a)),
        Named::Reduce {
            op,
            axis,
            keepdim,
            arg,
        } => Named::Reduce {
            op: *op,
            axis: *axis,
            keepdim: *keepdim,
            arg: r(arg),
        },
        Named::Binary(op, a, b) => Named::Binary(*op, r(a), r(b)),
        Named::MatMul(a, b) => Named::MatMul(r(a), r(b)),
        Named::Call(op, args) => Named::Call(
            op.clone(),
            args.iter().map(|a| replace(a, from, to)).collect(),
        ),
        Named::Node(shell, args) => Named::Node(
            shell.clone(),
            args.iter().map(|a| replace(a, from, to)).collect(),
        ),
    }
}

fn leaf(name: &str) -> Named {
    Named::Formula(Formula::input(name))
}

/// Whether `name` already means something in `env` (a tensor, scalar or size).
fn taken(name: &str, env: &ShapeEnv) -> bool {
    env.tensors.contains_key(name)
        || env.scalars.contains(name)
        || env.sizes.contains_key(name)
        || env.dim_exprs.contains_key(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::ReduceOp;
    use crate::simplify::NamedOp;

    /// The text of the formula a candidate means (its expansion): long enough for the
    /// tests' candidates, and no import of `named`, which imports this module.
    fn print(n: &Named, env: &ShapeEnv) -> String {
        crate::render::text::expr_in(&n.expand(), env)
    }

    fn softmax(x: Named) -> Named {
        Named::Call(NamedOp::Softmax { axis: 1 }, vec![x])
    }

    #[test]
    fn entropy_binds_the_softmax_it_reads_twice() {
        let env = ShapeEnv::new().tensor("x", &[4, 8]);
        let x = || Named::Formula(Formula::input("x"));
        let p = || Box::new(softmax(x()));
        let f = Named::Unary(
            crate::formula::UnaryOp::Neg,
            Box::new(Named::Reduce {
                op: ReduceOp::Sum,
                axis: 1,
                keepdim: false,
                arg: Box::new(Named::Binary(
                    crate::formula::BinaryOp::Mul,
                    p(),
                    Box::new(Named::Unary(crate::formula::UnaryOp::Log, p())),
                )),
            }),
        );
        let s = share(&f, &env, &print);
        assert_eq!(s.bindings.len(), 1);
        assert_eq!(s.bindings[0].0, "s");
        assert_eq!(s.bindings[0].1, softmax(x()));
        assert_eq!(s.inline(), f);
        assert_eq!(s.env.tensors["s"], vec![4, 8]);
    }

    #[test]
    fn a_short_repeat_stays_inline_and_names_in_use_are_skipped() {
        // `exp(x) / sum(exp(x), axis=1)`: `exp(x)` is shorter than MIN_TEXT.
        let env = ShapeEnv::new().tensor("x", &[4, 8]).tensor("s", &[4, 8]);
        let e = || {
            Box::new(Named::Unary(
                crate::formula::UnaryOp::Exp,
                Box::new(Named::Formula(Formula::input("x"))),
            ))
        };
        let f = Named::Binary(
            crate::formula::BinaryOp::Div,
            e(),
            Box::new(Named::Reduce {
                op: ReduceOp::Sum,
                axis: 1,
                keepdim: true,
                arg: e(),
            }),
        );
        assert!(share(&f, &env, &print).bindings.is_empty());
        // Twice softmax(s): the name `s` is the input's, so the binding is `t`.
        let g = Named::Binary(
            crate::formula::BinaryOp::Add,
            Box::new(softmax(Named::Formula(Formula::input("s")))),
            Box::new(softmax(Named::Formula(Formula::input("s")))),
        );
        let s = share(&g, &env, &print);
        assert_eq!(s.bindings[0].0, "t");
        assert_eq!(s.inline(), g);
    }
}
