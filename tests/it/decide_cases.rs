//! Case splits that need the equalities and contradictions of a case: `>` against
//! `>=` where the branches agree on the boundary, clamps, and their wrong twins.

use lift::decide::{decide, Options, Verdict};
use lift::term::{CmpOp, Func, TermId, Terms};

#[track_caller]
fn equal(t: &Terms, a: TermId, b: TermId) {
    let v = decide(t, a, b, &Options::default());
    assert!(
        v.is_equal(),
        "expected Equal:\n  {}\n  {}\ngot {v:?}",
        t.display(a),
        t.display(b)
    );
}

/// NotEqual, and the counterexample replays through `Terms::eval`.
#[track_caller]
fn not_equal(t: &Terms, a: TermId, b: TermId) {
    let v = decide(t, a, b, &Options::default());
    let Verdict::NotEqual(cex) = v else {
        panic!(
            "expected NotEqual:\n  {}\n  {}\ngot {v:?}",
            t.display(a),
            t.display(b)
        )
    };
    let (l, r) = (cex.eval(t, a), cex.eval(t, b));
    assert!(l.is_finite() && r.is_finite(), "every leaf has a value");
    assert!(
        (l - r).abs() > 1e-6 * 1f64.max(l.abs()).max(r.abs()),
        "counterexample does not replay: {l} vs {r}"
    );
}

fn f32c(t: &mut Terms, v: f64) -> TermId {
    t.float(v as f32 as f64)
}

/// `select(x op 0, x, slope·x)`.
fn leaky(t: &mut Terms, x: TermId, op: CmpOp, slope: f64) -> TermId {
    let zero = t.zero();
    let c = t.cmp(op, x, zero);
    let k = f32c(t, slope);
    let kx = t.mul(k, x);
    t.select(c, x, kx)
}

#[test]
fn leaky_relu_ge_equals_gt() {
    let mut t = Terms::new();
    let x = t.input("x", &[0]);
    let a = leaky(&mut t, x, CmpOp::Ge, 0.01);
    let b = leaky(&mut t, x, CmpOp::Gt, 0.01);
    equal(&t, a, b);
    // Written the other way round: select(0 <= x, ...) vs select(0 < x, ...).
    let zero = t.zero();
    let k = f32c(&mut t, 0.01);
    let kx = t.mul(k, x);
    let c1 = t.cmp(CmpOp::Le, zero, x);
    let c2 = t.cmp(CmpOp::Lt, zero, x);
    let s1 = t.select(c1, x, kx);
    let s2 = t.select(c2, x, kx);
    equal(&t, s1, s2);
    equal(&t, s1, b);
    // With the negated condition and swapped branches.
    let c3 = t.cmp(CmpOp::Lt, x, zero);
    let s3 = t.select(c3, kx, x);
    equal(&t, s3, b);
}

#[test]
fn leaky_relu_wrong_twins() {
    let mut t = Terms::new();
    let x = t.input("x", &[0]);
    let a = leaky(&mut t, x, CmpOp::Ge, 0.02);
    let b = leaky(&mut t, x, CmpOp::Gt, 0.01);
    not_equal(&t, a, b);
    // The boundary moved: select(x >= 1, x, 0) vs select(x > 0, x, 0) differ on (0, 1).
    let zero = t.zero();
    let one = t.int(1);
    let c1 = t.cmp(CmpOp::Ge, x, one);
    let s1 = t.select(c1, x, zero);
    let c2 = t.cmp(CmpOp::Gt, x, zero);
    let s2 = t.select(c2, x, zero);
    not_equal(&t, s1, s2);
    // Branches that disagree at the boundary: select(x >= 0, x + 1, x) vs
    // select(x > 0, x + 1, x) differ only at x = 0, which no random point hits, so the
    // answer must not be Equal.
    let x1 = t.add(x, one);
    let c3 = t.cmp(CmpOp::Ge, x, zero);
    let s3 = t.select(c3, x1, x);
    let s4 = t.select(c2, x1, x);
    assert!(!decide(&t, s3, s4, &Options::default()).is_equal());
}

#[test]
fn relu_forms_agree() {
    let mut t = Terms::new();
    let x = t.input("x", &[0]);
    let zero = t.zero();
    let ge = t.cmp(CmpOp::Ge, x, zero);
    let gt = t.cmp(CmpOp::Gt, x, zero);
    let r1 = t.select(ge, x, zero);
    let r2 = t.select(gt, x, zero);
    let m = t.max(x, zero);
    equal(&t, r1, m);
    equal(&t, r1, r2);
    // relu(x) * y, the product keeps the select out of the extremum pattern.
    let y = t.input("y", &[0]);
    let xy = t.mul(x, y);
    let a = t.select(ge, xy, zero);
    let b = t.select(gt, xy, zero);
    equal(&t, a, b);
    let my = t.mul(m, y);
    equal(&t, a, my);
}

