//! `decide::normalize` rebuilds a term from its canonical form: the result must be
//! decided equal to the original (here over the online-softmax and Welford kernels,
//! whose terms are the running recurrences it exists for).

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
        for e in t.elems.iter().flatten() {
            let n = decide::normalize(&mut terms, *e).unwrap_or_else(|| panic!("{op}: no form"));
            pairs.push((*e, n));
        }
    }
    for (k, v) in decide::decide_all(&terms, &pairs, &Options::default())
        .iter()
        .enumerate()
    {
        assert!(v.is_equal(), "{op}: element #{k}: {v:?}");
    }
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
}
