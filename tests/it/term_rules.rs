//! Unit tests of the term store: one test per normalisation rule, the ±inf/NaN rules,
//! hash-consing, evaluation and printing.

use lift::term::{CmpOp, Func, Node, TermId, Terms};
use num_bigint::BigInt;
use num_rational::BigRational;

fn q(n: i64, d: i64) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

struct T {
    t: Terms,
}

impl T {
    fn new() -> Self {
        T { t: Terms::new() }
    }
    fn x(&mut self, i: i64) -> TermId {
        self.t.input("x", &[0, i])
    }
    fn p(&mut self, name: &str) -> TermId {
        self.t.param(name)
    }
    fn c(&mut self, n: i64, d: i64) -> TermId {
        self.t.constant(q(n, d))
    }
    fn show(&self, id: TermId) -> String {
        self.t.display(id).to_string()
    }
    fn ev(&self, id: TermId) -> f64 {
        self.t.eval(
            id,
            &|_, idx| [0.5, -1.25, 3.0, 2.0][idx[1] as usize],
            &|_| 0.25,
        )
    }
}

#[test]
fn terms_is_send_and_sync() {
    fn check<X: Send + Sync>() {}
    check::<Terms>();
}

#[test]
fn hash_consing_gives_equal_ids_for_equal_nodes() {
    let mut t = T::new();
    let a = t.x(0);
    let b = t.x(0);
    assert_eq!(a, b);
    assert_ne!(t.x(1), a);
    assert_eq!(t.p("eps"), t.p("eps"));
    assert_eq!(t.c(3, 4), t.c(6, 8));
    assert_eq!(t.t.float(0.75), t.c(3, 4));
    let e1 = t.t.call(Func::Exp, a);
    let e2 = t.t.call(Func::Exp, b);
    assert_eq!(e1, e2);
    let n = t.t.len();
    let y = t.x(1);
    let s1 = t.t.add(e1, y);
    let s2 = t.t.add(y, e2);
    assert_eq!(s1, s2);
    assert_eq!(t.t.len(), n + 1, "one new Add node, nothing else");
}

#[test]
fn sum_flattens_sorts_and_folds_constants() {
    let mut t = T::new();
    let (a, b, c) = (t.x(0), t.x(1), t.x(2));
    let one = t.c(1, 1);
    let half = t.c(1, 2);
    let ab = t.t.add(b, a);
    let s = t.t.sum(&[one, c, ab, half]);
    let three_halves = t.c(3, 2);
    match t.t.node(s) {
        Node::Add(ops) => assert_eq!(&ops[..], &[three_halves, a, b, c]),
        n => panic!("{n:?}"),
    }
    assert_eq!(t.show(s), "x[0,0] + x[0,1] + x[0,2] + 1.5");
    // Nested sums flatten: (a + b) + c == a + (b + c).
    let bc = t.t.add(b, c);
    let l = t.t.add(ab, c);
    let r = t.t.add(a, bc);
    assert_eq!(l, r);
}

#[test]
fn sum_neutral_singleton_and_empty() {
    let mut t = T::new();
    let a = t.x(0);
    let z = t.t.zero();
    assert_eq!(t.t.add(a, z), a);
    assert_eq!(t.t.sum(&[a]), a);
    assert_eq!(t.t.sum(&[]), z);
    let one = t.t.one();
    let m1 = t.c(-1, 1);
    assert_eq!(t.t.add(one, m1), z);
}

#[test]
fn sum_combines_like_terms() {
    let mut t = T::new();
    let (a, b) = (t.x(0), t.x(1));
    let aa = t.t.add(a, a);
    let two = t.c(2, 1);
    assert_eq!(aa, t.t.mul(two, a));
    assert_eq!(t.show(aa), "2 * x[0,0]");
    // a*b + 3*a*b = 4*a*b
    let ab = t.t.mul(a, b);
    let three = t.c(3, 1);
    let ab3 = t.t.product(&[three, a, b]);
    let s = t.t.add(ab, ab3);
    let four = t.c(4, 1);
    assert_eq!(s, t.t.product(&[four, b, a]));
    // a - a = 0 (inputs are finite reals)
    let d = t.t.sub(a, a);
    assert_eq!(d, t.t.zero());
    // a + b - a = b
    let s = t.t.add(a, b);
    assert_eq!(t.t.sub(s, a), b);
}

