//! `Terms` keeps IEEE's non-finite values: random term DAGs full of constant zeros,
//! reciprocals, logs, square roots and infinities — what masked lanes compute — are built
//! through the smart constructors and evaluated by `Terms::eval`, and the same trees are
//! evaluated by plain f64 arithmetic. The two agree everywhere, NaN for NaN and ±inf for
//! ±inf: no fold may turn `0 · (1/0)` or `0 · log 0` into 0.
//!
//! The one IEEE feature terms do not model is the sign of zero (every zero is +0, so
//! `1/(-0) = +inf`); points where the plain evaluation divides by -0 are left out, and
//! `check`'s concrete cross-check covers the difference for stored outputs.

use lift::term::{Func, TermId, Terms};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

#[derive(Clone, Debug)]
enum E {
    Input(usize),
    /// 0, 1, -1, 2, 1/2, +inf, -inf
    Const(usize),
    Add(Box<E>, Box<E>),
    Sub(Box<E>, Box<E>),
    Mul(Box<E>, Box<E>),
    Div(Box<E>, Box<E>),
    Recip(Box<E>),
    Call(Func, Box<E>),
    Max(Box<E>, Box<E>),
    /// IEEE maxNum / minNum (`true`: max): the operand that is not NaN.
    Num(bool, Box<E>, Box<E>),
    /// `select(x_i > c, a, b)`: a data-dependent choice between two sub-trees.
    Select(usize, usize, Box<E>, Box<E>),
    /// `select(t <op> ±inf, a, b)` (op from `CMPS`; `true`: -inf): the test a finite
    /// pivot makes of a running max (`m == -inf`).
    CmpInf(usize, bool, Box<E>, Box<E>, Box<E>),
}

const CMPS: [lift::term::CmpOp; 6] = {
    use lift::term::CmpOp::*;
    [Lt, Le, Gt, Ge, Eq, Ne]
};

fn ieee_cmp(op: lift::term::CmpOp, a: f64, b: f64) -> bool {
    use lift::term::CmpOp::*;
    match op {
        Lt => a < b,
        Le => a <= b,
        Gt => a > b,
        Ge => a >= b,
        Eq => a == b,
        Ne => a != b,
    }
}

const CONSTS: [f64; 7] = [0.0, 1.0, -1.0, 2.0, 0.5, f64::INFINITY, f64::NEG_INFINITY];
const FUNCS: [Func; 5] = [Func::Log, Func::Sqrt, Func::Rsqrt, Func::Exp, Func::Log2];

fn expr() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        2 => (0..3usize).prop_map(E::Input),
        3 => (0..CONSTS.len()).prop_map(E::Const),
    ];
    leaf.prop_recursive(5, 40, 2, |inner| {
        let b = || inner.clone().prop_map(Box::new);
        prop_oneof![
            1 => (b(), b()).prop_map(|(x, y)| E::Add(x, y)),
            1 => (b(), b()).prop_map(|(x, y)| E::Sub(x, y)),
            3 => (b(), b()).prop_map(|(x, y)| E::Mul(x, y)),
            2 => (b(), b()).prop_map(|(x, y)| E::Div(x, y)),
            1 => b().prop_map(E::Recip),
            2 => (0..FUNCS.len(), b()).prop_map(|(f, x)| E::Call(FUNCS[f], x)),
            1 => (b(), b()).prop_map(|(x, y)| E::Max(x, y)),
            1 => (any::<bool>(), b(), b()).prop_map(|(m, x, y)| E::Num(m, x, y)),
            1 => (0..3usize, 0..5usize, b(), b()).prop_map(|(i, c, x, y)| E::Select(i, c, x, y)),
            1 => (0..CMPS.len(), any::<bool>(), b(), b(), b())
                .prop_map(|(o, n, t, x, y)| E::CmpInf(o, n, t, x, y)),
        ]
    })
}

