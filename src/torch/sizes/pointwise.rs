//! Elementwise ops read for every size without being written again: the op library's
//! own definition is run on one placeholder scalar per tensor argument, and the term it
//! builds is read back as a formula over the arguments those placeholders stand for
//! ([`Placeholders`]). The result's shape is the broadcast of the arguments' shapes; an
//! argument the term does not mention still widens it (`Formula::Broadcast`).

use super::super::ops::{self, Args};
use super::super::tensor::Tensor;
use super::super::value::{Cx, Val, Value};
use super::domain::{EverySize, SymTensor};
use super::extent::broadcast;
use crate::formula::{BinaryOp, Formula, UnaryOp};
use crate::term::{CmpOp, Node, TermId, Terms};
use std::collections::{BTreeSet, HashMap};

type R<T> = Result<T, String>;

/// The placeholders of one elementwise call: which formula each stands for, and the
/// shapes of the tensors they replace.
#[derive(Default)]
pub(super) struct Placeholders {
    bound: HashMap<TermId, Formula>,
    shapes: Vec<(String, Vec<crate::formula::Size>)>,
}

impl Placeholders {
    /// `v` as an instance value: a tensor becomes a fresh 0-d placeholder (bool where the
    /// tensor is, so `where`'s condition and `&` stay bool), an int its value.
    pub(super) fn value(&mut self, terms: &mut Terms, v: Val<EverySize>) -> R<Value> {
        Ok(match v {
            Val::Tensor(SymTensor { f, shape }) => {
                let name = format!("arg{}", self.shapes.len());
                let p = terms.placeholder(&name);
                let ph = if is_bool(&f) {
                    let z = terms.zero();
                    terms.cmp(CmpOp::Ne, p, z)
                } else {
                    p
                };
                self.bound.insert(ph, f);
                self.shapes.push((name, shape));
                Value::Tensor(Tensor::scalar(ph))
            }
            Val::Int(crate::formula::Size::Int(i)) => Value::Int(i),
            Val::Int(s) => {
                return Err(format!(
                    "the size `{s}` used as a number is not read for all sizes"
                ))
            }
            Val::Bool(b) => Value::Bool(b),
            Val::None => Value::None,
            Val::Str(s) => Value::Str(s),
            Val::Dtype(d) => Value::Dtype(d),
            Val::IntDtype(d) => Value::IntDtype(d),
            _ => return Err("an argument not read for all sizes".into()),
        })
    }

    /// The formula of the instance value `out` an op built over the placeholders.
    pub(super) fn finish(self, terms: &Terms, out: Value) -> R<SymTensor> {
        let term = match out {
            Value::Tensor(t) if t.elems.len() == 1 => t.elems[0],
            _ => return Err("an elementwise op gave no scalar".into()),
        };
        let f = read_back(terms, term, &self.bound)?;
        // The result's shape is every tensor argument's, broadcast.
        let mut shape = Vec::new();
        for (_, s) in &self.shapes {
            shape = broadcast(&shape, s)?;
        }
        let mut used = Vec::new();
        for (name, s) in &self.shapes {
            let name = format!("{}{name}", crate::term::PLACEHOLDER);
            if mentions(terms, term, &name) {
                used = broadcast(&used, s)?;
            }
        }
        let f = if used == shape {
            f
        } else {
            Formula::Broadcast {
                arg: Box::new(f),
                shape: shape.clone(),
            }
        };
        Ok(SymTensor { f, shape })
    }
}

/// A bound elementwise call, read through its instance definition (`ops::apply`).
pub(super) fn apply(cx: &mut Cx, a: Args<EverySize>) -> R<SymTensor> {
    let mut ph = Placeholders::default();
    let args = a.try_map(|v| ph.value(cx.terms, v))?;
    let out = ops::apply(cx, &args)?;
    ph.finish(cx.terms, out)
}

/// An operator or unary of the instance reading (`ops::arith`, `ops::unary`), read
/// through placeholders for its tensor arguments.
pub(super) fn operator(
    cx: &mut Cx,
    args: Vec<Val<EverySize>>,
    op: impl FnOnce(&mut Cx, Vec<Value>) -> R<Value>,
) -> R<SymTensor> {
    let mut ph = Placeholders::default();
    let vals = args
        .into_iter()
        .map(|v| ph.value(cx.terms, v))
        .collect::<R<Vec<_>>>()?;
    let out = op(cx, vals)?;
    ph.finish(cx.terms, out)
}

/// Whether a formula is bool-valued (a comparison, or a select of bools).
pub(super) fn is_bool(f: &Formula) -> bool {
    match f {
        Formula::Cmp(..) => true,
        Formula::Broadcast { arg, .. } => is_bool(arg),
        _ => false,
    }
}

/// Whether the param `name` occurs in `t`.
fn mentions(terms: &Terms, t: TermId, name: &str) -> bool {
    let mut stack = vec![t];
    let mut seen = BTreeSet::new();
    while let Some(t) = stack.pop() {
        if !seen.insert(t) {
            continue;
        }
        if let Node::Param(p) = terms.node(t) {
            if &**p == name {
                return true;
            }
        }
        stack.extend(terms.children(t));
    }
    false
}

/// The term an elementwise op built over the placeholders, as a formula over the
/// arguments the placeholders stand for.
fn read_back(
    terms: &Terms,
    t: TermId,
    bound: &HashMap<TermId, Formula>,
) -> Result<Formula, String> {
    if let Some(f) = bound.get(&t) {
        return Ok(f.clone());
    }
    let rd = |x: TermId| read_back(terms, x, bound);
    let fold = |op: BinaryOp, xs: &[TermId]| -> Result<Formula, String> {
        let mut it = xs.iter();
        let first = rd(*it.next().ok_or("an empty operation")?)?;
        it.try_fold(first, |acc, &x| Ok(Formula::binary(op, acc, rd(x)?)))
    };
    Ok(match terms.node(t) {
        Node::Const(c) => Formula::Const(c.clone()),
        Node::Add(xs) => fold(BinaryOp::Add, xs)?,
        Node::Mul(xs) => fold(BinaryOp::Mul, xs)?,
        Node::Max(xs) => fold(BinaryOp::Max, xs)?,
        Node::Min(xs) => fold(BinaryOp::Min, xs)?,
        Node::MaxNum(xs) => fold(BinaryOp::FMax, xs)?,
        Node::MinNum(xs) => fold(BinaryOp::FMin, xs)?,
        Node::Pow(x, k) => Formula::Powi(Box::new(rd(*x)?), *k),
        Node::Call(f, x) => match UnaryOp::from_func(*f) {
            Some(op) => Formula::unary(op, rd(*x)?),
            None => return Err(format!("`{f:?}` has no formula")),
        },
        Node::Cmp(op, a, b) => Formula::Cmp(*op, Box::new(rd(*a)?), Box::new(rd(*b)?)),
        Node::Select(c, a, b) => {
            Formula::Select(Box::new(rd(*c)?), Box::new(rd(*a)?), Box::new(rd(*b)?))
        }
        Node::Param(_) => return Err("an argument used in a way formulas cannot say".into()),
        Node::Inf { .. } | Node::NaN => return Err("an infinite or NaN constant".into()),
        other => return Err(format!("`{}` has no formula", other.op_name())),
    })
}
