//! `decide::normalize` rebuilds a term from its canonical form: the result must be
//! decided equal to the original (here over the online-softmax, Welford and flash
//! attention kernels, whose terms are the running recurrences it exists for), one
//! element at a time and all of an output at once (`normalize_all`: chunks sharing
//! their rebuilt atoms), with the exp factor pulled out of sums and kept in them.

use lift::decide::{self, Options};
use lift::term::{Func, Terms};
use lift::Kernel;
use std::collections::BTreeMap;
use std::path::Path;

fn check_kernel(op: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let k = Kernel::load(&root.join("triton_ir").join(op).join("kernel.ttir"), None).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let mut terms = Terms::new();
    let spec = k.spec(&inst, &mut terms).unwrap();
    let mut pairs = Vec::new();
    for t in &spec.outputs {
        let elems: Vec<_> = t.elems.iter().flatten().copied().collect();
        for &e in &elems {
            let n = decide::normalize(&mut terms, e).unwrap_or_else(|| panic!("{op}: no form"));
            pairs.push((e, n));
        }
        for keep_exp in [false, true] {
            let all = decide::normalize_all(&mut terms, &elems, keep_exp);
            for (&e, n) in elems.iter().zip(all) {
                pairs.push((e, n.unwrap_or_else(|| panic!("{op}: no form ({keep_exp})"))));
            }
        }
    }
    for (k, v) in decide::decide_all(&terms, &pairs, &Options::default())
        .iter()
        .enumerate()
    {
        assert!(v.is_equal(), "{op}: element #{k}: {v:?}");
    }
}

/// `normalize_all_both` rebuilds both ways from one conversion: each way the same terms
/// (hash-consed, so the same ids) as its own `normalize_all`, the second written later.
/// Returns whether the two ways differ anywhere (else the check cannot tell them apart).
fn both_ways_match_each(op: &str) -> bool {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let k = Kernel::load(&root.join("triton_ir").join(op).join("kernel.ttir"), None).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let mut terms = Terms::new();
    let spec = k.spec(&inst, &mut terms).unwrap();
    let mut differ = false;
    for t in &spec.outputs {
        let elems: Vec<_> = t.elems.iter().flatten().copied().collect();
        for keep_exp in [false, true] {
            let (first, unbuilt) = decide::normalize_all_both(&mut terms, &elems, keep_exp);
            let second = unbuilt.build(&mut terms);
            assert_eq!(
                first,
                decide::normalize_all(&mut terms, &elems, keep_exp),
                "{op}"
            );
            assert_eq!(
                second,
                decide::normalize_all(&mut terms, &elems, !keep_exp),
                "{op}"
            );
            assert!(first.iter().all(Option::is_some), "{op}: no form");
            differ |= first != second;
        }
    }
    differ
}

#[test]
fn both_rebuilds_match_their_own_normalisation() {
    both_ways_match_each("attention");
    // log-softmax's `x - m - log Σ exp(x_j - m)`: the two ways differ.
    assert!(both_ways_match_each("log_softmax"));
}

#[test]
fn normalised_online_softmax_is_equal() {
    check_kernel("softmax_online");
}

#[test]
fn normalised_welford_is_equal() {
    check_kernel("layer_norm_welford");
}

#[test]
fn normalised_flash_attention_is_equal() {
    check_kernel("attention");
}

#[test]
fn exponentials_merge_and_common_factors_come_out() {
    let mut t = Terms::new();
    let (a, b, s) = (t.input("x", &[0]), t.input("x", &[1]), t.param("s"));
    // exp(a) * exp(b) * s + s * a  →  s * (exp(a + b) + a)
    let ea = t.call(Func::Exp, a);
    let eb = t.call(Func::Exp, b);
    let p = t.product(&[ea, eb, s]);
    let q = t.mul(s, a);
    let e = t.add(p, q);
    let n = decide::normalize(&mut t, e).unwrap();
    assert_eq!(t.display(n).to_string(), "s * (x[0] + exp(x[0] + x[1]))");
    assert!(decide::decide(&t, e, n, &Options::default()).is_equal());
    // exp(a)·b + exp(a)·s: the exp factor common to every monomial comes out once.
    let p1 = t.mul(ea, b);
    let p2 = t.mul(ea, s);
    let e2 = t.add(p1, p2);
    let n2 = decide::normalize(&mut t, e2).unwrap();
    let shown = t.display(n2).to_string();
    assert_eq!(shown.matches("exp(").count(), 1, "{shown}");
    assert!(decide::decide(&t, e2, n2, &Options::default()).is_equal());
}

#[test]
fn positive_constant_factor_comes_out_of_max() {
    let mut t = Terms::new();
    let (a, b) = (t.input("x", &[0]), t.input("x", &[1]));
    // ln 2 · max(a·log2(e), b·log2(e))  →  max(a, b)   (base-2 exponentials' rescaling)
    let l2e = t.float(std::f64::consts::LOG2_E);
    let (al, bl) = (t.mul(a, l2e), t.mul(b, l2e));
    let m = t.maxn(&[al, bl]);
    let two = t.int(2);
    let ln2 = t.call(Func::Log, two);
    let e = t.mul(ln2, m);
    let n = decide::normalize(&mut t, e).unwrap();
    assert_eq!(t.display(n).to_string(), "max(x[0], x[1])");
    let v = decide::decide(&t, e, n, &Options::default());
    assert!(v.is_equal(), "{v:?}");
    // min(3a, 3b) → 3 · min(a, b)
    let three = t.int(3);
    let (a3, b3) = (t.mul(three, a), t.mul(three, b));
    let e = t.minn(&[a3, b3]);
    let n = decide::normalize(&mut t, e).unwrap();
    assert_eq!(t.display(n).to_string(), "3 * min(x[0], x[1])");
    assert!(decide::decide(&t, e, n, &Options::default()).is_equal());
}

/// Wrong twin: `max(c·a, c·b) = c·max(a, b)` fails for `c < 0` (and for a factor of
/// unknown sign), so such a factor stays inside.
#[test]
fn negative_or_unknown_sign_factor_stays_inside_max() {
    let mut t = Terms::new();
    let (a, b, s) = (t.input("x", &[0]), t.input("x", &[1]), t.param("s"));
    let m2 = t.int(-2);
    let (a2, b2) = (t.mul(m2, a), t.mul(m2, b));
    let e = t.maxn(&[a2, b2]);
    let n = decide::normalize(&mut t, e).unwrap();
    assert!(decide::decide(&t, e, n, &Options::default()).is_equal());
    // The pulled-out form is wrong, and decide says so.
    let mab = t.maxn(&[a, b]);
    let wrong = t.mul(m2, mab);
    assert_ne!(n, wrong);
    assert!(!decide::decide(&t, e, wrong, &Options::default()).is_equal());
    // Unknown sign: s · a, s · b.
    let (sa, sb) = (t.mul(s, a), t.mul(s, b));
    let e = t.maxn(&[sa, sb]);
    let n = decide::normalize(&mut t, e).unwrap();
    assert!(decide::decide(&t, e, n, &Options::default()).is_equal());
    let wrong = t.mul(s, mab);
    assert_ne!(n, wrong);
    assert!(!decide::decide(&t, e, wrong, &Options::default()).is_equal());
}
