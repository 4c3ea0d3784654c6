//! Online recurrences and shared contexts: the rescaled running sum of an online
//! softmax (`l_k = l_{k-1}·exp(m_{k-1} - m_k) + Σ exp(x_j - m_k)`, converted by folding
//! the rescalings, `decide::canon::chain`) and elements that differ only inside one
//! shared context (`exp(x_j - m) / l` against `exp(x_j - m) / S`, decided through the
//! differing pair). Each proof path has wrong twins it must refute.

use lift::decide::{decide, decide_all, normalize, Options, Verdict};
use lift::term::{Func, TermId, Terms};

#[track_caller]
fn equal(t: &Terms, a: TermId, b: TermId) {
    let v = decide(t, a, b, &Options::default());
    assert!(v.is_equal(), "expected Equal, got {v:?}");
}

/// NotEqual, and the counterexample replays through `Terms::eval`.
#[track_caller]
fn not_equal(t: &Terms, a: TermId, b: TermId) {
    let v = decide(t, a, b, &Options::default());
    let Verdict::NotEqual(cex) = v else {
        panic!("expected NotEqual, got {v:?}")
    };
    let (l, r) = (cex.eval(t, a), cex.eval(t, b));
    assert!(
        (l - r).abs() > 1e-9 * 1f64.max(l.abs()).max(r.abs()),
        "counterexample does not replay: {l} vs {r}"
    );
}

/// The online sum over `n` elements of row `x` in tiles of `block`, as the kernel
/// computes it; with `skip_rescale_at`, the rescaling of that step is left out (the
/// classic bug: right while the first tile holds the row's max).
struct Online {
    sum: TermId,
    max: TermId,
}

fn online(t: &mut Terms, n: usize, block: usize, skip_rescale_at: Option<usize>) -> Online {
    let x: Vec<TermId> = (0..n as i64).map(|j| t.input("x", &[j])).collect();
    let mut m: Option<TermId> = None;
    let mut l: Option<TermId> = None;
    for (k, tile) in x.chunks(block).enumerate() {
        let tile_max = t.maxn(tile);
        let m_new = match m {
            Some(prev) => t.max(prev, tile_max),
            None => tile_max,
        };
        let exps: Vec<TermId> = tile
            .iter()
            .map(|&xj| {
                let d = t.sub(xj, m_new);
                t.call(Func::Exp, d)
            })
            .collect();
        let tile_sum = t.sum(&exps);
        l = Some(match (l, m) {
            (Some(prev_l), Some(prev_m)) => {
                let scaled = if skip_rescale_at == Some(k) {
                    prev_l
                } else {
                    let d = t.sub(prev_m, m_new);
                    let alpha = t.call(Func::Exp, d);
                    t.mul(prev_l, alpha)
                };
                t.add(scaled, tile_sum)
            }
            _ => tile_sum,
        });
        m = Some(m_new);
    }
    Online {
        sum: l.expect("n > 0"),
        max: m.expect("n > 0"),
    }
}

/// `Σ_j exp(x_j - max)`, the closed form.
fn closed(t: &mut Terms, n: usize, max: TermId) -> TermId {
    let exps: Vec<TermId> = (0..n as i64)
        .map(|j| {
            let xj = t.input("x", &[j]);
            let d = t.sub(xj, max);
            t.call(Func::Exp, d)
        })
        .collect();
    t.sum(&exps)
}

#[test]
fn online_sum_equals_closed_form() {
    for (n, block) in [(8, 2), (12, 4), (64, 4), (40, 8)] {
        let mut t = Terms::new();
        let o = online(&mut t, n, block, None);
        let s = closed(&mut t, n, o.max);
        equal(&t, o.sum, s);
    }
}

#[test]
fn online_sum_without_one_rescale_is_refuted() {
    for (n, block, k) in [(8, 2, 1), (12, 4, 2), (64, 4, 15), (64, 4, 1)] {
        let mut t = Terms::new();
        let o = online(&mut t, n, block, Some(k));
        let s = closed(&mut t, n, o.max);
        not_equal(&t, o.sum, s);
    }
}

