//! Properties of the decider on random terms: `Equal` agrees with evaluation at fresh
//! points, and pairs equal by construction (sound rewrites) are never refuted and are
//! mostly proved.

use crate::seed;

use lift::decide::{decide, Options, Verdict};
use lift::term::{CmpOp, Func, TermId, Terms};
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

#[derive(Clone, Debug)]
enum E {
    Var(u8),
    Const(i8),
    Add(Box<E>, Box<E>),
    Sub(Box<E>, Box<E>),
    Mul(Box<E>, Box<E>),
    /// `a / (1 + b²)`: a denominator that is never zero.
    Div(Box<E>, Box<E>),
    Exp(Box<E>),
    Exp2(Box<E>),
    Tanh(Box<E>),
    Sq(Box<E>),
    Max(Box<E>, Box<E>),
    /// `select(a > b, c, d)`
    Sel(Box<E>, Box<E>, Box<E>, Box<E>),
    /// `select(v > b, v·h, b·h)` for a fresh leaf `v = x[4 + i]`: the branches agree
    /// at `v = b`, so `>` may be rewritten to `>=`.
    Bnd(u8, Box<E>, Box<E>),
    /// `select(v > b, v + k·(v - b), v)` (leaky-like; agree at `v = b`).
    Leaky(u8, Box<E>, i8),
}

fn expr() -> impl Strategy<Value = E> {
    let leaf = prop_oneof![
        3 => (0u8..4).prop_map(E::Var),
        1 => (-4i8..=4).prop_map(E::Const),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        let b = || inner.clone().prop_map(Box::new);
        prop_oneof![
            3 => (b(), b()).prop_map(|(a, c)| E::Add(a, c)),
            2 => (b(), b()).prop_map(|(a, c)| E::Sub(a, c)),
            3 => (b(), b()).prop_map(|(a, c)| E::Mul(a, c)),
            1 => (b(), b()).prop_map(|(a, c)| E::Div(a, c)),
            1 => b().prop_map(E::Exp),
            1 => b().prop_map(E::Exp2),
            1 => b().prop_map(E::Tanh),
            1 => b().prop_map(E::Sq),
            1 => (b(), b()).prop_map(|(a, c)| E::Max(a, c)),
            1 => (b(), b(), b(), b()).prop_map(|(a, c, d, e)| E::Sel(a, c, d, e)),
            1 => (0u8..4, b(), b()).prop_map(|(i, a, c)| E::Bnd(i, a, c)),
            1 => (0u8..4, b(), -4i8..=4).prop_map(|(i, a, k)| E::Leaky(i, a, k)),
        ]
    })
}

/// Builds `e`; with `rewrite`, applies sound identities chosen by the bits of `seed`.
struct Builder<'a> {
    t: &'a mut Terms,
    seed: u64,
    rewrite: bool,
}