#[test]
fn product_flattens_sorts_folds_and_drops_one() {
    let mut t = T::new();
    let (a, b, c) = (t.x(0), t.x(1), t.x(2));
    let two = t.c(2, 1);
    let third = t.c(1, 3);
    let bc = t.t.mul(c, b);
    let p = t.t.product(&[two, bc, a, third]);
    let two_thirds = t.c(2, 3);
    match t.t.node(p) {
        Node::Mul(ops) => assert_eq!(&ops[..], &[two_thirds, a, b, c]),
        n => panic!("{n:?}"),
    }
    assert_eq!(t.show(p), "2 * x[0,0] * x[0,1] * x[0,2] / 3");
    let one = t.t.one();
    assert_eq!(t.t.mul(a, one), a);
    assert_eq!(t.t.product(&[a]), a);
    assert_eq!(t.t.product(&[]), one);
    let z = t.t.zero();
    assert_eq!(t.t.mul(bc, z), z);
}

#[test]
fn product_merges_powers_of_the_same_sign_only() {
    let mut t = T::new();
    let a = t.x(0);
    let aa = t.t.mul(a, a);
    assert_eq!(t.t.node(aa), &Node::Pow(a, 2));
    let a3 = t.t.mul(aa, a);
    assert_eq!(t.t.node(a3), &Node::Pow(a, 3));
    assert_eq!(t.show(a3), "x[0,0]^3");
    // x / x is not cancelled: the precondition x != 0 must survive.
    let r = t.t.div(a, a);
    assert!(
        matches!(t.t.node(r), Node::Mul(ops) if ops.len() == 2),
        "{}",
        t.show(r)
    );
    assert_eq!(t.show(r), "x[0,0] / x[0,0]");
    let r2 = t.t.div(aa, a);
    assert_eq!(t.show(r2), "x[0,0]^2 / x[0,0]");
    // 1/x * 1/x = x^-2
    let inv = t.t.recip(a);
    let inv2 = t.t.mul(inv, inv);
    assert_eq!(t.t.node(inv2), &Node::Pow(a, -2));
    assert_eq!(t.show(inv2), "1 / x[0,0]^2");
}

#[test]
fn powers_fold() {
    let mut t = T::new();
    let a = t.x(0);
    let b = t.x(1);
    assert_eq!(t.t.powi(a, 1), a);
    assert_eq!(t.t.powi(a, 0), t.t.one());
    let a2 = t.t.powi(a, 2);
    let a6 = t.t.powi(a2, 3);
    assert_eq!(t.t.node(a6), &Node::Pow(a, 6));
    let inv = t.t.recip(a);
    assert_eq!(t.t.recip(inv), a, "(x^-1)^-1 = x");
    // Powers distribute over products: (2ab)^-1 = 1/2 * a^-1 * b^-1.
    let two = t.c(2, 1);
    let ab2 = t.t.product(&[two, a, b]);
    let r = t.t.recip(ab2);
    assert_eq!(t.show(r), "0.5 / (x[0,0] * x[0,1])");
    // Constants fold exactly.
    let c = t.c(2, 3);
    assert_eq!(t.t.powi(c, -3), t.c(27, 8));
    // 0^-1 is IEEE's +inf (a masked lane's 1/0), and 0 · (1/0) is NaN, not 0.
    let z = t.t.zero();
    let zi = t.t.recip(z);
    assert_eq!(t.t.node(zi), &Node::Inf { negative: false });
    let zz = t.t.mul(z, zi);
    assert_eq!(t.t.node(zz), &Node::NaN);
    // Huge powers of constants stay unfolded instead of exhausting memory.
    let c = t.c(3, 2);
    let big = t.t.powi(c, i32::MAX);
    assert_eq!(t.t.node(big), &Node::Pow(c, i32::MAX));
    // Exponent overflow does not panic.
    let a_big = t.t.powi(a, 1 << 20);
    let _ = t.t.powi(a_big, 1 << 20);
    let _ = t.t.mul(a_big, a_big);
    let _ = t.t.mul(big, big);
}

#[test]
fn neg_sub_div() {
    let mut t = T::new();
    let (a, b) = (t.x(0), t.x(1));
    let na = t.t.neg(a);
    let m1 = t.c(-1, 1);
    assert_eq!(na, t.t.mul(m1, a));
    assert_eq!(t.t.neg(na), a);
    assert_eq!(t.show(na), "-x[0,0]");
    let d = t.t.sub(a, b);
    assert_eq!(t.show(d), "x[0,0] - x[0,1]");
    let q = t.t.div(a, b);
    assert_eq!(t.show(q), "x[0,0] / x[0,1]");
    let c = t.c(6, 1);
    let three = t.c(3, 1);
    assert_eq!(t.t.div(c, three), t.c(2, 1));
}