/// The folded conversion builds the same canonical form as the step-by-step one: the
/// normal form of the online sum is the closed form's (the exponential factor pulled
/// out of both the same way).
#[test]
fn online_sum_normalises_like_the_closed_form() {
    let mut t = Terms::new();
    let o = online(&mut t, 32, 4, None);
    let s = closed(&mut t, 32, o.max);
    let (a, b) = (normalize(&mut t, o.sum), normalize(&mut t, s));
    assert!(a.is_some() && a == b, "{a:?} vs {b:?}");
}

/// A rescaling that is not a pure exponential (`2·exp(...)`) is taken step by step:
/// still decided, both ways.
#[test]
fn chain_with_other_factors_is_decided_step_by_step() {
    let mut t = Terms::new();
    let x: Vec<TermId> = (0..6).map(|j| t.input("x", &[j])).collect();
    let c = t.int(2);
    // l = ((x0·2 + x1)·2 + x2)·2 + x3 against 8·x0 + 4·x1 + 2·x2 + x3 (Horner).
    let mut l = x[0];
    for &xj in &x[1..4] {
        let s = t.mul(l, c);
        l = t.add(s, xj);
    }
    let terms: Vec<TermId> = [8, 4, 2, 1]
        .iter()
        .zip(&x)
        .map(|(&k, &xj)| {
            let k = t.int(k);
            t.mul(k, xj)
        })
        .collect();
    let want = t.sum(&terms);
    equal(&t, l, want);
    let off = t.add(want, x[4]);
    not_equal(&t, l, off);
}

/// Every element `exp(x_j - m) / l` against `exp(x_j - m) / S`: proved through the
/// differing pair `(l, S)`, and refuted where the sums differ.
#[test]
fn softmax_elements_through_the_shared_sum() {
    let n = 32;
    let mut t = Terms::new();
    let right = online(&mut t, n, 4, None);
    let wrong = online(&mut t, n, 4, Some(3));
    let s = closed(&mut t, n, right.max);
    let element = |t: &mut Terms, j: i64, sum: TermId| {
        let xj = t.input("x", &[j]);
        let d = t.sub(xj, right.max);
        let e = t.call(Func::Exp, d);
        t.div(e, sum)
    };
    let mut pairs = Vec::new();
    let mut twins = Vec::new();
    for j in 0..n as i64 {
        let want = element(&mut t, j, s);
        pairs.push((element(&mut t, j, right.sum), want));
        twins.push((element(&mut t, j, wrong.sum), want));
    }
    let opts = Options::default();
    for v in decide_all(&t, &pairs, &opts) {
        assert!(v.is_equal(), "{v:?}");
    }
    for v in decide_all(&t, &twins, &opts) {
        assert!(matches!(v, Verdict::NotEqual(_)), "{v:?}");
    }
}

/// Sub-terms that differ in a shared context but are not equal, while the whole is:
/// `(x - y)²` against `(y - x)²` differ in `(x - y, y - x)`; the full proof decides.
#[test]
fn unequal_differing_pair_falls_back_to_the_whole() {
    let mut t = Terms::new();
    let x = t.input("x", &[0]);
    let y = t.input("y", &[0]);
    let z = t.input("z", &[0]);
    let d1 = t.sub(x, y);
    let d2 = t.sub(y, x);
    let a = t.powi(d1, 2);
    let b = t.powi(d2, 2);
    let (a, b) = (t.mul(a, z), t.mul(b, z));
    equal(&t, a, b);
    // And a context around an unequal pair that does not hide it.
    let a3 = t.powi(d1, 3);
    let b3 = t.powi(d2, 3);
    let (a3, b3) = (t.mul(a3, z), t.mul(b3, z));
    not_equal(&t, a3, b3);
}

/// A context with an infinity is never proved through its differing pair, even where
/// that pair is equal: `(inf·z + y)·(x + 1)²` against `(inf·z + y)·(x² + 2x + 1)`.
#[test]
fn infinite_context_is_not_a_proof() {
    let mut t = Terms::new();
    let x = t.input("x", &[0]);
    let y = t.input("y", &[0]);
    let z = t.input("z", &[0]);
    let inf = t.inf(false);
    let iz = t.mul(inf, z);
    let ctx = t.add(iz, y);
    let one = t.one();
    let x1 = t.add(x, one);
    let p = t.powi(x1, 2);
    let x2 = t.powi(x, 2);
    let two = t.int(2);
    let tx = t.mul(two, x);
    let q = t.sum(&[x2, tx, one]);
    assert_ne!(p, q);
    equal(&t, p, q);
    let a = t.mul(ctx, p);
    let b = t.mul(ctx, q);
    assert_ne!(a, b);
    let v = decide(&t, a, b, &Options::default());
    assert!(!v.is_equal(), "{v:?}");
}

