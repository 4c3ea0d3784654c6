//! Recognising an online recurrence in an output element: a running sum rescaled by an
//! exponential at every step, `l_k = l_{k-1}·exp(m_{k-1} - m_k) + Σ exp(x_j - m_k)`
//! (online softmax, flash attention's accumulator and normaliser).
//!
//! Top-down descends such a recurrence one step at a time, each step costing the size
//! of its history, and stalls at the end: quadratic work for nothing. Normalising
//! folds it to its closed form in linear time (`decide`'s chain conversion), so an
//! element with a long one is normalised before top-down is tried.

use crate::term::{Func, Node, TermId, Terms};

/// Fewest rescaling steps that make a recurrence long: below, top-down's descent is
/// cheap and tried first as for any term.
const LONG: usize = 16;

/// Whether `t`, one of the factors of its root product, or the base of such a factor's
/// power, heads an online recurrence of at least [`LONG`] steps.
pub(super) fn long_recurrence(terms: &Terms, t: TermId) -> bool {
    root_bases(terms, t).any(|b| steps(terms, b) >= LONG)
}

/// Whether `t`, one of the factors of its root product, or the base of such a factor's
/// power, rescales a running sum at least once (an online recurrence of any length).
pub(super) fn rescales(terms: &Terms, t: TermId) -> bool {
    root_bases(terms, t).any(|b| previous(terms, b).is_some())
}

/// `t`'s factors (`t` itself when it is no product), each power read as its base.
fn root_bases(terms: &Terms, t: TermId) -> impl Iterator<Item = TermId> + '_ {
    let factors: Vec<TermId> = match terms.node(t) {
        Node::Mul(ops) => ops.to_vec(),
        _ => vec![t],
    };
    factors.into_iter().map(|f| match *terms.node(f) {
        Node::Pow(b, _) => b,
        _ => f,
    })
}

/// The number of rescaling steps below `t` (stopping at [`LONG`]).
fn steps(terms: &Terms, t: TermId) -> usize {
    let mut n = 0;
    let mut cur = t;
    while n < LONG {
        match previous(terms, cur) {
            Some(p) => {
                n += 1;
                cur = p;
            }
            None => break,
        }
    }
    n
}

/// The running sum `t` rescales: `t` is a sum with exactly one operand that is the
/// product of one sum (returned) and exponentials.
fn previous(terms: &Terms, t: TermId) -> Option<TermId> {
    let Node::Add(ops) = terms.node(t) else {
        return None;
    };
    let mut found = None;
    for &o in ops.iter() {
        let Node::Mul(fs) = terms.node(o) else {
            continue;
        };
        let sums: Vec<TermId> = fs
            .iter()
            .copied()
            .filter(|&f| matches!(terms.node(f), Node::Add(_)))
            .collect();
        let rescaled = fs.iter().all(|&f| {
            sums.contains(&f) || matches!(terms.node(f), Node::Call(Func::Exp | Func::Exp2, _))
        });
        if let ([sum], true) = (sums.as_slice(), rescaled) {
            if found.replace(*sum).is_some() {
                return None;
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `l_k = l_{k-1}·exp(x_{k-1} - x_k) + exp(x_k)` for `k < n`.
    fn recurrence(terms: &mut Terms, n: usize, rescale: bool) -> TermId {
        let x0 = terms.input("x", &[0]);
        let e0 = terms.call(Func::Exp, x0);
        let mut l = terms.add(e0, x0);
        for k in 1..n as i64 {
            let (a, b) = (terms.input("x", &[k - 1]), terms.input("x", &[k]));
            let d = terms.sub(a, b);
            let factor = if rescale {
                terms.call(Func::Exp, d)
            } else {
                terms.call(Func::Tanh, d)
            };
            let scaled = terms.mul(l, factor);
            let e = terms.call(Func::Exp, b);
            l = terms.add(scaled, e);
        }
        l
    }

    #[test]
    fn long_rescaled_sums_are_recognised_through_a_quotient() {
        let mut terms = Terms::new();
        let l = recurrence(&mut terms, LONG + 1, true);
        let x = terms.input("x", &[0]);
        let y = terms.div(x, l);
        assert!(long_recurrence(&terms, y));
        let short = recurrence(&mut terms, LONG - 1, true);
        assert!(!long_recurrence(&terms, short));
        // Rescaled by something other than an exponential: not an online recurrence.
        let other = recurrence(&mut terms, LONG + 1, false);
        assert!(!long_recurrence(&terms, other));
    }

    #[test]
    fn one_rescaling_step_is_a_rescale_and_none_is_not() {
        let mut terms = Terms::new();
        // Two steps: one rescaling, seen through the quotient `x / l` as well.
        let l = recurrence(&mut terms, 2, true);
        assert!(rescales(&terms, l));
        let x = terms.input("x", &[0]);
        let y = terms.div(x, l);
        assert!(rescales(&terms, y));
        // One step: `exp(x0) + x0`, a sum that rescales nothing.
        let first = recurrence(&mut terms, 1, true);
        assert!(!rescales(&terms, first));
        // Rescaled by `tanh`: no online recurrence.
        let other = recurrence(&mut terms, 2, false);
        assert!(!rescales(&terms, other));
    }
}