#[test]
fn max_min_rules() {
    let mut t = T::new();
    let (a, b, c) = (t.x(0), t.x(1), t.x(2));
    let m1 = t.t.max(b, a);
    let m2 = t.t.max(a, b);
    assert_eq!(m1, m2);
    assert_eq!(t.t.max(a, a), a);
    let m3 = t.t.maxn(&[m1, c, a]);
    assert_eq!(m3, t.t.maxn(&[a, b, c]), "flattened and deduplicated");
    let n1 = t.t.min(b, a);
    let n3 = t.t.minn(&[n1, c, a]);
    assert_eq!(n3, t.t.minn(&[a, b, c]), "min flattened and deduplicated");
    let two = t.c(2, 1);
    let three = t.c(3, 1);
    let m = t.t.maxn(&[two, a, three]);
    assert_eq!(t.show(m), "max(x[0,0], 3)");
    let m = t.t.minn(&[two, a, three]);
    assert_eq!(t.show(m), "min(x[0,0], 2)");
    assert_eq!(t.t.max(two, three), three);
    assert_eq!(t.t.min(two, three), two);
    // max and min do not flatten into each other.
    let mn = t.t.min(m1, c);
    assert!(matches!(t.t.node(mn), Node::Min(ops) if ops.len() == 2));
}

#[test]
fn inf_rules_in_max_min() {
    let mut t = T::new();
    let (a, b) = (t.x(0), t.x(1));
    let ninf = t.t.float(f64::NEG_INFINITY);
    let pinf = t.t.float(f64::INFINITY);
    assert_eq!(t.t.node(ninf), &Node::Inf { negative: true });
    assert_eq!(t.t.max(ninf, a), a);
    let m = t.t.maxn(&[a, ninf, b]);
    assert_eq!(m, t.t.max(a, b));
    assert_eq!(t.t.max(pinf, a), pinf);
    assert_eq!(t.t.min(pinf, a), a);
    assert_eq!(t.t.min(ninf, a), ninf);
    assert_eq!(t.t.max(ninf, ninf), ninf);
    assert_eq!(t.t.maxn(&[]), ninf);
    assert_eq!(t.t.minn(&[]), pinf);
}

#[test]
fn inf_rules_in_arithmetic() {
    let mut t = T::new();
    let a = t.x(0);
    let ninf = t.t.inf(true);
    let pinf = t.t.inf(false);
    let nan = t.t.nan();
    assert_eq!(t.t.add(a, ninf), ninf);
    assert_eq!(t.t.add(a, pinf), pinf);
    assert_eq!(t.t.add(pinf, ninf), nan);
    let two = t.c(2, 1);
    let m2 = t.c(-2, 1);
    let z = t.t.zero();
    assert_eq!(t.t.mul(two, pinf), pinf);
    assert_eq!(t.t.mul(m2, pinf), ninf);
    assert_eq!(t.t.mul(m2, ninf), pinf);
    assert_eq!(t.t.mul(z, pinf), nan);
    assert_eq!(t.t.neg(ninf), pinf);
    assert_eq!(t.t.sub(a, pinf), ninf);
    assert_eq!(t.t.mul(ninf, ninf), pinf);
    assert_eq!(t.t.recip(pinf), z);
    // x * inf has unknown sign: it stays symbolic, and so does x * inf + inf.
    let ai = t.t.mul(a, pinf);
    assert_eq!(t.show(ai), "x[0,0] * inf");
    let s = t.t.add(ai, pinf);
    assert!(matches!(t.t.node(s), Node::Add(_)), "{}", t.show(s));
    // exp / exp2 at ±inf.
    assert_eq!(t.t.call(Func::Exp, ninf), z);
    assert_eq!(t.t.call(Func::Exp2, ninf), z);
    assert_eq!(t.t.call(Func::Exp, pinf), pinf);
    assert_eq!(t.t.call(Func::Exp2, pinf), pinf);
    // The masked-lane pattern: exp(-inf - max(x, -inf)) = 0.
    let m = t.t.max(a, ninf);
    let d = t.t.sub(ninf, m);
    assert_eq!(t.t.call(Func::Exp, d), z);
}