/// `l_k = l_{k-1}·c·exp(x_{k-1} - x_k) + exp(x_k) + extra_k` over `n` steps from
/// `base`, and its closed form `base·c^(n-1)·exp(x_0 - x_{n-1}) + Σ_k c^(n-1-k)·
/// exp(x_k - x_{n-1})·(exp(x_k) + extra_k)·exp(-x_k)`, written out directly.
fn rescaled_chain(
    t: &mut Terms,
    n: i64,
    base: TermId,
    scale: i64,
    extra: &dyn Fn(&mut Terms, i64) -> Option<TermId>,
) -> (TermId, TermId) {
    let c = t.int(scale);
    let mut l = base;
    for k in 1..n {
        let (a, b) = (t.input("x", &[k - 1]), t.input("x", &[k]));
        let d = t.sub(a, b);
        let e = t.call(Func::Exp, d);
        let alpha = t.mul(c, e);
        let scaled = t.mul(l, alpha);
        let eb = t.call(Func::Exp, b);
        l = t.add(scaled, eb);
        if let Some(x) = extra(t, k) {
            l = t.add(l, x);
        }
    }
    // Closed form: every term carried to the last step.
    let last = t.input("x", &[n - 1]);
    let carry = |t: &mut Terms, k: i64, v: TermId| {
        let xk = t.input("x", &[k]);
        let d = t.sub(xk, last);
        let e = t.call(Func::Exp, d);
        let ck = t.int(scale.pow((n - 1 - k) as u32));
        t.product(&[v, e, ck])
    };
    let mut parts = vec![carry(t, 0, base)];
    for k in 1..n {
        let xk = t.input("x", &[k]);
        let mut v = t.call(Func::Exp, xk);
        if let Some(x) = extra(t, k) {
            v = t.add(v, x);
        }
        parts.push(carry(t, k, v));
    }
    (l, t.sum(&parts))
}

/// A chain whose base or addends are quotients, or whose rescaling carries a constant
/// factor, is right only if those are kept: each twin drops one of them.
#[test]
fn quotients_and_scaled_rescalings_are_kept_in_a_chain() {
    let mut t = Terms::new();
    let none = |_: &mut Terms, _: i64| None;
    // Base `y + 1/(z + 2)`: a quotient below the first step.
    let (y, z) = (t.input("y", &[0]), t.input("z", &[0]));
    let two = t.int(2);
    let z2 = t.add(z, two);
    let inv = t.powi(z2, -1);
    let base = t.add(y, inv);
    let (l, want) = rescaled_chain(&mut t, 6, base, 1, &none);
    equal(&t, l, want);
    // Twin: the base's numerator `y·(z + 2) + 1` in its place.
    let yz = t.mul(y, z2);
    let one = t.one();
    let numer = t.add(yz, one);
    let (_, numer_form) = rescaled_chain(&mut t, 6, numer, 1, &none);
    not_equal(&t, l, numer_form);
    // Addends `1/(x_k + 3)`: quotients added at every step.
    let with_inv = |t: &mut Terms, k: i64| {
        let xk = t.input("x", &[k]);
        let three = t.int(3);
        let s = t.add(xk, three);
        Some(t.powi(s, -1))
    };
    let plain = t.add(y, z);
    let (l, want) = rescaled_chain(&mut t, 6, plain, 1, &with_inv);
    equal(&t, l, want);
    let (_, without) = rescaled_chain(&mut t, 6, plain, 1, &none);
    not_equal(&t, l, without);
    // Rescaling by `2·exp(...)`: the constant stays.
    let (l, want) = rescaled_chain(&mut t, 6, plain, 2, &none);
    equal(&t, l, want);
    let (l1, _) = rescaled_chain(&mut t, 6, plain, 1, &none);
    not_equal(&t, l1, want);
}