#[test]
fn boundary_through_exp_and_params() {
    let mut t = Terms::new();
    let x = t.input("x", &[0]);
    let y = t.param("y");
    let one = t.int(1);
    // select(x >= y, exp(x - y), 1 + x - y) vs the same with >: both are 1 at x = y.
    let d = t.sub(x, y);
    let e = t.call(Func::Exp, d);
    let lin = t.add(one, d);
    let ge = t.cmp(CmpOp::Ge, x, y);
    let gt = t.cmp(CmpOp::Gt, x, y);
    let a = t.select(ge, e, lin);
    let b = t.select(gt, e, lin);
    equal(&t, a, b);
    // f = 3·(x - y)·z, g = (x - y)·w agree (both 0) at x = y.
    let z = t.input("z", &[0]);
    let w = t.input("w", &[0]);
    let three = t.int(3);
    let f = t.product(&[three, d, z]);
    let g = t.mul(d, w);
    let a = t.select(ge, f, g);
    let b = t.select(gt, f, g);
    equal(&t, a, b);
    // ... but not f = 3·(x - y) + z against g = (x - y) + w.
    let d3 = t_mul3(&mut t, d);
    let f2 = t.add(d3, z);
    let g2 = t.add(d, w);
    let a2 = t.select(ge, f2, g2);
    let b2 = t.select(gt, f2, g2);
    assert!(!decide(&t, a2, b2, &Options::default()).is_equal());
}

fn t_mul3(t: &mut Terms, d: TermId) -> TermId {
    let three = t.int(3);
    t.mul(three, d)
}

#[test]
fn clamp_with_selects_equals_min_max() {
    let mut t = Terms::new();
    let x = t.input("x", &[0]);
    let zero = t.zero();
    let six = t.int(6);
    // relu6: select(x > 6, 6, select(x < 0, 0, x)) vs min(max(x, 0), 6).
    let lt0 = t.cmp(CmpOp::Lt, x, zero);
    let inner = t.select(lt0, zero, x);
    let gt6 = t.cmp(CmpOp::Gt, x, six);
    let sel = t.select(gt6, six, inner);
    let mx = t.max(x, zero);
    let mm = t.min(mx, six);
    equal(&t, sel, mm);
    // >= / <= variants of the same clamp.
    let le0 = t.cmp(CmpOp::Le, x, zero);
    let inner2 = t.select(le0, zero, x);
    let ge6 = t.cmp(CmpOp::Ge, x, six);
    let sel2 = t.select(ge6, six, inner2);
    equal(&t, sel2, sel);
    equal(&t, sel2, mm);
    // Wrong twin: clamp to [0, 1] (the random points lie in [-2, 2]).
    let one = t.int(1);
    let mm1 = t.min(mx, one);
    not_equal(&t, sel, mm1);
    // The same clamp written with params: select(x < lo, lo, select(x > hi, hi, x))
    // is min(max(x, lo), hi) only when lo <= hi, so it must not be Equal.
    let lo = t.param("lo");
    let hi = t.param("hi");
    let gthi = t.cmp(CmpOp::Gt, x, hi);
    let in1 = t.select(gthi, hi, x);
    let ltlo = t.cmp(CmpOp::Lt, x, lo);
    let cl = t.select(ltlo, lo, in1);
    let mxl = t.max(x, lo);
    let mmh = t.min(mxl, hi);
    assert!(!decide(&t, cl, mmh, &Options::default()).is_equal());
    // With constants -1 <= 1 it is.
    let m1 = t.int(-1);
    let gt1 = t.cmp(CmpOp::Gt, x, one);
    let in2 = t.select(gt1, one, x);
    let ltm1 = t.cmp(CmpOp::Lt, x, m1);
    let cl2 = t.select(ltm1, m1, in2);
    let a = t.max(x, m1);
    let b = t.min(a, one);
    equal(&t, cl2, b);
    let a = t.min(x, one);
    let b = t.max(a, m1);
    equal(&t, cl2, b);
}

#[test]
fn contradictory_cases_are_skipped() {
    let mut t = Terms::new();
    let x = t.input("x", &[0]);
    let y = t.input("y", &[0]);
    let zero = t.zero();
    // select(x > 0, select(x < 0, y, x), x) = x: the inner y branch is unreachable.
    let gt = t.cmp(CmpOp::Gt, x, zero);
    let lt = t.cmp(CmpOp::Lt, x, zero);
    let inner = t.select(lt, y, x);
    let a = t.select(gt, inner, x);
    equal(&t, a, x);
    // select(x == 0, select(x > 0, y, x), x) = x: under x = 0 the inner test is false.
    let eq = t.cmp(CmpOp::Eq, x, zero);
    let inner = t.select(gt, y, x);
    let b = t.select(eq, inner, x);
    equal(&t, b, x);
    // select(x == 1, select(x > 0, x, y), x) = x: x = 1 makes x > 0 true.
    let one = t.int(1);
    let eq1 = t.cmp(CmpOp::Eq, x, one);
    let inner = t.select(gt, x, y);
    let c = t.select(eq1, inner, x);
    equal(&t, c, x);
    // The wrong twin: select(x >= 0, select(x > 0, x, y), x) is y at x = 0.
    let ge = t.cmp(CmpOp::Ge, x, zero);
    let inner = t.select(gt, x, y);
    let d = t.select(ge, inner, x);
    assert!(!decide(&t, d, x, &Options::default()).is_equal());
}

