//! Activations, scans, triangles, argmax, norms, pooling, convolution, losses and
//! narrowing conversions against plain-loop definitions.

use super::*;

/// The ops of issue 20 (activations, scans, triangles, argmax, norms, pooling,
/// convolution, losses) against plain-loop f64 definitions.
#[test]
fn issue20_ops_match_loop_definitions() {
    let x = A::input("x", &[3, 5]);
    let x3 = A::input("x", &[2, 3, 7]);
    let y = A::input("y", &[3, 5]);
    let softplus = |v: f64| (1.0 + v.exp()).ln();
    let unary: Vec<(&str, Box<dyn Fn(f64) -> f64>)> = vec![
        (
            "y = F.selu(x)",
            Box::new(|v| {
                let (a, s) = (1.673_263_242_354_377_2, 1.050_700_987_355_480_5);
                s * if v > 0.0 { v } else { a * (v.exp() - 1.0) }
            }),
        ),
        (
            "y = F.hardsigmoid(x)",
            Box::new(|v| (v + 3.0).clamp(0.0, 6.0) / 6.0),
        ),
        (
            "y = F.hardswish(x)",
            Box::new(|v| v * (v + 3.0).clamp(0.0, 6.0) / 6.0),
        ),
        ("y = F.mish(x)", Box::new(move |v| v * softplus(v).tanh())),
        ("y = F.softsign(x)", Box::new(|v| v / (1.0 + v.abs()))),
        ("y = F.logsigmoid(x)", Box::new(|v| sigmoid(v).ln())),
    ];
    for (spec, f) in unary {
        check(spec, &[("x", &[3, 5])], &x.map(f));
    }
    let t: &[(&str, &[usize])] = &[("x", &[3, 5]), ("y", &[3, 5])];
    check(
        "z = torch.cumsum(x, dim=-1)",
        t,
        &A::build(&[3, 5], |i| (0..=i[1]).map(|j| x.at(&[i[0], j])).sum()),
    );
    check(
        "z = x.cumprod(0)",
        t,
        &A::build(&[3, 5], |i| (0..=i[0]).map(|r| x.at(&[r, i[1]])).product()),
    );
    check(
        "z = torch.flip(x, [0, 1])",
        t,
        &A::build(&[3, 5], |i| x.at(&[2 - i[0], 4 - i[1]])),
    );
    check(
        "z = torch.triu(x, 1) + torch.tril(x, diagonal=-2)",
        t,
        &A::build(&[3, 5], |i| {
            let d = i[1] as i64 - i[0] as i64;
            if d >= 1 || d <= -2 {
                x.at(i)
            } else {
                0.0
            }
        }),
    );
    check(
        "z = torch.diag(x, 2)",
        t,
        &A::build(&[3], |i| x.at(&[i[0], i[0] + 2])),
    );
    let argmax = |r: usize| {
        let row: Vec<f64> = (0..5).map(|j| x.at(&[r, j])).collect();
        let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        row.iter().position(|&v| v == m).unwrap() as f64
    };
    check(
        "z = torch.argmax(x, dim=1)",
        t,
        &A::build(&[3], |i| argmax(i[0])),
    );
    check(
        "z = torch.linalg.vector_norm(x, dim=1)",
        t,
        &A::build(&[3], |i| {
            (0..5).map(|j| x.at(&[i[0], j]).powi(2)).sum::<f64>().sqrt()
        }),
    );
    check(
        "z = torch.norm(x, p=1, dim=0)",
        t,
        &A::build(&[5], |i| (0..3).map(|r| x.at(&[r, i[0]]).abs()).sum()),
    );
    // max_pool1d(k=3, s=2, p=1): windows over [2o-1, 2o+1] within the input.
    let t3: &[(&str, &[usize])] = &[("x", &[2, 3, 7])];
    check(
        "z = F.max_pool1d(x, 3, stride=2, padding=1)",
        t3,
        &A::build(&[2, 3, 4], |i| {
            (0..3)
                .map(|j| 2 * i[2] as i64 - 1 + j)
                .filter(|&q| (0..7).contains(&q))
                .map(|q| x3.at(&[i[0], i[1], q as usize]))
                .fold(f64::NEG_INFINITY, f64::max)
        }),
    );
    // avg_pool1d(k=3, s=2, p=1), padding counted (divisor 3) and not.
    for (spec, counted) in [
        ("z = F.avg_pool1d(x, 3, 2, 1)", true),
        (
            "z = F.avg_pool1d(x, 3, 2, 1, count_include_pad=False)",
            false,
        ),
    ] {
        check(
            spec,
            t3,
            &A::build(&[2, 3, 4], |i| {
                let qs: Vec<usize> = (0..3)
                    .map(|j| 2 * i[2] as i64 - 1 + j)
                    .filter(|&q| (0..7).contains(&q))
                    .map(|q| q as usize)
                    .collect();
                let s: f64 = qs.iter().map(|&q| x3.at(&[i[0], i[1], q])).sum();
                s / if counted { 3.0 } else { qs.len() as f64 }
            }),
        );
    }
    // conv1d: weight [4, 3, 3], bias, stride 2, padding 1.
    let w = A::input("w", &[4, 3, 3]);
    let b = A::input("b", &[4]);
    check(
        "z = F.conv1d(x, w, b, stride=2, padding=1)",
        &[("x", &[2, 3, 7]), ("w", &[4, 3, 3]), ("b", &[4])],
        &A::build(&[2, 4, 4], |i| {
            let mut acc = b.at(&[i[1]]);
            for c in 0..3 {
                for j in 0..3 {
                    let q = 2 * i[2] as i64 - 1 + j as i64;
                    if (0..7).contains(&q) {
                        acc += x3.at(&[i[0], c, q as usize]) * w.at(&[i[1], c, j]);
                    }
                }
            }
            acc
        }),
    );
    let diffs: Vec<f64> = x.d.iter().zip(&y.d).map(|(a, b)| a - b).collect();
    let mean = |v: Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
    check(
        "z = F.mse_loss(x, y)",
        t,
        &A::build(&[], |_| mean(diffs.iter().map(|d| d * d).collect())),
    );
    check(
        "z = F.huber_loss(x, y, delta=0.5)",
        t,
        &A::build(&[], |_| {
            mean(
                diffs
                    .iter()
                    .map(|d| {
                        if d.abs() < 0.5 {
                            0.5 * d * d
                        } else {
                            0.5 * (d.abs() - 0.25)
                        }
                    })
                    .collect(),
            )
        }),
    );
    check(
        "z = F.cosine_similarity(x, y)",
        t,
        &A::build(&[3], |i| {
            let r = i[0];
            let dot: f64 = (0..5).map(|j| x.at(&[r, j]) * y.at(&[r, j])).sum();
            let nx = (0..5).map(|j| x.at(&[r, j]).powi(2)).sum::<f64>().sqrt();
            let ny = (0..5).map(|j| y.at(&[r, j]).powi(2)).sum::<f64>().sqrt();
            dot / (nx.max(1e-8) * ny.max(1e-8))
        }),
    );
    check(
        "z = torch.sqrt(x * 0 + 2) * math.pi",
        t,
        &A::build(&[3, 5], |_| 2f64.sqrt() * std::f64::consts::PI),
    );
}