#[test]
fn nan_propagates_everywhere() {
    let mut t = T::new();
    let a = t.x(0);
    let nan = t.t.float(f64::NAN);
    assert_eq!(t.t.node(nan), &Node::NaN);
    assert_eq!(t.t.add(a, nan), nan);
    assert_eq!(t.t.mul(a, nan), nan);
    let z = t.t.zero();
    assert_eq!(t.t.mul(z, nan), nan);
    assert_eq!(t.t.powi(nan, 0), nan);
    assert_eq!(t.t.max(a, nan), nan);
    assert_eq!(t.t.min(nan, a), nan);
    assert_eq!(t.t.call(Func::Sqrt, nan), nan);
    assert_eq!(t.t.not(nan), nan);
    let c = t.t.cmp(CmpOp::Lt, a, z);
    assert_eq!(t.t.and(c, nan), nan);
    assert_eq!(t.t.select(nan, a, z), nan);
    // IEEE comparisons with NaN: false, except !=.
    let eq = t.t.cmp(CmpOp::Eq, nan, nan);
    assert_eq!(t.t.as_bool(eq), Some(false));
    let ne = t.t.cmp(CmpOp::Ne, nan, a);
    assert_eq!(t.t.as_bool(ne), Some(true));
}

#[test]
fn function_folding_is_exact_only() {
    let mut t = T::new();
    let z = t.t.zero();
    let one = t.t.one();
    assert_eq!(t.t.call(Func::Exp, z), one);
    assert_eq!(t.t.call(Func::Log, one), z);
    assert_eq!(t.t.call(Func::Sin, z), z);
    assert_eq!(t.t.call(Func::Cos, z), one);
    assert_eq!(t.t.call(Func::Tanh, z), z);
    assert_eq!(t.t.call(Func::Erf, z), z);
    let c = t.c(9, 4);
    assert_eq!(t.t.call(Func::Sqrt, c), t.c(3, 2));
    assert_eq!(t.t.call(Func::Rsqrt, c), t.c(2, 3));
    let m = t.c(-7, 2);
    assert_eq!(t.t.call(Func::Abs, m), t.c(7, 2));
    assert_eq!(t.t.call(Func::Floor, m), t.c(-4, 1));
    assert_eq!(t.t.call(Func::Ceil, m), t.c(-3, 1));
    let three = t.c(3, 1);
    assert_eq!(t.t.call(Func::Exp2, three), t.c(8, 1));
    let eighth = t.c(1, 8);
    assert_eq!(t.t.call(Func::Log2, eighth), t.c(-3, 1));
    let eight = t.c(8, 1);
    assert_eq!(t.t.call(Func::Log2, eight), three);
    let six = t.c(6, 1);
    let l6 = t.t.call(Func::Log2, six);
    assert_eq!(
        t.t.node(l6),
        &Node::Call(Func::Log2, six),
        "log2(6) is not exact"
    );
    // Not exact: stays a call.
    let two = t.c(2, 1);
    for f in [
        Func::Sqrt,
        Func::Exp,
        Func::Log,
        Func::Tanh,
        Func::Sin,
        Func::Erf,
    ] {
        let e = t.t.call(f, two);
        assert_eq!(t.t.node(e), &Node::Call(f, two));
    }
    let e = t.t.call(Func::Sqrt, two);
    assert_eq!(t.show(e), "sqrt(2)");
    // Outside the real domain, constants take IEEE's values.
    let neg = t.t.call(Func::Sqrt, m);
    assert_eq!(t.t.node(neg), &Node::NaN, "sqrt(-7/2) is NaN");
    let z = t.t.zero();
    let l0 = t.t.call(Func::Log, z);
    assert_eq!(t.t.node(l0), &Node::Inf { negative: true }, "log(0) = -inf");
    let r0 = t.t.call(Func::Rsqrt, z);
    assert_eq!(
        t.t.node(r0),
        &Node::Inf { negative: false },
        "rsqrt(0) = inf"
    );
    let a = t.x(0);
    let ab = t.t.call(Func::Abs, a);
    assert_eq!(t.t.call(Func::Abs, ab), ab);
}

#[test]
fn comparisons_fold_on_constants_and_infs() {
    let mut t = T::new();
    let a = t.x(0);
    let one = t.t.one();
    let z = t.t.zero();
    let two = t.c(2, 1);
    let ninf = t.t.inf(true);
    assert_eq!(t.t.cmp(CmpOp::Lt, one, two), one);
    assert_eq!(t.t.cmp(CmpOp::Ge, one, two), z);
    assert_eq!(t.t.cmp(CmpOp::Gt, two, ninf), one);
    assert_eq!(t.t.cmp(CmpOp::Eq, ninf, ninf), one);
    assert_eq!(t.t.cmp(CmpOp::Le, a, a), one);
    assert_eq!(t.t.cmp(CmpOp::Ne, a, a), z);
    let c = t.t.cmp(CmpOp::Lt, a, two);
    assert_eq!(t.show(c), "x[0,0] < 2");
    assert_eq!(t.t.as_bool(c), None);
}

