//! Terms to canonical forms: the memo of converted terms, the terms a conversion still
//! needs, each node's form, and what a converted pair contains (extrema, opaque ops).
//!
//! Invariant: every rewrite is an identity over the reals under the recorded
//! preconditions (see `canon`).

use super::state::*;
use crate::decide::poly::rat;
use crate::decide::precondition::PreKind;
use crate::term::{CmpOp, Func, Node, TermId, Terms};
use std::rc::Rc;

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
impl Canon<'_> {
    pub(super) fn lookup(&self, t: TermId) -> Option<&Rc<Rf>> {
        self.pure.get(&t).or_else(|| {
            if self.base_case() {
                self.base.get(&t)
            } else {
                self.branch.get(&t)
            }
        })
    }
    pub(super) fn get(&self, t: TermId) -> Rc<Rf> {
        self.lookup(t).cloned().expect("child converted first")
    }

    /// Children of `t` that must be converted before `t` (under the current assignment).
    pub(super) fn missing(&mut self, t: TermId) -> Result<Vec<TermId>, Halt> {
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

    pub(super) fn convert_node(&mut self, t: TermId) -> Result<Rf, Halt> {
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
                let rs: Vec<Rc<Rf>> = ops.iter().map(|&o| self.get(o)).collect();
                self.product(&rs)?
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

    /// Whether an extremum of exactly two operands was met: the only kind a retry with
    /// [`Canon::split_extrema`] splits (`drop_dominated`); where there is none, the
    /// retry converts every form again (the extrema's forms are case-dependent) to the
    /// same result. Flash attention's running maxima flatten to one operand per key.
    pub fn has_two_operand_extrema(&self) -> bool {
        self.atoms
            .iter()
            .any(|a| matches!(a, Atom::Max(ops) | Atom::Min(ops) if ops.len() == 2))
    }

    /// Whether every atom is an input, a param or a known constant (with exponential
    /// parts), where the canonical form is complete.
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