#[test]
fn cross_entropy_picks_the_target_class_with_selects() {
    // Logits [2, 3], targets [2] holding class indices as reals.
    let tensors: BTreeMap<String, Vec<usize>> =
        [("x".to_string(), vec![2, 3]), ("t".to_string(), vec![2])]
            .into_iter()
            .collect();
    let empty_s = BTreeSet::new();
    let empty_v = BTreeMap::new();
    let sizes = BTreeMap::new();
    let env = Env {
        tensors: &tensors,
        scalars: &empty_s,
        values: &empty_v,
        sizes: &sizes,
        float: FloatType::F32,
    };
    let x = [0.5, -1.0, 2.0, 1.5, 0.25, -0.75];
    let target = [2.0, 0.0];
    // Hand-computed: mean over rows of logsumexp(row) - row[target].
    let lse = |r: &[f64]| r.iter().map(|v| v.exp()).sum::<f64>().ln();
    let want_rows = [lse(&x[0..3]) - x[2], lse(&x[3..6]) - x[3]];
    for (spec, want) in [
        (
            "l = F.cross_entropy(x, t)",
            vec![(want_rows[0] + want_rows[1]) / 2.0],
        ),
        (
            "l = F.cross_entropy(x, t, reduction='sum')",
            vec![want_rows[0] + want_rows[1]],
        ),
        (
            "l = F.cross_entropy(x, t, reduction='none')",
            want_rows.to_vec(),
        ),
    ] {
        let mut terms = Terms::new();
        let out = lift::torch::parse(spec)
            .unwrap()
            .instantiate(&mut terms, &env)
            .unwrap();
        let got: Vec<f64> = out[0]
            .elems
            .iter()
            .map(|&e| {
                terms.eval(
                    e,
                    &|name, idx| {
                        if name == "x" {
                            x[idx[0] as usize * 3 + idx[1] as usize]
                        } else {
                            target[idx[0] as usize]
                        }
                    },
                    &|_| 0.0,
                )
            })
            .collect();
        assert_eq!(got.len(), want.len(), "{spec}");
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-12, "{spec}: {g} vs {w}");
        }
    }
    let mut terms = Terms::new();
    let err = lift::torch::parse("l = F.cross_entropy(x, x)")
        .unwrap()
        .instantiate(&mut terms, &env)
        .unwrap_err();
    assert!(err.to_string().contains("target [N]"), "{err}");
}

/// A conversion is exact only to a type holding every value of the kernel's: more
/// significand bits *and* as wide an exponent range. float16 has more bits than
/// bfloat16 but not its range (bfloat16's 1e38 is inf in float16), and bfloat16 has the
/// range of float16 but fewer bits: both directions narrow and are errors.
#[test]
fn conversions_narrow_unless_the_target_holds_every_value() {
    let cases = [
        (FloatType::BF16, "torch.float16", false),
        (FloatType::F16, "torch.bfloat16", false),
        (FloatType::F32, "torch.float16", false),
        (FloatType::F16, "torch.float32", true),
        (FloatType::BF16, "torch.float32", true),
        (FloatType::F32, "torch.float64", true),
        (FloatType::F64, "torch.float32", false),
    ];
    for (float, to, exact) in cases {
        let spec = format!("y = x.to({to})");
        match try_run(&spec, &[("x", &[2])], &[], float) {
            Ok(_) => assert!(exact, "{float:?} → {to} accepted"),
            Err(e) => {
                assert!(!exact, "{float:?} → {to}: {e}");
                assert!(e.message.contains("rounds"), "{e}");
            }
        }
    }
}