#[test]
fn logic_folds() {
    let mut t = T::new();
    let (a, b) = (t.x(0), t.x(1));
    let one = t.t.one();
    let z = t.t.zero();
    let c = t.t.cmp(CmpOp::Lt, a, b);
    let d = t.t.cmp(CmpOp::Eq, a, z);
    assert_eq!(t.t.not(one), z);
    assert_eq!(t.t.not(z), one);
    let nc = t.t.not(c);
    assert_eq!(t.show(nc), "x[0,0] >= x[0,1]");
    assert_eq!(t.t.not(nc), c);
    assert_eq!(t.t.and(c, one), c);
    assert_eq!(t.t.and(c, z), z);
    assert_eq!(t.t.or(c, one), one);
    assert_eq!(t.t.or(c, z), c);
    assert_eq!(t.t.and(c, c), c);
    let cd = t.t.and(c, d);
    assert_eq!(cd, t.t.and(d, c));
    let cdc = t.t.and(cd, c);
    assert_eq!(cdc, cd);
    let o = t.t.or(cd, d);
    let no = t.t.not(o);
    assert!(t.show(no).starts_with("!("), "{}", t.show(no));
}

#[test]
fn select_folds() {
    let mut t = T::new();
    let (a, b) = (t.x(0), t.x(1));
    let one = t.t.one();
    let z = t.t.zero();
    assert_eq!(t.t.select(one, a, b), a);
    assert_eq!(t.t.select(z, a, b), b);
    let c = t.t.cmp(CmpOp::Lt, a, b);
    assert_eq!(t.t.select(c, a, a), a);
    let s = t.t.select(c, a, b);
    assert_eq!(t.show(s), "select(x[0,0] < x[0,1], x[0,0], x[0,1])");
    // A folded comparison picks a side.
    let two = t.c(2, 1);
    let lt = t.t.cmp(CmpOp::Lt, one, two);
    assert_eq!(t.t.select(lt, a, b), a);
    // select(!c, a, b) = select(c, b, a) for a boolean c.
    let o = t.t.or(c, c);
    let d = t.t.cmp(CmpOp::Eq, a, z);
    let cd = t.t.and(o, d);
    let n = t.t.not(cd);
    assert_eq!(t.t.select(n, a, b), t.t.select(cd, b, a));
}

#[test]
fn float_is_exact() {
    let mut t = T::new();
    let x = t.t.float(0.1);
    let v = t.t.as_const(x).unwrap().clone();
    assert_eq!(v, BigRational::from_float(0.1).unwrap());
    assert_ne!(v, q(1, 10));
    let f = t.t.float(0.044715f32 as f64);
    assert_eq!(t.show(f), "0.044715f32");
    assert_eq!(t.show(x), "0.1f64");
    let sub = t.t.float(f64::from_bits(1));
    assert!(t.t.as_const(sub).is_some());
    let nz = t.t.float(-0.0);
    assert_eq!(nz, t.t.zero());
}

#[test]
fn display_constants() {
    let mut t = T::new();
    let cases: Vec<(BigRational, &str)> = vec![
        (q(3, 1), "3"),
        (q(-3, 1), "-3"),
        (q(1, 2), "0.5"),
        (q(-3, 4), "-0.75"),
        (q(1, 1024), "0.0009765625"),
        (q(1, 3), "1/3"),
        (q(-5, 7), "-5/7"),
        (q(1, 2048), "0.00048828125f32"),
    ];
    for (v, s) in cases {
        let id = t.t.constant(v);
        assert_eq!(t.show(id), s);
    }
    let l2e = t.t.float(std::f32::consts::LOG2_E as f64);
    assert_eq!(t.show(l2e), "1.442695f32");
    let inf = t.t.inf(false);
    let ninf = t.t.inf(true);
    let nan = t.t.nan();
    assert_eq!(t.show(inf), "inf");
    assert_eq!(t.show(ninf), "-inf");
    assert_eq!(t.show(nan), "nan");
}

