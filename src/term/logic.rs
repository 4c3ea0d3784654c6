//! The logic smart constructors: comparisons (folded on the extended reals, IEEE on
//! NaN), `not`, `and`/`or`, and `select`.
//!
//! Invariant: every fold is sound for finite real inputs, and one whose result a NaN
//! changes is applied only where no operand can be NaN.

use super::node::*;
use super::store::*;

impl Terms {
    /// Comparison. Folds between constants/infinities and for identical operands
    /// (`x <= x` is true); a comparison with NaN is false (`!=`: true), as in IEEE.
    pub fn cmp(&mut self, op: CmpOp, a: TermId, b: TermId) -> TermId {
        if self.is_nan(a) || self.is_nan(b) {
            return self.boolean(op == CmpOp::Ne);
        }
        let ord = match (self.ext(a), self.ext(b)) {
            (Some(x), Some(y)) => Some(x.cmp(&y)),
            // `t == t` fails where t is NaN (`log x != log x` is true at x < 0: the
            // NaN test kernels write).
            _ if a == b && self.nan_free(a) => Some(std::cmp::Ordering::Equal),
            // A term finite at every point lies strictly between -inf and +inf
            // (`m == -inf` of a running max that has met a finite score is false).
            // Not for `log x` or `1/x`: at x = 0 they are infinite.
            (None, Some(Ext::NegInf)) if self.is_total(a) => Some(std::cmp::Ordering::Greater),
            (None, Some(Ext::PosInf)) if self.is_total(a) => Some(std::cmp::Ordering::Less),
            (Some(Ext::NegInf), None) if self.is_total(b) => Some(std::cmp::Ordering::Less),
            (Some(Ext::PosInf), None) if self.is_total(b) => Some(std::cmp::Ordering::Greater),
            _ => None,
        };
        if let Some(o) = ord {
            use std::cmp::Ordering::*;
            let r = match op {
                CmpOp::Lt => o == Less,
                CmpOp::Le => o != Greater,
                CmpOp::Gt => o == Greater,
                CmpOp::Ge => o != Less,
                CmpOp::Eq => o == Equal,
                CmpOp::Ne => o != Equal,
            };
            return self.boolean(r);
        }
        self.intern(Node::Cmp(op, a, b))
    }
    /// Logical not: folds constants (0 → 1, other → 0), `!!c = c` for boolean `c`, and
    /// `!(a < b) = a >= b` where neither operand may be NaN.
    pub fn not(&mut self, a: TermId) -> TermId {
        match self.node(a).clone() {
            Node::NaN => a,
            Node::Const(_) | Node::Inf { .. } => {
                let b = self.as_bool(a) == Some(true);
                self.boolean(!b)
            }
            Node::Not(x) if self.is_boolean(x) => x,
            // `!(a < b) = a >= b` only without NaN operands (IEEE: both false then;
            // `log x` is NaN at x < 0).
            Node::Cmp(op, x, y) if self.nan_free(x) && self.nan_free(y) => {
                self.intern(Node::Cmp(op.negated(), x, y))
            }
            _ => self.intern(Node::Not(a)),
        }
    }
    pub(super) fn junction(&mut self, terms: &[TermId], is_and: bool) -> TermId {
        // NaN wins over everything (checked first, so the result is order-independent).
        if let Some(&n) = terms.iter().find(|&&t| self.is_nan(t)) {
            return n;
        }
        let mut ops: Vec<TermId> = Vec::with_capacity(terms.len());
        for &t in terms {
            let children: Vec<TermId> = match self.node(t) {
                Node::And(ops) if is_and => ops.to_vec(),
                Node::Or(ops) if !is_and => ops.to_vec(),
                _ => vec![t],
            };
            for c in children {
                if self.is_nan(c) {
                    return c;
                }
                match self.as_bool(c) {
                    // The absorbing value (false for and, true for or) decides.
                    Some(v) if v != is_and => return self.boolean(v),
                    Some(_) => {}
                    None => ops.push(c),
                }
            }
        }
        ops.sort_unstable();
        ops.dedup();
        // `c && !c` is false, `c || !c` true (a comparison is false at NaN operands,
        // its negation true: still complementary).
        let mut complement = ops.iter().any(|&o| {
            matches!(self.node(o), Node::Not(x) if self.is_boolean(*x) && ops.binary_search(x).is_ok())
        });
        // A comparison and its negated form (`x > 0`, `x <= 0` of finite operands).
        if !complement && ops.len() <= 16 {
            let cmps: Vec<TermId> = ops
                .iter()
                .copied()
                .filter(|&o| matches!(self.node(o), Node::Cmp(..)))
                .collect();
            for o in cmps {
                let n = self.not(o);
                if ops.binary_search(&n).is_ok() {
                    complement = true;
                    break;
                }
            }
        }
        if complement {
            return self.boolean(!is_and);
        }
        match ops.len() {
            0 => self.boolean(is_and),
            1 if self.is_boolean(ops[0]) => ops[0],
            _ if is_and => self.intern(Node::And(ops.into())),
            _ => self.intern(Node::Or(ops.into())),
        }
    }
    /// n-ary and (flattened, sorted, deduplicated; constant operands folded).
    pub fn and(&mut self, a: TermId, b: TermId) -> TermId {
        self.junction(&[a, b], true)
    }
    pub fn or(&mut self, a: TermId, b: TermId) -> TermId {
        self.junction(&[a, b], false)
    }
    pub fn andn(&mut self, terms: &[TermId]) -> TermId {
        self.junction(terms, true)
    }
    pub fn orn(&mut self, terms: &[TermId]) -> TermId {
        self.junction(terms, false)
    }
    /// `if cond then a else b`: picks a side for a constant condition, `select(c, a, a) =
    /// a`, `select(!c, a, b) = select(c, b, a)`; a NaN condition gives NaN.
    pub fn select(&mut self, cond: TermId, a: TermId, b: TermId) -> TermId {
        if self.is_nan(cond) {
            return cond;
        }
        if let Some(v) = self.as_bool(cond) {
            return if v { a } else { b };
        }
        if a == b {
            return a;
        }
        if let Node::Not(c) = self.node(cond) {
            let c = *c;
            if self.is_boolean(c) {
                return self.select(c, b, a);
            }
        }
        self.intern(Node::Select(cond, a, b))
    }
}