impl Builder<'_> {
    fn coin(&mut self) -> bool {
        self.seed = self
            .seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.rewrite && (self.seed >> 33) & 1 == 1
    }
    fn build(&mut self, e: &E) -> TermId {
        match e {
            E::Var(i) => self.t.input("x", &[*i as i64]),
            E::Const(c) => {
                let v = *c as f64 / 2.0;
                self.t.float(v)
            }
            E::Add(a, b) => {
                let (x, y) = (self.build(a), self.build(b));
                if self.coin() {
                    self.t.add(y, x)
                } else {
                    self.t.add(x, y)
                }
            }
            E::Sub(a, b) => {
                let (x, y) = (self.build(a), self.build(b));
                if self.coin() {
                    let m = self.t.int(-1);
                    let ny = self.t.mul(m, y);
                    self.t.add(x, ny)
                } else {
                    self.t.sub(x, y)
                }
            }
            E::Mul(a, b) => {
                let x = self.build(a);
                // Distribute over a sum on the right.
                if let E::Add(p, q) = &**b {
                    if self.coin() {
                        let (p, q) = (self.build(p), self.build(q));
                        let xp = self.t.mul(x, p);
                        let xq = self.t.mul(q, x);
                        return self.t.add(xp, xq);
                    }
                }
                let y = self.build(b);
                self.t.mul(x, y)
            }
            E::Div(a, b) => {
                let x = self.build(a);
                let y = self.build(b);
                let y2 = self.t.powi(y, 2);
                let one = self.t.one();
                let d = self.t.add(one, y2);
                if self.coin() {
                    let r = self.t.recip(d);
                    self.t.mul(x, r)
                } else {
                    self.t.div(x, d)
                }
            }
            E::Exp(a) => {
                if let E::Add(p, q) = &**a {
                    if self.coin() {
                        let (p, q) = (self.build(p), self.build(q));
                        let ep = self.t.call(Func::Exp, p);
                        let eq = self.t.call(Func::Exp, q);
                        return self.t.mul(ep, eq);
                    }
                }
                let x = self.build(a);
                if self.coin() {
                    let c = self.t.float(std::f64::consts::LOG2_E as f32 as f64);
                    let xc = self.t.mul(x, c);
                    self.t.call(Func::Exp2, xc)
                } else {
                    self.t.call(Func::Exp, x)
                }
            }
            E::Exp2(a) => {
                let x = self.build(a);
                if self.coin() {
                    let c = self.t.float(std::f64::consts::LN_2 as f32 as f64);
                    let xc = self.t.mul(x, c);
                    self.t.call(Func::Exp, xc)
                } else {
                    self.t.call(Func::Exp2, x)
                }
            }
            E::Tanh(a) => {
                let x = self.build(a);
                if self.coin() {
                    let two = self.t.int(2);
                    let x2 = self.t.mul(two, x);
                    let e = self.t.call(Func::Exp, x2);
                    let one = self.t.one();
                    let n = self.t.sub(e, one);
                    let d = self.t.add(e, one);
                    self.t.div(n, d)
                } else {
                    self.t.call(Func::Tanh, x)
                }
            }
            E::Sq(a) => {
                let x = self.build(a);
                if self.coin() {
                    self.t.powi(x, 2)
                } else {
                    let y = self.build(a);
                    self.t.mul(x, y)
                }
            }
            E::Max(a, b) => {
                let (x, y) = (self.build(a), self.build(b));
                if self.coin() {
                    let c = self.t.cmp(CmpOp::Gt, x, y);
                    self.t.select(c, x, y)
                } else {
                    self.t.max(x, y)
                }
            }
            E::Bnd(i, b, h) => {
                let v = self.t.input("x", &[4 + *i as i64]);
                let (q, h) = (self.build(b), self.build(h));
                let (f, g) = (self.t.mul(v, h), self.t.mul(q, h));
                let c = self.strict_or_not(v, q);
                self.t.select(c, f, g)
            }
            E::Leaky(i, b, k) => {
                let v = self.t.input("x", &[4 + *i as i64]);
                let q = self.build(b);
                let k = self.t.float(*k as f64 / 4.0);
                let d = self.t.sub(v, q);
                let kd = self.t.mul(k, d);
                let f = self.t.add(v, kd);
                let c = self.strict_or_not(v, q);
                if self.coin() {
                    // The negated condition with swapped branches.
                    let n = self.t.cmp(CmpOp::Le, v, q);
                    self.t.select(n, v, f)
                } else {
                    self.t.select(c, f, v)
                }
            }
            E::Sel(a, b, c, d) => {
                let (p, q) = (self.build(a), self.build(b));
                let (x, y) = (self.build(c), self.build(d));
                if self.coin() {
                    let c = self.t.cmp(CmpOp::Lt, q, p);
                    self.t.select(c, x, y)
                } else {
                    let c = self.t.cmp(CmpOp::Gt, p, q);
                    self.t.select(c, x, y)
                }
            }
        }
    }
}

impl Builder<'_> {
    /// `v > q`, or with a coin one of `v >= q`, `q < v`, `q <= v` (the branches it is
    /// used with agree at `v = q`).
    fn strict_or_not(&mut self, v: TermId, q: TermId) -> TermId {
        match (self.coin(), self.coin()) {
            (false, false) => self.t.cmp(CmpOp::Gt, v, q),
            (true, false) => self.t.cmp(CmpOp::Ge, v, q),
            (false, true) => self.t.cmp(CmpOp::Lt, q, v),
            (true, true) => self.t.cmp(CmpOp::Le, q, v),
        }
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-5 * 1f64.max(a.abs()).max(b.abs())
}