#[test]
fn display_representative_terms() {
    let mut t = T::new();
    let (a, b, c) = (t.x(0), t.x(1), t.x(2));
    let eps = t.p("eps");
    // softmax element
    let m = t.t.max(a, b);
    let d = t.t.sub(a, m);
    let e = t.t.call(Func::Exp, d);
    assert_eq!(t.show(e), "exp(x[0,0] - max(x[0,0], x[0,1]))");
    // layernorm-like: (a - mean) * rsqrt(var + eps)
    let s = t.t.add(a, b);
    let half = t.c(1, 2);
    let mean = t.t.mul(s, half);
    let centered = t.t.sub(a, mean);
    assert_eq!(t.show(centered), "x[0,0] - 0.5 * (x[0,0] + x[0,1])");
    let v = t.t.add(c, eps);
    let r = t.t.call(Func::Rsqrt, v);
    let y = t.t.mul(centered, r);
    assert_eq!(
        t.show(y),
        "(x[0,0] - 0.5 * (x[0,0] + x[0,1])) * rsqrt(x[0,2] + eps)"
    );
    // division by a sum, powers of sums
    let q = t.t.div(a, s);
    assert_eq!(t.show(q), "x[0,0] / (x[0,0] + x[0,1])");
    let sq = t.t.powi(s, 2);
    assert_eq!(t.show(sq), "(x[0,0] + x[0,1])^2");
    let nsq = t.t.neg(sq);
    assert_eq!(t.show(nsq), "-(x[0,0] + x[0,1])^2");
    let third = t.c(1, 3);
    let at = t.t.mul(third, a);
    assert_eq!(t.show(at), "x[0,0] / 3");
    let tt = t.c(-2, 3);
    let bt = t.t.product(&[tt, b, c]);
    let diff = t.t.add(a, bt);
    assert_eq!(t.show(diff), "x[0,0] - 2 * x[0,1] * x[0,2] / 3");
    let one = t.t.one();
    let dm1 = t.t.sub(diff, one);
    assert_eq!(t.show(dm1), "x[0,0] - 2 * x[0,1] * x[0,2] / 3 - 1");
    // subtraction of a sum and of a negated product
    // Constants are not distributed over sums (that is the decider's job).
    let sum_neg = t.t.sub(a, s);
    assert_eq!(t.show(sum_neg), "x[0,0] - (x[0,0] + x[0,1])");
    let bc = t.t.add(b, c);
    let mbc = t.t.neg(bc);
    let x = t.t.add(a, mbc);
    assert_eq!(t.show(x), "x[0,0] - (x[0,1] + x[0,2])");
    // logic
    let lt = t.t.cmp(CmpOp::Lt, a, b);
    let ge = t.t.cmp(CmpOp::Ge, s, eps);
    let and = t.t.and(lt, ge);
    let or = t.t.or(and, lt);
    let sel = t.t.select(or, a, s);
    let shown = t.show(sel);
    assert!(
        shown == "select(x[0,0] < x[0,1] && x[0,0] + x[0,1] >= eps || x[0,0] < x[0,1], x[0,0], x[0,0] + x[0,1])"
            || shown == "select(x[0,0] < x[0,1] || x[0,0] < x[0,1] && x[0,0] + x[0,1] >= eps, x[0,0], x[0,0] + x[0,1])",
        "{shown}"
    );
    let cmp_in_sum = t.t.add(lt, a);
    assert!(
        t.show(cmp_in_sum).contains("(x[0,0] < x[0,1])"),
        "{}",
        t.show(cmp_in_sum)
    );
    let t0 = t.t.input("s", &[]);
    assert_eq!(t.show(t0), "s[]");
}

#[test]
fn eval_matches_hand_computation() {
    let mut t = T::new();
    // inputs: x0=0.5, x1=-1.25, x2=3, x3=2; params 0.25
    let (a, b, c) = (t.x(0), t.x(1), t.x(2));
    let eps = t.p("eps");
    let s = t.t.sum(&[a, b, c, eps]);
    assert_eq!(t.ev(s), 2.5);
    let p = t.t.div(c, b);
    assert!((t.ev(p) + 2.4).abs() < 1e-15);
    let m = t.t.maxn(&[a, b, c]);
    assert_eq!(t.ev(m), 3.0);
    let lt = t.t.cmp(CmpOp::Lt, a, b);
    assert_eq!(t.ev(lt), 0.0);
    let nlt = t.t.not(lt);
    assert_eq!(t.ev(nlt), 1.0);
    let sel = t.t.select(lt, a, b);
    assert_eq!(t.ev(sel), -1.25);
    let e = t.t.call(Func::Exp, a);
    assert_eq!(t.ev(e), 0.5f64.exp());
    let pw = t.t.powi(b, 3);
    assert_eq!(t.ev(pw), -1.25f64.powi(3));
    let inf = t.t.inf(false);
    let xi = t.t.mul(a, inf);
    assert_eq!(t.ev(xi), f64::INFINITY);
}