/// How one FlashAttention-1 step updates the output (`fa1`).
#[derive(Clone, Copy, PartialEq)]
enum Fa1 {
    /// `O' = (l·e^(m - m')·O + e^(mt - m')·P V) / l'`, the minimal kernels' update.
    Minimal,
    /// `O' = (l·e^(m - m') / l')·O + (e^(mt - m') / l')·P V`: two coefficients.
    Coefficients,
    /// `O' = e^(m - m')·O + e^(mt - m')·P V`, divided by `l` once at the end.
    EndDivision,
    /// Twin: `O' = (l·O + e^(mt - m')·P V) / l'` (the old output not rescaled).
    NoRescale,
    /// Twin: `l' = l + e^(mt - m')·lt` (the running sum not rescaled).
    SumNotRescaled,
    /// Twin: the running max restarted every tile (`m = -inf`: the old terms dropped).
    MaxRestarted,
}

/// One output element of FlashAttention-1 over `n` keys in tiles of `block`: scores
/// `x_j` and values `v_j` are inputs; each tile takes its max `mt`, `p_j = e^(x_j - mt)`,
/// `lt = Σ p_j`, `P V = Σ p_j·v_j`, then `m' = max(m, mt)`, `l' = e^(m - m')·l +
/// e^(mt - m')·lt` and the update `how`. The first tile starts from `l = 0`, `O = 0`.
fn fa1(t: &mut Terms, n: usize, block: usize, how: Fa1) -> TermId {
    let x: Vec<TermId> = (0..n as i64).map(|j| t.input("x", &[j])).collect();
    let v: Vec<TermId> = (0..n as i64).map(|j| t.input("v", &[j])).collect();
    let mut state: Option<(TermId, TermId, TermId)> = None; // (m, l, O)
    for (tile, vals) in x.chunks(block).zip(v.chunks(block)) {
        let mt = t.maxn(tile);
        let p: Vec<TermId> = tile
            .iter()
            .map(|&xj| {
                let d = t.sub(xj, mt);
                t.call(Func::Exp, d)
            })
            .collect();
        let lt = t.sum(&p);
        let pv: Vec<TermId> = p.iter().zip(vals).map(|(&pj, &vj)| t.mul(pj, vj)).collect();
        let pv = t.sum(&pv);
        state = Some(match state {
            None => {
                let o = if how == Fa1::EndDivision {
                    pv
                } else {
                    t.div(pv, lt)
                };
                (mt, lt, o)
            }
            Some((m, l, o)) if how == Fa1::MaxRestarted => {
                // e^(-inf - m') = 0: only the tile is left.
                let _ = (m, l, o);
                (mt, lt, t.div(pv, lt))
            }
            Some((m, l, o)) => {
                let m_new = t.max(m, mt);
                let (d_old, d_new) = (t.sub(m, m_new), t.sub(mt, m_new));
                let a = t.call(Func::Exp, d_old);
                let b = t.call(Func::Exp, d_new);
                let b_lt = t.mul(b, lt);
                let a_l = t.mul(a, l);
                let l_new = if how == Fa1::SumNotRescaled {
                    t.add(l, b_lt)
                } else {
                    t.add(a_l, b_lt)
                };
                let b_pv = t.mul(b, pv);
                let o_new = match how {
                    Fa1::Coefficients => {
                        let c_o = t.div(a_l, l_new);
                        let c_p = t.div(b, l_new);
                        let old = t.mul(c_o, o);
                        let new = t.mul(c_p, pv);
                        t.add(old, new)
                    }
                    Fa1::EndDivision => {
                        let old = t.mul(a, o);
                        t.add(old, b_pv)
                    }
                    Fa1::NoRescale => {
                        let old = t.mul(l, o);
                        let s = t.add(old, b_pv);
                        t.div(s, l_new)
                    }
                    _ => {
                        let old = t.product(&[l, a, o]);
                        let s = t.add(old, b_pv);
                        t.div(s, l_new)
                    }
                };
                (m_new, l_new, o_new)
            }
        });
    }
    let (_, l, o) = state.expect("n > 0");
    if how == Fa1::EndDivision {
        t.div(o, l)
    } else {
        o
    }
}

