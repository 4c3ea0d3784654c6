//! Pending sums: a float accumulator that only `add`/`fma` read.
//!
//! The term store keeps every sum flat and hash-consed, so building a K-term dot
//! product one `fma` at a time interns K sums of 1..K summands: O(K²) memory and time
//! per output element, all but the last of them dead at once. In a domain whose sums
//! are exact and associative ([`Domain::EXACT_SUMS`]: the symbolic reals), a float
//! `add`/`fma` instead appends its summand to a persistent chain (one node per
//! instruction), and the register holds [`Val::Sum`]. Any other read settles the
//! chain into one flat sum of all its summands (`Domain::sum`), cached per node, so a
//! loop-carried accumulator costs O(K) in all.
//!
//! Invariant: nothing outside this file and the register file sees a `Val::Sum`:
//! `read` and the branch merge settle it first, and a settled chain equals the sum of
//! its summands in the order they were added.

use super::*;

/// The error for a pending sum met where only settled values may be (a lift bug: see
/// the invariant above), reported rather than panicking.
pub(super) fn escaped<T>() -> Result<T, Fail> {
    fail(
        ErrorKind::Malformed,
        "internal: a pending sum was read without being settled (a lift bug: please report it)",
    )
}

/// One appended summand; `prev` is the chain it extends (`None`: `x` is the first).
struct Node<V> {
    prev: Option<u32>,
    x: V,
    settled: Option<V>,
}

pub(super) struct Sums<V> {
    nodes: Vec<Node<V>>,
}

impl<V> Default for Sums<V> {
    fn default() -> Self {
        Sums { nodes: Vec::new() }
    }
}

impl<V> Sums<V> {
    /// Registers do not outlive their CTA, and neither do their chains.
    pub(super) fn clear(&mut self) {
        self.nodes.clear();
    }
}

impl<'a, D: Domain> Sim<'a, D> {
    /// Whether `ins` (a float instruction of type `ty`) is an exact `add`/`fma` whose
    /// result may stay pending: no rounding mode that changes a number, no saturation.
    pub(super) fn accumulates(&self, ins: &Instr, ty: &str) -> bool {
        D::EXACT_SUMS
            && matches!(ty, "f32" | "f64")
            && matches!(ins.op.as_str(), "add" | "fma" | "mad")
            && !ins
                .mods
                .iter()
                .any(|m| matches!(m.as_str(), "sat" | "rm" | "rp" | "rz"))
    }

    /// `add a, b` or `fma a, b, c` as a pending sum (operands read raw: an operand
    /// that is itself pending is extended, not settled).
    pub(super) fn accumulate(
        &mut self,
        t: usize,
        ins: &Instr,
        ty: &str,
    ) -> Result<Val<D::V>, Fail> {
        let ops = &ins.operands;
        let raw = |s: &mut Self, k: usize| -> Result<Val<D::V>, Fail> {
            match ops.get(k) {
                Some(Operand::Reg(slot)) => s.reg(t, *slot),
                Some(o) => s.read(t, o, ty),
                None => fail(
                    ErrorKind::Malformed,
                    format!("expected {k} source operands"),
                ),
            }
        };
        // (accumulator, new summand)
        let (acc, x) = if ins.op == "add" {
            let (a, b) = (raw(self, 1)?, raw(self, 2)?);
            match (a, b) {
                (_, Val::Sum(_)) => (b, self.settle_float(a, ty)?),
                _ => (a, self.settle_float(b, ty)?),
            }
        } else {
            let (a, b, c) = (raw(self, 1)?, raw(self, 2)?, raw(self, 3)?);
            let (fa, fb) = (self.settle_float(a, ty)?, self.settle_float(b, ty)?);
            (c, self.domain.binary(Binary::Mul, fa, fb))
        };
        let prev = match acc {
            Val::Sum(h) => h,
            other => {
                let first = self.settle_float(other, ty)?;
                self.push_summand(None, first)
            }
        };
        Ok(Val::Sum(self.push_summand(Some(prev), x)))
    }

    fn push_summand(&mut self, prev: Option<u32>, x: D::V) -> u32 {
        let h = u32::try_from(self.sums.nodes.len()).expect("more than 2^32 pending summands");
        self.sums.nodes.push(Node {
            prev,
            x,
            settled: None,
        });
        h
    }

    fn settle_float(&mut self, v: Val<D::V>, ty: &str) -> Result<D::V, Fail> {
        let v = self.settle(v);
        self.float(v, ty)
    }

    /// A pending sum as one real; any other value unchanged (inlined: every operand
    /// read passes here, and only pending sums have work to do).
    #[inline]
    pub(super) fn settle(&mut self, v: Val<D::V>) -> Val<D::V> {
        match v {
            Val::Sum(h) => self.settle_chain(h),
            v => v,
        }
    }

    fn settle_chain(&mut self, h: u32) -> Val<D::V> {
        let mut xs = Vec::new();
        let mut at = Some(h);
        while let Some(k) = at {
            let node = &self.sums.nodes[k as usize];
            if let Some(s) = node.settled {
                xs.push(s);
                break;
            }
            xs.push(node.x);
            at = node.prev;
        }
        xs.reverse();
        let s = self.domain.sum(&xs);
        self.sums.nodes[h as usize].settled = Some(s);
        Val::Float(s)
    }
}