#[test]
fn eval_handles_deep_terms_without_recursion() {
    let mut t = T::new();
    let mut acc = t.t.inf(true);
    let mut sum = t.t.zero();
    for i in 0..3_000 {
        let x = t.t.input("x", &[i]);
        let m = t.t.max(acc, x);
        // online-softmax style nesting: sum * exp(old - new) + exp(x - new)
        let d = t.t.sub(acc, m);
        let scale = t.t.call(Func::Exp, d);
        let d2 = t.t.sub(x, m);
        let e = t.t.call(Func::Exp, d2);
        let scaled = t.t.mul(sum, scale);
        sum = t.t.add(scaled, e);
        acc = m;
    }
    let v = t.t.eval(sum, &|_, i| (i[0] % 7) as f64 * 0.1, &|_| 0.0);
    assert!(v.is_finite() && v > 1.0, "{v}");
}

#[test]
fn erf_is_accurate() {
    let cases = [
        (0.5, 0.520_499_877_813_046_5),
        (1.0, 0.842_700_792_949_714_9),
        (2.0, 0.995_322_265_018_952_7),
        (3.0, 0.999_977_909_503_001_4),
        (-1.5, -0.966_105_146_475_310_7),
        (0.01, 0.011_283_415_555_849_618),
    ];
    for (x, want) in cases {
        let got = lift::term::erf(x);
        assert!(
            ((got - want) / want).abs() < 1e-13,
            "erf({x}) = {got}, want {want}"
        );
    }
    assert_eq!(lift::term::erf(10.0), 1.0);
    assert_eq!(lift::term::erf(0.0), 0.0);
}

/// Comparisons with either infinity fold (mutation testing found `+inf` untested).
#[test]
fn comparisons_with_infinities_fold() {
    let mut t = lift::term::Terms::new();
    let (one, inf, ninf) = (t.one(), t.inf(false), t.inf(true));
    let lt = lift::term::CmpOp::Lt;
    let c = t.cmp(lt, one, inf);
    assert_eq!(t.as_bool(c), Some(true));
    let c = t.cmp(lt, inf, one);
    assert_eq!(t.as_bool(c), Some(false));
    let c = t.cmp(lt, ninf, one);
    assert_eq!(t.as_bool(c), Some(true));
    let c = t.cmp(lt, ninf, inf);
    assert_eq!(t.as_bool(c), Some(true));
}

/// `|erf(x)| <= 1` for every real x, and near |x| = 6 erf is 1 to within 2e-17: the
/// series evaluation must neither overshoot 1 (it did, by 2 ulps, before clamping) nor
/// jump at the cut-off where it switches to `signum`.
#[test]
fn erf_stays_within_minus_one_and_one() {
    for i in 0..=400 {
        let x = 5.0 + i as f64 / 200.0; // 5.0 ..= 7.0, 6.0 exactly included
        for x in [x, -x] {
            let e = lift::term::erf(x);
            assert!(e.abs() <= 1.0, "erf({x}) = {e:e} leaves [-1, 1]");
            // erf(5) = 1 - 1.5e-12: the value is 1 to the series' 1e-14 accuracy.
            assert!((e.abs() - 1.0).abs() < 2e-12, "erf({x}) = {e:e}");
            assert_eq!(e.signum(), x.signum());
        }
    }
    assert_eq!(lift::term::erf(6.0), 1.0);
    assert_eq!(lift::term::erf(-6.0), -1.0);
}

