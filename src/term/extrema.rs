//! Max and min of terms: NaN-propagating `max`/`min` (n-ary, flattened, sorted, the IEEE
//! ±inf and NaN rules masked lanes rely on) and IEEE maxNum/minNum (`fmax`/`fmin`: a NaN
//! operand loses), folded to max/min only where no operand can be NaN.

use super::node::{CmpOp, Node, TermId};
use super::store::Terms;
use num_rational::BigRational;

impl Terms {
    fn extremum(&mut self, terms: &[TermId], is_max: bool) -> TermId {
        // NaN wins over everything (checked first, so the result is order-independent).
        if let Some(&n) = terms.iter().find(|&&t| self.is_nan(t)) {
            return n;
        }
        let mut ops: Vec<TermId> = Vec::with_capacity(terms.len());
        let mut best: Option<BigRational> = None;
        let mut absorbing: Option<TermId> = None;
        for &t in terms {
            let children: Vec<TermId> = match self.node(t) {
                Node::Max(ops) if is_max => ops.to_vec(),
                Node::Min(ops) if !is_max => ops.to_vec(),
                _ => vec![t],
            };
            for c in children {
                match self.node(c) {
                    Node::NaN => return self.nan(),
                    // The absorbing infinity wins, the neutral one is dropped.
                    Node::Inf { negative } => {
                        if *negative != is_max {
                            absorbing = Some(c);
                        }
                    }
                    Node::Const(v) => {
                        let better = match &best {
                            None => true,
                            Some(b) => (v > b) == is_max && v != b,
                        };
                        if better {
                            best = Some(v.clone());
                        }
                    }
                    _ => ops.push(c),
                }
            }
        }
        if let Some(inf) = absorbing {
            // ... unless an operand may be NaN, which wins over it: those stay beside it.
            ops.retain(|&o| self.may_be_nonfinite(o));
            if ops.is_empty() {
                return inf;
            }
            ops.push(inf);
        } else if let Some(b) = best {
            let c = self.constant(b);
            ops.push(c);
        }
        ops.sort_unstable();
        ops.dedup();
        match ops.len() {
            0 => self.inf(is_max),
            1 => ops[0],
            _ if is_max => self.intern(Node::Max(ops.into())),
            _ => self.intern(Node::Min(ops.into())),
        }
    }
    /// n-ary max: flattens, dedupes, sorts by id (the folded constant, if any, is one of
    /// the sorted operands), drops `-inf`; `+inf` absorbs. `maxn(&[]) = -inf`.
    pub fn maxn(&mut self, terms: &[TermId]) -> TermId {
        self.extremum(terms, true)
    }
    /// Dual of [`Terms::maxn`]; `minn(&[]) = +inf`.
    pub fn minn(&mut self, terms: &[TermId]) -> TermId {
        self.extremum(terms, false)
    }
    /// PyTorch's `argmax`/`argmin` of a row: the first index `i` with `row[i]` equal to
    /// the row's max (min), as the nested select `row[0] == m ? 0 : (row[1] == m ? 1 :
    /// … n-1)` over exact integers (PyTorch returns the first index on ties). A row
    /// holding NaN has a NaN max that no element equals, so this gives the last index
    /// where PyTorch gives the first NaN's: rows are reals. The spec library, the
    /// kernels' running-argmax reading and formulas all build this one form.
    pub fn arg_extreme(&mut self, row: &[TermId], max: bool) -> TermId {
        let n = row.len();
        let m = if max { self.maxn(row) } else { self.minn(row) };
        let mut acc = self.int(n as i64 - 1);
        for i in (0..n.saturating_sub(1)).rev() {
            let c = self.cmp(CmpOp::Eq, row[i], m);
            let idx = self.int(i as i64);
            acc = self.select(c, idx, acc);
        }
        acc
    }
    pub fn max(&mut self, a: TermId, b: TermId) -> TermId {
        self.maxn(&[a, b])
    }
    pub fn min(&mut self, a: TermId, b: TermId) -> TermId {
        self.minn(&[a, b])
    }

    /// Whether `t` is NaN at no finite point (see the `nan_free` field). Where every
    /// operand of a maxNum is, it is a max.
    pub fn nan_free(&self, t: TermId) -> bool {
        self.nan_free[t.0 as usize]
    }

    /// IEEE maxNum/minNum of `terms` (see [`Node::MaxNum`]): NaN operands are dropped,
    /// the absorbing infinity wins over everything (NaN included), and where no operand
    /// may be NaN the result is `maxn`/`minn`'s. The neutral infinity stays only beside
    /// operands that may all be NaN (`maxnum(-inf, NaN) = -inf`).
    fn extremum_num(&mut self, terms: &[TermId], is_max: bool) -> TermId {
        let mut ops: Vec<TermId> = Vec::with_capacity(terms.len());
        let mut neutral: Option<TermId> = None;
        for &t in terms {
            let children: Vec<TermId> = match self.node(t) {
                Node::MaxNum(ops) if is_max => ops.to_vec(),
                Node::MinNum(ops) if !is_max => ops.to_vec(),
                // A max of operands that are never NaN is the maxNum of those operands.
                Node::Max(ops) if is_max && self.nan_free(t) => ops.to_vec(),
                Node::Min(ops) if !is_max && self.nan_free(t) => ops.to_vec(),
                _ => vec![t],
            };
            for c in children {
                match self.node(c) {
                    Node::NaN => {}
                    Node::Inf { negative } if *negative != is_max => return c,
                    Node::Inf { .. } => neutral = Some(c),
                    _ => ops.push(c),
                }
            }
        }
        if ops.iter().all(|&o| self.nan_free(o)) {
            ops.extend(neutral);
            return if ops.is_empty() {
                self.nan()
            } else {
                self.extremum(&ops, is_max)
            };
        }
        // Constants and total operands fold among themselves as a max does.
        let (sure, maybe): (Vec<TermId>, Vec<TermId>) =
            ops.into_iter().partition(|&o| self.nan_free(o));
        let mut out = maybe;
        if !sure.is_empty() {
            let m = self.extremum(&sure, is_max);
            match self.node(m) {
                Node::Max(ops) if is_max => out.extend(ops.iter().copied()),
                Node::Min(ops) if !is_max => out.extend(ops.iter().copied()),
                _ => out.push(m),
            }
        } else {
            out.extend(neutral);
        }
        out.sort_unstable();
        out.dedup();
        match out.len() {
            0 => self.nan(),
            1 => out[0],
            _ if is_max => self.intern(Node::MaxNum(out.into())),
            _ => self.intern(Node::MinNum(out.into())),
        }
    }
    /// n-ary IEEE maxNum (`arith.maxnumf`, PTX `max.f32`, `torch.fmax`): the largest
    /// operand that is not NaN; a `maxn` where no operand may be NaN. `maxnum_n(&[])` is
    /// NaN.
    pub fn maxnum_n(&mut self, terms: &[TermId]) -> TermId {
        self.extremum_num(terms, true)
    }
    /// Dual of [`Terms::maxnum_n`].
    pub fn minnum_n(&mut self, terms: &[TermId]) -> TermId {
        self.extremum_num(terms, false)
    }
    pub fn maxnum(&mut self, a: TermId, b: TermId) -> TermId {
        self.maxnum_n(&[a, b])
    }
    pub fn minnum(&mut self, a: TermId, b: TermId) -> TermId {
        self.minnum_n(&[a, b])
    }
}