/// A comparison whose sides agree up to rounding (`x / x >= 1`, evaluated in floats as
/// `x · x^-1`, which can round below 1) is no counterexample: the refuter leaves such
/// points undecided instead of reporting a difference the reals do not have.
#[test]
fn comparisons_within_rounding_never_refute() {
    let mut t = Terms::new();
    let one = t.int(1);
    let zero = t.int(0);
    let x = t.input("x", &[0]);
    let q = t.div(x, x);
    let c = t.cmp(CmpOp::Ge, q, one);
    let a = t.select(c, x, zero);
    // At x = 49, `x · (1/x)` is 0.9999999999999999 in f64: the point the refuter tries
    // first must not turn that rounding into a counterexample.
    let at_49 = |_: &lift::decide::Leaf| Some(49.0);
    let v = lift::decide::decide_with_points(&t, a, x, &Options::default(), &at_49);
    assert!(v.is_equal(), "{v:?}");
    // Wrong twin: `x / x >= 2` never holds, so the select is 0, not x; refuted (and the
    // counterexample replays), with the same point offered first.
    let two = t.int(2);
    let c2 = t.cmp(CmpOp::Ge, q, two);
    let a2 = t.select(c2, x, zero);
    let v = lift::decide::decide_with_points(&t, a2, x, &Options::default(), &at_49);
    let Verdict::NotEqual(cex) = v else {
        panic!("expected NotEqual: {v:?}")
    };
    assert_eq!((cex.eval(&t, a2), cex.eval(&t, x)), (0.0, 49.0));
}

/// A case whose comparisons order three values in a cycle with one strict step
/// (`a > b`, `b >= c`, `c >= a`) has no point: the value there never shows. That is
/// what an argmax loop's running comparisons produce. Wrong twin: `c <= a` closes no
/// cycle (a = 3, b = 2, c = 1 satisfies all three), so the hidden value is reachable.
#[test]
fn ordering_cycles_are_infeasible() {
    let mut t = Terms::new();
    let (a, b, c) = (t.input("x", &[0]), t.input("x", &[1]), t.input("x", &[2]));
    let (one, zero) = (t.one(), t.zero());
    let nested = |t: &mut Terms, last: CmpOp| {
        let ab = t.cmp(CmpOp::Gt, a, b);
        let bc = t.cmp(CmpOp::Ge, b, c);
        let ca = t.cmp(last, c, a);
        let inner = t.select(ca, one, zero);
        let mid = t.select(bc, inner, zero);
        t.select(ab, mid, zero)
    };
    let cycle = nested(&mut t, CmpOp::Ge);
    equal(&t, cycle, zero);
    let open = nested(&mut t, CmpOp::Le);
    not_equal(&t, open, zero);
}

/// Row-sized chunks (`decide_rows`) give the verdicts of `decide_all`: softmax over two
/// rows of 160 elements (one row per chunk), the kernel side `exp(x_j) / Σ exp(x_k)`, the
/// formula side with the row max subtracted (equal, by cancelling `exp(-m)`); one element
/// of the second row is wrong (its numerator reads the neighbouring element) and must be
/// refuted either way.
#[test]
fn row_chunks_decide_as_the_default_chunks() {
    use lift::decide::{decide_all, decide_rows};
    let (rows, n) = (2usize, 160usize);
    let mut t = Terms::new();
    let mut pairs = Vec::new();
    for r in 0..rows {
        let x: Vec<TermId> = (0..n)
            .map(|j| t.input("x", &[r as i64, j as i64]))
            .collect();
        let m = x[1..].iter().fold(x[0], |acc, &v| t.max(acc, v));
        let shifted: Vec<TermId> = x
            .iter()
            .map(|&v| {
                let d = t.sub(v, m);
                t.call(Func::Exp, d)
            })
            .collect();
        let plain: Vec<TermId> = x.iter().map(|&v| t.call(Func::Exp, v)).collect();
        let (shifted_sum, plain_sum) = (t.sum(&shifted), t.sum(&plain));
        for j in 0..n {
            let num = if r == 1 && j == 7 { plain[8] } else { plain[j] };
            let kernel = t.div(num, plain_sum);
            let formula = t.div(shifted[j], shifted_sum);
            pairs.push((kernel, formula));
        }
    }
    let opts = Options::default();
    let by_row = decide_rows(&t, &pairs, &opts, n);
    let default = decide_all(&t, &pairs, &opts);
    assert_eq!(by_row.len(), pairs.len());
    for (k, (a, b)) in by_row.iter().zip(&default).enumerate() {
        let wrong = k == n + 7;
        assert_eq!(a.is_equal(), !wrong, "element {k}: {a:?}");
        assert_eq!(b.is_equal(), !wrong, "element {k}: {b:?}");
        assert_eq!(a.is_not_equal(), wrong, "element {k}: {a:?}");
    }
}