/// A closed argument clearly outside the domain of log, log2, sqrt, rsqrt (`log(1/2)`
/// is -0.69 for every input) makes the call IEEE's NaN, not a precondition; inside the
/// domain (`log(3)` = 1.1) it stays a call.
#[test]
fn closed_arguments_outside_the_domain_are_nan() {
    let mut t = T::new();
    let half = t.c(1, 2);
    let three = t.c(3, 1);
    let l_half = t.t.call(Func::Log, half);
    let l_three = t.t.call(Func::Log, three);
    // exp(1000) - exp(1001) is e^1000·(1 - e) < 0 over the reals, inf - inf = NaN in
    // f64: outside the domain too.
    let k1 = t.c(1000, 1);
    let k2 = t.c(1001, 1);
    let e1 = t.t.call(Func::Exp, k1);
    let e2 = t.t.call(Func::Exp, k2);
    let neg = t.t.sub(e1, e2);
    let l_neg = t.t.call(Func::Log, neg);
    assert!(
        t.t.is_nan(l_neg),
        "log(exp(1000) - exp(1001)) = {}",
        t.show(l_neg)
    );
    for f in [Func::Log, Func::Log2, Func::Sqrt, Func::Rsqrt] {
        let bad = t.t.call(f, l_half);
        assert!(t.t.is_nan(bad), "{f:?}(log(1/2)) = {}", t.show(bad));
        let good = t.t.call(f, l_three);
        assert!(!t.t.is_nan(good), "{f:?}(log(3)) = {}", t.show(good));
    }
}

/// `Terms::children` lists a node's operands in operand order, as `for_each_child`
/// visits them, and nothing for a leaf.
#[test]
fn children_are_the_operands() {
    let mut t = T::new();
    let (a, b, c) = (t.x(0), t.x(1), t.x(2));
    assert!(t.t.children(a).is_empty());
    let gt = t.t.cmp(CmpOp::Gt, a, b);
    assert_eq!(t.t.children(gt), vec![a, b]);
    let s = t.t.select(gt, b, c);
    assert_eq!(t.t.children(s), vec![gt, b, c]);
    let e = t.t.call(Func::Exp, c);
    assert_eq!(t.t.children(e), vec![c]);
    let sum = t.t.add(a, b);
    let mut kids = t.t.children(sum);
    kids.sort();
    let mut want = vec![a, b];
    want.sort();
    assert_eq!(kids, want);
    let mut visited = Vec::new();
    t.t.for_each_child(sum, |k| visited.push(k));
    assert_eq!(t.t.children(sum), visited);
}

/// `Terms::eval` is memoised over the DAG, not the tree: `t₀ = x`, `tᵢ₊₁ = tᵢ·y + tᵢ·z`
/// has 2⁶⁰ paths through 60 levels but 181 nodes, and evaluates at once (to x, at
/// y + z = 1: every step is exact for these dyadic values).
#[test]
fn eval_visits_a_shared_dag_once_per_node() {
    let mut t = T::new();
    let (x, y, z) = (t.x(0), t.x(1), t.x(2));
    let mut cur = x;
    for _ in 0..60 {
        let a = t.t.mul(cur, y);
        let b = t.t.mul(cur, z);
        cur = t.t.add(a, b);
    }
    let value = |_: &str, idx: &[i64]| [0.375, 0.25, 0.75][idx[1] as usize];
    assert_eq!(t.t.eval(cur, &value, &|_| f64::NAN), 0.375);
}

/// Ranges of PTX integer code kept as opaque bits, which decide whether a load at a
/// data-dependent address stays inside one module table: `and` with a small
/// non-negative mask is within [0, mask]; `shl`/`mul.wide.u32` by constants scale a
/// non-negative range; anything else (a mask with the sign bit, an unranged operand)
/// has no range.
#[test]
fn opaque_integer_code_has_ranges_only_where_its_bits_bound_it() {
    let mut t = Terms::new();
    let x = t.input("x", &[0]);
    let data = t.opaque("cvt.rzi.s32.f32", &[x]);
    let eight = t.bits(8);
    let masked = t.opaque("and.b32", &[data, eight]);
    assert_eq!(t.int_range(masked), Some((0, 8)));
    let three = t.bits(3);
    let shifted = t.opaque("shl.b32", &[masked, three]);
    assert_eq!(t.int_range(shifted), Some((0, 64)));
    let wide = t.opaque("mul.wide.u32", &[eight, masked]);
    assert_eq!(t.int_range(wide), Some((0, 64)));
    // Unbounded: the data itself, a shift of it, a mask with the sign bit set.
    assert_eq!(t.int_range(data), None);
    let shifted_data = t.opaque("shl.b32", &[data, three]);
    assert_eq!(t.int_range(shifted_data), None);
    let sign = t.bits(0x8000_0000);
    let signed_mask = t.opaque("and.b32", &[data, sign]);
    assert_eq!(t.int_range(signed_mask), None);
    let or = t.opaque("or.b32", &[data, eight]);
    assert_eq!(t.int_range(or), None);
}