/// Evaluates both sides at `n` fresh pseudo-random points; false if some point with
/// moderate finite values disagrees.
fn agree(t: &Terms, a: TermId, b: TermId, seed: u64, n: usize) -> bool {
    for p in 0..n as u64 {
        let input = move |_: &str, idx: &[i64]| {
            let mut h = seed
                ^ (p.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                ^ ((idx[0] as u64 + 1) * 0xff51_afd7_ed55_8ccd);
            h ^= h >> 33;
            h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
            h ^= h >> 29;
            ((h % 4001) as f64 - 2000.0) / 1000.0 + 0.000_37
        };
        let param = |_: &str| 0.5;
        let (x, y) = (t.eval(a, &input, &param), t.eval(b, &input, &param));
        if !x.is_finite() || !y.is_finite() || x.abs() > 1e6 || y.abs() > 1e6 {
            continue;
        }
        if !close(x, y) {
            return false;
        }
    }
    true
}

static BUILT: AtomicUsize = AtomicUsize::new(0);
static PROVED: AtomicUsize = AtomicUsize::new(0);

proptest! {
    #![proptest_config(seed::seeded(ProptestConfig { cases: 256, ..ProptestConfig::default() }, "decide_props"))]

    /// Whenever `decide` says Equal, evaluation at 20 fresh points agrees.
    #[test]
    fn equal_means_equal_at_fresh_points(e1 in expr(), e2 in expr(), seed in any::<u64>()) {
        let mut t = Terms::new();
        let a = Builder { t: &mut t, seed, rewrite: false }.build(&e1);
        let b = Builder { t: &mut t, seed, rewrite: true }.build(&e2);
        let v = decide(&t, a, b, &Options::default());
        if v.is_equal() {
            prop_assert!(agree(&t, a, b, seed, 20), "Equal but evaluations differ: {} vs {}", t.display(a), t.display(b));
        }
        // The same on an identity-rewritten pair (mostly Equal).
        let c = Builder { t: &mut t, seed: seed ^ 1, rewrite: true }.build(&e1);
        if decide(&t, a, c, &Options::default()).is_equal() {
            prop_assert!(agree(&t, a, c, seed, 20));
        }
    }

    /// Pairs equal by construction are never NotEqual.
    #[test]
    fn rewritten_pairs_are_never_refuted(e in expr(), seed in any::<u64>()) {
        let mut t = Terms::new();
        let a = Builder { t: &mut t, seed, rewrite: false }.build(&e);
        let b = Builder { t: &mut t, seed, rewrite: true }.build(&e);
        let v = decide(&t, a, b, &Options::default());
        BUILT.fetch_add(1, Ordering::Relaxed);
        if v.is_equal() {
            PROVED.fetch_add(1, Ordering::Relaxed);
        } else if let Verdict::Unknown { reason } = &v {
            eprintln!("unknown: {reason}\n  {}\n  {}", t.display(a), t.display(b));
        }
        prop_assert!(!v.is_not_equal(), "refuted an identity: {} vs {}: {v:?}", t.display(a), t.display(b));
    }
}

/// Runs after the proptest above in the same binary (tests run in name order on one
/// thread only with --test-threads=1, so this checks its own batch).
#[test]
fn rewritten_pairs_are_mostly_proved() {
    let mut runner = proptest::test_runner::TestRunner::new(seed::seeded(
        ProptestConfig {
            cases: 256,
            ..ProptestConfig::default()
        },
        "decide_props::mostly_proved",
    ));
    let (built, proved) = (AtomicUsize::new(0), AtomicUsize::new(0));
    runner
        .run(&(expr(), any::<u64>()), |(e, seed)| {
            let mut t = Terms::new();
            let a = Builder {
                t: &mut t,
                seed,
                rewrite: false,
            }
            .build(&e);
            let b = Builder {
                t: &mut t,
                seed,
                rewrite: true,
            }
            .build(&e);
            let v = decide(&t, a, b, &Options::default());
            built.fetch_add(1, Ordering::Relaxed);
            if v.is_equal() {
                proved.fetch_add(1, Ordering::Relaxed);
            }
            prop_assert!(!v.is_not_equal());
            Ok(())
        })
        .unwrap();
    let (b, p) = (built.into_inner(), proved.into_inner());
    eprintln!("proved {p} of {b} rewritten pairs");
    assert!(p * 10 >= b * 9, "only {p} of {b} rewritten pairs proved");
}