fn build(t: &mut Terms, e: &E) -> TermId {
    match e {
        E::Input(i) => t.input("x", &[*i as i64]),
        E::Const(k) => t.float(CONSTS[*k]),
        E::Add(a, b) => {
            let (a, b) = (build(t, a), build(t, b));
            t.add(a, b)
        }
        E::Sub(a, b) => {
            let (a, b) = (build(t, a), build(t, b));
            t.sub(a, b)
        }
        E::Mul(a, b) => {
            let (a, b) = (build(t, a), build(t, b));
            t.mul(a, b)
        }
        E::Div(a, b) => {
            let (a, b) = (build(t, a), build(t, b));
            t.div(a, b)
        }
        E::Recip(a) => {
            let a = build(t, a);
            t.recip(a)
        }
        E::Call(f, a) => {
            let a = build(t, a);
            t.call(*f, a)
        }
        E::Max(a, b) => {
            let (a, b) = (build(t, a), build(t, b));
            t.max(a, b)
        }
        E::Num(max, a, b) => {
            let (a, b) = (build(t, a), build(t, b));
            if *max {
                t.maxnum(a, b)
            } else {
                t.minnum(a, b)
            }
        }
        E::Select(i, c, a, b) => {
            let x = t.input("x", &[*i as i64]);
            let k = t.float(CONSTS[*c]);
            let cond = t.cmp(lift::term::CmpOp::Gt, x, k);
            let (a, b) = (build(t, a), build(t, b));
            t.select(cond, a, b)
        }
        E::CmpInf(o, neg, c, a, b) => {
            let c = build(t, c);
            let inf = t.inf(*neg);
            let cond = t.cmp(CMPS[*o], c, inf);
            let (a, b) = (build(t, a), build(t, b));
            t.select(cond, a, b)
        }
    }
}

/// A plain IEEE value, whether it depends on an input, and whether it left the real
/// line through the point: an op on finite operands that depend on inputs gave ±inf or
/// NaN (`1/x` at x = 0, `log x` at x < 0). Terms read such a symbolic op as finite
/// wherever defined (its domain is a precondition of the decider), so such points are
/// outside this property; constant poles and infinities (masked lanes) are inside it.
#[derive(Clone, Copy)]
struct Plain {
    v: f64,
    symbolic: bool,
    off_domain: bool,
}

/// Plain IEEE evaluation; max propagates NaN, as terms' max does.
fn plain(e: &E, x: &[f64; 3]) -> Plain {
    let r = |e: &E| plain(e, x);
    let leaf = |v: f64, symbolic: bool| Plain {
        v,
        symbolic,
        off_domain: false,
    };
    let op = |v: f64, args: &[Plain]| {
        let symbolic = args.iter().any(|a| a.symbolic);
        let finite = args.iter().all(|a| a.v.is_finite());
        let off_domain =
            args.iter().any(|a| a.off_domain) || (symbolic && finite && !v.is_finite());
        Plain {
            v,
            symbolic,
            off_domain,
        }
    };
    // Dividing by -0 gives the infinity of the other sign: terms have one zero (+0),
    // so such points are outside the property too; so is dividing by an input-dependent
    // zero (a pole of the terms, whatever the numerator).
    let by_negative_zero = |d: &Plain| d.v == 0.0 && (d.v.is_sign_negative() || d.symbolic);
    match e {
        E::Input(i) => leaf(x[*i], true),
        E::Const(k) => leaf(CONSTS[*k], false),
        E::Add(a, b) => {
            let (a, b) = (r(a), r(b));
            op(a.v + b.v, &[a, b])
        }
        E::Sub(a, b) => {
            let (a, b) = (r(a), r(b));
            op(a.v - b.v, &[a, b])
        }
        E::Mul(a, b) => {
            let (a, b) = (r(a), r(b));
            op(a.v * b.v, &[a, b])
        }
        E::Div(a, b) => {
            let (a, b) = (r(a), r(b));
            let mut v = op(a.v / b.v, &[a, b]);
            v.off_domain |= by_negative_zero(&b);
            v
        }
        E::Recip(a) => {
            let a = r(a);
            let mut v = op(1.0 / a.v, &[a]);
            v.off_domain |= by_negative_zero(&a);
            v
        }
        E::Call(f, a) => {
            let a = r(a);
            let mut v = op(lift::term::eval_func(*f, a.v), &[a]);
            v.off_domain |= *f == Func::Rsqrt && by_negative_zero(&a);
            v
        }
        E::Num(max, a, b) => {
            let (a, b) = (r(a), r(b));
            // Rust's f64::max/min are IEEE maxNum/minNum.
            let v = if *max { a.v.max(b.v) } else { a.v.min(b.v) };
            op(v, &[a, b])
        }
        E::Max(a, b) => {
            let (a, b) = (r(a), r(b));
            let v = if a.v.is_nan() || b.v.is_nan() {
                f64::NAN
            } else {
                a.v.max(b.v)
            };
            op(v, &[a, b])
        }
        E::Select(i, c, a, b) => {
            let picked = if x[*i] > CONSTS[*c] { r(a) } else { r(b) };
            Plain {
                symbolic: true,
                ..picked
            }
        }
        E::CmpInf(o, neg, c, a, b) => {
            let c = r(c);
            let inf = if *neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            };
            // IEEE: a comparison with NaN is false (`!=`: true).
            let picked = if ieee_cmp(CMPS[*o], c.v, inf) {
                r(a)
            } else {
                r(b)
            };
            Plain {
                symbolic: true,
                off_domain: picked.off_domain || c.off_domain,
                ..picked
            }
        }
    }
}