/// `Σ_j e^(x_j - m)·v_j / Σ_j e^(x_j - m)`, the softmax-weighted sum written directly.
fn weighted(t: &mut Terms, n: usize) -> TermId {
    let x: Vec<TermId> = (0..n as i64).map(|j| t.input("x", &[j])).collect();
    let v: Vec<TermId> = (0..n as i64).map(|j| t.input("v", &[j])).collect();
    let m = t.maxn(&x);
    let p: Vec<TermId> = x
        .iter()
        .map(|&xj| {
            let d = t.sub(xj, m);
            t.call(Func::Exp, d)
        })
        .collect();
    let l = t.sum(&p);
    let pv: Vec<TermId> = p.iter().zip(&v).map(|(&pj, &vj)| t.mul(pj, vj)).collect();
    let pv = t.sum(&pv);
    t.div(pv, l)
}

/// FlashAttention-1's output, re-divided by the running sum every tile, is the
/// softmax-weighted sum (`decide::canon::cancel`): each tile's `l_{k-1}` cancels the
/// denominator of `O_{k-1}` before anything is expanded, so the forms stay as large as
/// the keys so far. Under a cap of 200 monomials, 4 tiles of 6 keys prove; expanded,
/// the denominator alone would be `l_1·l_2·l_3·l_4` (6·12·18·24 monomials).
#[test]
fn flash_attention_1_output_is_the_softmax_weighted_sum() {
    let capped = Options {
        max_monomials: 200,
        ..Options::default()
    };
    for how in [Fa1::Minimal, Fa1::Coefficients, Fa1::EndDivision] {
        let mut t = Terms::new();
        let o = fa1(&mut t, 24, 6, how);
        let w = weighted(&mut t, 24);
        let v = decide(&t, o, w, &capped);
        assert!(v.is_equal(), "expected Equal, got {v:?}");
    }
}

/// Each twin is right with one tile and refuted from two on.
#[test]
fn flash_attention_1_twins_are_refuted_from_two_tiles() {
    for how in [Fa1::NoRescale, Fa1::SumNotRescaled, Fa1::MaxRestarted] {
        let mut t = Terms::new();
        let o = fa1(&mut t, 4, 4, how);
        let w = weighted(&mut t, 4);
        equal(&t, o, w);
        let mut t = Terms::new();
        let o = fa1(&mut t, 12, 4, how);
        let w = weighted(&mut t, 12);
        not_equal(&t, o, w);
    }
}

/// The cancellation divides a denominator out of a numerator only where that is a
/// monomial multiple of it: `(e^(x+1) + e^(y+1)) / (e^x + e^y) = e`, but
/// `(e^(x+1) + e^(y+2)) / (e^x + e^y)`, of the same shape, is not `e` (nor `e^2`).
#[test]
fn only_monomial_multiples_of_a_denominator_cancel() {
    let mut t = Terms::new();
    let (x, y) = (t.input("x", &[0]), t.input("y", &[0]));
    let (one, two) = (t.int(1), t.int(2));
    let exp = |t: &mut Terms, a: TermId| t.call(Func::Exp, a);
    let (ex, ey) = (exp(&mut t, x), exp(&mut t, y));
    let d = t.add(ex, ey);
    let (x1, y1, y2) = (t.add(x, one), t.add(y, one), t.add(y, two));
    let (ex1, ey1, ey2) = (exp(&mut t, x1), exp(&mut t, y1), exp(&mut t, y2));
    let multiple = t.add(ex1, ey1);
    let near = t.add(ex1, ey2);
    let e = exp(&mut t, one);
    let e2 = exp(&mut t, two);
    let q = t.div(multiple, d);
    equal(&t, q, e);
    let q = t.div(near, d);
    not_equal(&t, q, e);
    not_equal(&t, q, e2);
    // As factors of one product, in either order.
    let inv = t.recip(d);
    let p = t.product(&[inv, multiple, x]);
    let ex_ = t.mul(e, x);
    equal(&t, p, ex_);
    let p = t.product(&[near, inv, x]);
    not_equal(&t, p, ex_);
}
