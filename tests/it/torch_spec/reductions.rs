//! Reductions (dims, keepdim, negative dims), the softmax family and norms.

use super::*;

// ---- reductions ------------------------------------------------------------------------

/// Reference reduction over `dims` of a 3-D tensor: `f` gets the values in order.
fn reduce3(a: &A, dims: &[usize], keepdim: bool, f: impl Fn(&[f64]) -> f64) -> A {
    let out_full: Vec<usize> = (0..3)
        .map(|d| if dims.contains(&d) { 1 } else { a.shape[d] })
        .collect();
    let full = A::build(&out_full, |o| {
        let mut vals = Vec::new();
        for i in 0..a.shape[0] {
            for j in 0..a.shape[1] {
                for k in 0..a.shape[2] {
                    let idx = [i, j, k];
                    if (0..3).all(|d| dims.contains(&d) || idx[d] == o[d]) {
                        vals.push(a.at(&idx));
                    }
                }
            }
        }
        f(&vals)
    });
    if keepdim {
        full
    } else {
        A {
            shape: (0..3)
                .filter(|d| !dims.contains(d))
                .map(|d| a.shape[d])
                .collect(),
            d: full.d,
        }
    }
}

fn sum(v: &[f64]) -> f64 {
    v.iter().sum()
}
fn mean(v: &[f64]) -> f64 {
    sum(v) / v.len() as f64
}
fn var(v: &[f64], correction: f64) -> f64 {
    let m = mean(v);
    v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() as f64 - correction)
}
fn vmax(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}
fn vmin(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

#[test]
fn reductions_with_dims_keepdim_and_negative_dims() {
    let s: &[usize] = &[2, 3, 4];
    let x = A::input("x", s);
    let t: &[(&str, &[usize])] = &[("x", s)];
    let cases: Vec<(&str, A)> = vec![
        ("y = torch.sum(x, dim=1)", reduce3(&x, &[1], false, sum)),
        ("y = x.sum(-1, keepdim=True)", reduce3(&x, &[2], true, sum)),
        (
            "y = x.sum(axis=0, keepdims=True)",
            reduce3(&x, &[0], true, sum),
        ),
        (
            "y = torch.sum(x)",
            A {
                shape: vec![],
                d: vec![sum(&x.d)],
            },
        ),
        (
            "y = torch.sum(x, dim=(0, -1))",
            reduce3(&x, &[0, 2], false, sum),
        ),
        (
            "y = torch.mean(x, dim=(0, 2))",
            reduce3(&x, &[0, 2], false, mean),
        ),
        ("y = x.mean(dim=-1)", reduce3(&x, &[2], false, mean)),
        (
            "y = x.mean()",
            A {
                shape: vec![],
                d: vec![mean(&x.d)],
            },
        ),
        (
            "y = torch.prod(x, 1)",
            reduce3(&x, &[1], false, |v| v.iter().product()),
        ),
        (
            "y = torch.var(x, dim=-1)",
            reduce3(&x, &[2], false, |v| var(v, 1.0)),
        ),
        (
            "y = torch.var(x, dim=-1, unbiased=False)",
            reduce3(&x, &[2], false, |v| var(v, 0.0)),
        ),
        (
            "y = x.var(1, correction=0, keepdim=True)",
            reduce3(&x, &[1], true, |v| var(v, 0.0)),
        ),
        (
            "y = torch.std(x, dim=0)",
            reduce3(&x, &[0], false, |v| var(v, 1.0).sqrt()),
        ),
        ("y = torch.amax(x, -1)", reduce3(&x, &[2], false, vmax)),
        (
            "y = torch.amax(x, dim=(1, 2))",
            reduce3(&x, &[1, 2], false, vmax),
        ),
        ("y = torch.amin(x, 0, True)", reduce3(&x, &[0], true, vmin)),
        ("y = x.max(dim=-1).values", reduce3(&x, &[2], false, vmax)),
        (
            "y = torch.max(x, 1, keepdim=True)[0]",
            reduce3(&x, &[1], true, vmax),
        ),
        (
            "y = torch.max(x)",
            A {
                shape: vec![],
                d: vec![vmax(&x.d)],
            },
        ),
        ("y = x.min(dim=0).values", reduce3(&x, &[0], false, vmin)),
        ("y = x.amax(-1)", reduce3(&x, &[2], false, vmax)),
        (
            "y = torch.logsumexp(x, dim=-1)",
            reduce3(&x, &[2], false, |v| {
                v.iter().map(|a| a.exp()).sum::<f64>().ln()
            }),
        ),
        (
            "y = x.logsumexp(1, keepdim=True)",
            reduce3(&x, &[1], true, |v| {
                v.iter().map(|a| a.exp()).sum::<f64>().ln()
            }),
        ),
    ];
    for (spec, want) in cases {
        check(spec, t, &want);
    }
}

/// Softmax-like ops along `dim` of a 3-D tensor.
fn along(a: &A, dim: usize, f: impl Fn(f64, &[f64]) -> f64) -> A {
    A::build(&a.shape, |i| {
        let vals: Vec<f64> = (0..a.shape[dim])
            .map(|k| {
                let mut j = i.to_vec();
                j[dim] = k;
                a.at(&j)
            })
            .collect();
        f(a.at(i), &vals)
    })
}

#[test]
fn softmax_family_layer_norm_and_rms_norm() {
    let s: &[usize] = &[2, 3, 4];
    let x = A::input("x", s);
    let w = A::input("w", &[4]);
    let b = A::input("b", &[4]);
    let t: &[(&str, &[usize])] = &[("x", s), ("w", &[4]), ("b", &[4])];
    let softmax = |v: f64, all: &[f64]| v.exp() / all.iter().map(|a| a.exp()).sum::<f64>();
    let log_softmax = |v: f64, all: &[f64]| v - all.iter().map(|a| a.exp()).sum::<f64>().ln();
    let ln = |eps: f64, affine: bool| {
        A::build(s, |i| {
            let vals: Vec<f64> = (0..4).map(|k| x.at(&[i[0], i[1], k])).collect();
            let y = (x.at(i) - mean(&vals)) / (var(&vals, 0.0) + eps).sqrt();
            if affine {
                y * w.at(&[i[2]]) + b.at(&[i[2]])
            } else {
                y
            }
        })
    };
    let rms = |eps: f64| {
        A::build(s, |i| {
            let vals: Vec<f64> = (0..4).map(|k| x.at(&[i[0], i[1], k]).powi(2)).collect();
            x.at(i) / (mean(&vals) + eps).sqrt() * w.at(&[i[2]])
        })
    };
    let cases: Vec<(&str, A)> = vec![
        ("y = torch.softmax(x, dim=-1)", along(&x, 2, softmax)),
        ("y = F.softmax(x, 0)", along(&x, 0, softmax)),
        ("y = x.softmax(dim=1)", along(&x, 1, softmax)),
        (
            "y = torch.log_softmax(x, dim=-1)",
            along(&x, 2, log_softmax),
        ),
        ("y = F.log_softmax(x, dim=-2)", along(&x, 1, log_softmax)),
        ("y = F.layer_norm(x, (4,), w, b, eps)", ln(1e-3, true)),
        ("y = F.layer_norm(x, [4], weight=w, bias=b)", ln(1e-5, true)),
        ("y = F.layer_norm(x, (N,))", ln(1e-5, false)),
        ("y = F.rms_norm(x, (4,), w, eps)", rms(1e-3)),
        ("y = F.rms_norm(x, (4,), weight=w, eps=1e-6)", rms(1e-6)),
        ("y = F.rms_norm(x, (4,), w)", rms(f64::EPSILON)),
        (
            "y = x * torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + eps) * w",
            rms(1e-3),
        ),
    ];
    for (spec, want) in cases {
        check(spec, t, &want);
    }
    // layer_norm over the last two dims.
    let want = A::build(s, |i| {
        let vals: Vec<f64> = (0..3)
            .flat_map(|j| (0..4).map(move |k| (j, k)))
            .map(|(j, k)| x.at(&[i[0], j, k]))
            .collect();
        (x.at(i) - mean(&vals)) / (var(&vals, 0.0) + 1e-5).sqrt()
    });
    check("y = F.layer_norm(x, (3, 4))", t, &want);
}

#[test]
fn reductions_build_one_wide_term_per_element() {
    let r = run(
        "y = torch.sum(x, dim=-1); m = x.amax(1)",
        &[("x", &[1, 1000])],
    );
    for o in &r.out {
        let n = match r.terms.node(o.elems[0]) {
            Node::Add(ops) | Node::Max(ops) => ops.len(),
            other => panic!("{}: {other:?}", o.name),
        };
        assert_eq!(n, 1000, "{}", o.name);
    }
    // Quadratic construction would create ~500k nodes; one n-ary node each needs ~2k.
    assert!(r.terms.len() < 3000, "{} terms", r.terms.len());
}