/// Values the refuter uses and the ones that make masked lanes: 0, ±1, small dyadics.
fn point() -> impl Strategy<Value = [f64; 3]> {
    let v = prop_oneof![
        Just(0.0),
        Just(1.0),
        Just(-1.0),
        (-16i32..=16).prop_map(|k| k as f64 / 8.0)
    ];
    [v.clone(), v.clone(), v]
}

fn agree(got: f64, want: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return want == got;
    }
    (got - want).abs() <= 1e-9 * (1.0 + want.abs())
}

#[test]
fn terms_evaluate_as_plain_ieee_arithmetic() {
    // A fixed seed: a failure is reproducible, and the failing tree is printed.
    let config = Config {
        cases: 4000,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let counts = std::cell::Cell::new((0usize, 0usize));
    runner
        .run(&(expr(), point()), |(e, x)| {
            let mut t = Terms::new();
            let id = build(&mut t, &e);
            let got = t.eval(id, &|_, i| x[i[0] as usize], &|_| f64::NAN);
            let want = plain(&e, &x);
            if want.off_domain {
                return Ok(());
            }
            let want = want.v;
            let (n, tot) = counts.get();
            counts.set((n + usize::from(!want.is_finite()), tot + 1));
            prop_assert!(
                agree(got, want),
                "terms give {got}, IEEE gives {want} at x = {x:?}\n  term: {}",
                t.display(id)
            );
            Ok(())
        })
        .unwrap();
    let (non_finite, total) = counts.get();
    // Not vacuous: a good share of the trees are NaN or infinite somewhere.
    assert!(non_finite * 5 > total, "{non_finite} of {total} non-finite");
}

/// `t == -inf` folds to false only where `t` is finite at every finite point: a
/// running max of scores, yes; `log x` or `1/x`, no (at x = 0 they are infinite, and
/// dropping the comparison would drop the only trace of that point).
#[test]
fn comparisons_with_infinity_fold_only_for_total_terms() {
    use lift::term::CmpOp;
    let mut t = Terms::new();
    let x = t.input("x", &[0]);
    let y = t.input("x", &[1]);
    let ninf = t.inf(true);
    let pinf = t.inf(false);
    let m = t.max(x, y);
    let e = t.call(Func::Exp, m);
    let mx = t.add(m, e);
    for (op, inf, want) in [
        (CmpOp::Eq, ninf, false),
        (CmpOp::Ne, ninf, true),
        (CmpOp::Gt, ninf, true),
        (CmpOp::Le, ninf, false),
        (CmpOp::Lt, pinf, true),
        (CmpOp::Ge, pinf, false),
    ] {
        let c = t.cmp(op, mx, inf);
        assert_eq!(t.as_bool(c), Some(want), "{}", t.display(c));
        let c = t.cmp(op, inf, mx);
        assert!(t.as_bool(c).is_some(), "{}", t.display(c));
    }
    let l = t.call(Func::Log, x);
    let r = t.recip(x);
    for partial in [l, r] {
        for inf in [ninf, pinf] {
            let c = t.cmp(CmpOp::Eq, partial, inf);
            assert_eq!(t.as_bool(c), None, "{}", t.display(c));
        }
    }
    // A loop-carried value of the all-sizes verifier may be -inf (a running max's first
    // iteration): its comparisons stay, and so do those of terms built on it.
    let carried = t.carried_param("loop0.0.0");
    let m2 = t.max(carried, x);
    for c in [carried, m2] {
        let cmp = t.cmp(CmpOp::Eq, c, ninf);
        assert_eq!(t.as_bool(cmp), None, "{}", t.display(cmp));
    }
    let scale = t.param("scale");
    let scaled = t.mul(scale, x);
    let cmp = t.cmp(CmpOp::Eq, scaled, ninf);
    assert_eq!(
        t.as_bool(cmp),
        Some(false),
        "a kernel's scalar argument is finite"
    );
    // The kernel's own value at x = 0 keeps the branch it takes there.
    let one = t.one();
    let two = t.int(2);
    let c = t.cmp(CmpOp::Eq, l, ninf);
    let s = t.select(c, one, two);
    assert_eq!(t.eval(s, &|_, _| 0.0, &|_| f64::NAN), 1.0);
}

/// The folds that used to hide a masked lane's NaN, one by one.
#[test]
fn masked_lane_forms_stay_nan() {
    let mut t = Terms::new();
    let zero = t.zero();
    let x = t.input("x", &[0]);
    let nan = |t: &Terms, id: TermId| t.eval(id, &|_, _| 1.5, &|_| 0.0).is_nan();
    // 0 / 0 (a ratio loaded with other=0 on both sides)
    let r = t.div(zero, zero);
    assert!(t.is_nan(r), "{}", t.display(r));
    // 0 · log(0) (entropy's masked lanes)
    let l = t.call(Func::Log, zero);
    let p = t.mul(zero, l);
    assert!(t.is_nan(p), "{}", t.display(p));
    // 0 · log(0 / 0) (KL divergence's)
    let q = t.div(zero, zero);
    let lq = t.call(Func::Log, q);
    let kl = t.mul(zero, lq);
    assert!(t.is_nan(kl));
    // 0 · rsqrt(0)
    let rs = t.call(Func::Rsqrt, zero);
    let z = t.mul(zero, rs);
    assert!(t.is_nan(z));
    // A sum with one NaN lane is NaN.
    let s = t.sum(&[x, r]);
    assert!(t.is_nan(s));
    // t - t with t possibly infinite is not 0 ...
    let inf = t.inf(false);
    let c = t.cmp(lift::term::CmpOp::Gt, x, zero);
    let sel = t.select(c, inf, x);
    let d = t.sub(sel, sel);
    assert!(nan(&t, d), "{}", t.display(d));
    // ... and neither is 0 · t, nor is t == t always true.
    let m = t.mul(zero, sel);
    assert!(nan(&t, m), "{}", t.display(m));
    // Wrong twins of the rules: finite terms still fold.
    let y = t.sub(x, x);
    assert_eq!(y, zero);
    let lx = t.call(Func::Log, x);
    let w = t.mul(zero, lx);
    assert_eq!(w, zero, "log(x) of a symbolic x is finite wherever defined");
}
