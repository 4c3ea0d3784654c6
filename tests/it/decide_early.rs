//! `decide::refuted_before_proving`: a pair it separates is `NotEqual` in any batch of
//! `decide_all`, at the same point (what lets the all-sizes step skip a batch it only
//! needs to know is not all equal); it claims nothing about an equal pair, a pair of one
//! term, or a pair only the search after the prover separates.

use lift::decide::{decide, decide_all, refuted_before_proving, Options, Verdict};
use lift::term::{CmpOp, TermId, Terms};

type Pairs = Vec<(TermId, TermId)>;

/// A softmax row's summands, unnormalised against normalised (`e_i` against
/// `e_i / Σ e`), for rows 0 and 1 (renamings of each other), beside the equal pairs
/// `e_i·(Σ e)^-1 · Σ e` against `e_i`.
fn rows(t: &mut Terms) -> (Pairs, Pairs) {
    let (mut unequal, mut equal) = (Vec::new(), Vec::new());
    for r in 0..2 {
        let es: Vec<TermId> = (0..4)
            .map(|j| {
                let x = t.input("x", &[r, j]);
                t.call(lift::term::Func::Exp, x)
            })
            .collect();
        let s = t.sum(&es);
        let inv = t.recip(s);
        for &e in &es {
            let p = t.mul(e, inv);
            unequal.push((e, p));
            let back = t.mul(p, s);
            equal.push((back, e));
        }
    }
    (unequal, equal)
}

#[test]
fn an_early_refutation_is_the_verdict_of_every_batch() {
    let mut t = Terms::new();
    let (unequal, equal) = rows(&mut t);
    let opts = Options::default();
    // Each batch: the unequal pairs alone, after the equal ones, and one by one.
    let mixed: Pairs = equal.iter().chain(&unequal).copied().collect();
    let batches = [(unequal.clone(), 0), (mixed.clone(), equal.len())];
    for &(a, b) in &unequal {
        let cex = refuted_before_proving(&t, a, b, &opts).expect("e_i is not e_i / sum");
        let Verdict::NotEqual(alone) = decide(&t, a, b, &opts) else {
            panic!("decide proves what the refuter separates")
        };
        assert_eq!(
            (alone.point, alone.lhs, alone.rhs),
            (cex.point, cex.lhs, cex.rhs)
        );
        for (batch, offset) in &batches {
            let k = offset + unequal.iter().position(|&p| p == (a, b)).unwrap();
            let verdicts = decide_all(&t, batch, &opts);
            let Verdict::NotEqual(c) = &verdicts[k] else {
                panic!("batch verdict {:?}", verdicts[k])
            };
            assert_eq!((c.point, c.lhs, c.rhs), (cex.point, cex.lhs, cex.rhs));
        }
    }
    // The equal pairs (renamings of a proved pair in the batch) are not refuted.
    for &(a, b) in &equal {
        assert!(refuted_before_proving(&t, a, b, &opts).is_none());
    }
    assert!(decide_all(&t, &mixed, &opts)[..equal.len()]
        .iter()
        .all(Verdict::is_equal));
}

/// The wrong twin the probe must not settle: `select(x == 0, 1, x)` against `x` differs
/// only at 0, which no random point hits; the prover's cases and the boundary search
/// find it. The probe says nothing, and `decide` still refutes.
#[test]
fn a_pair_apart_only_at_a_boundary_is_left_to_decide() {
    let mut t = Terms::new();
    let x = t.input("x", &[0]);
    let (zero, one) = (t.int(0), t.int(1));
    let at_zero = t.cmp(CmpOp::Eq, x, zero);
    let patched = t.select(at_zero, one, x);
    let opts = Options::default();
    assert!(refuted_before_proving(&t, patched, x, &opts).is_none());
    assert!(decide(&t, patched, x, &opts).is_not_equal());
    // One term on both sides is never refuted.
    assert!(refuted_before_proving(&t, x, x, &opts).is_none());
}
