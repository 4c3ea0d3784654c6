//! The PyTorch spec language: every op against an independent f64 implementation written
//! here with plain loops, at pseudo-random inputs; broadcasting, keepdim, negative dims,
//! layout ops, outputs and temporaries, error messages, constant rounding, and printed
//! terms of tiny specs.

use lift::term::{erf, Node, Terms};
use lift::torch::{self, Env, FloatType, SpecError, SpecOutput, SpecProgram};
use num_rational::BigRational;
use std::collections::{BTreeMap, BTreeSet};

// ---- harness ---------------------------------------------------------------------------

/// Deterministic pseudo-random input values: in [-2, 2], or [0.25, 4] for tensors whose
/// name starts with `p` (for log, sqrt, division).
fn rnd(name: &str, idx: &[i64]) -> f64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in name.bytes().chain(idx.iter().flat_map(|i| i.to_le_bytes())) {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51afd7ed558ccd);
    h ^= h >> 33;
    let u = (h >> 11) as f64 / (1u64 << 53) as f64;
    if name.starts_with('p') {
        0.25 + 3.75 * u
    } else {
        -2.0 + 4.0 * u
    }
}

fn param(p: &str) -> f64 {
    match p {
        "eps" => 1e-3,
        "alpha" => 0.7,
        _ => panic!("unknown param {p}"),
    }
}

/// A reference tensor filled with the inputs `rnd` gives `name`.
#[derive(Clone, Debug)]
struct A {
    shape: Vec<usize>,
    d: Vec<f64>,
}

fn unravel(shape: &[usize], mut flat: usize) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        idx[k] = flat % shape[k];
        flat /= shape[k];
    }
    idx
}

impl A {
    fn input(name: &str, shape: &[usize]) -> A {
        let n: usize = shape.iter().product();
        let d = (0..n)
            .map(|f| {
                let idx: Vec<i64> = unravel(shape, f).iter().map(|&i| i as i64).collect();
                rnd(name, &idx)
            })
            .collect();
        A {
            shape: shape.to_vec(),
            d,
        }
    }
    fn at(&self, idx: &[usize]) -> f64 {
        let mut f = 0;
        for (&i, &s) in idx.iter().zip(&self.shape) {
            f = f * s + i;
        }
        self.d[f]
    }
    fn build(shape: &[usize], mut f: impl FnMut(&[usize]) -> f64) -> A {
        let n: usize = shape.iter().product();
        let d = (0..n).map(|k| f(&unravel(shape, k))).collect();
        A {
            shape: shape.to_vec(),
            d,
        }
    }
    fn map(&self, f: impl Fn(f64) -> f64) -> A {
        A {
            shape: self.shape.clone(),
            d: self.d.iter().map(|&v| f(v)).collect(),
        }
    }
}

struct Run {
    terms: Terms,
    out: Vec<SpecOutput>,
}

fn try_run(
    spec: &str,
    tensors: &[(&str, &[usize])],
    sizes: &[(&str, i64)],
    float: FloatType,
) -> Result<Run, SpecError> {
    let prog = torch::parse(spec)?;
    let tensors: BTreeMap<String, Vec<usize>> = tensors
        .iter()
        .map(|(n, s)| (n.to_string(), s.to_vec()))
        .collect();
    let scalars: BTreeSet<String> = ["eps".to_string(), "alpha".to_string()].into();
    let values: BTreeMap<String, f64> = [("half".to_string(), 0.5)].into();
    let sizes: BTreeMap<String, i64> = sizes.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let env = Env {
        tensors: &tensors,
        scalars: &scalars,
        values: &values,
        sizes: &sizes,
        float,
    };
    let mut terms = Terms::new();
    let out = prog.instantiate(&mut terms, &env)?;
    Ok(Run { terms, out })
}

fn run(spec: &str, tensors: &[(&str, &[usize])]) -> Run {
    try_run(spec, tensors, &[("N", 4)], FloatType::F64).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn names(r: &Run) -> Vec<String> {
    r.out.iter().map(|o| o.name.clone()).collect()
}

impl Run {
    fn output(&self, i: usize) -> (Vec<usize>, Vec<f64>) {
        let o = &self.out[i];
        let vals = o
            .elems
            .iter()
            .map(|&e| self.terms.eval(e, &|n, idx| rnd(n, idx), &|p| param(p)))
            .collect();
        (o.shape.clone(), vals)
    }
}

fn assert_close(spec: &str, got: &(Vec<usize>, Vec<f64>), want: &A) {
    assert_eq!(got.0, want.shape, "{spec}: shape");
    for (i, (&g, &w)) in got.1.iter().zip(&want.d).enumerate() {
        let ok = if w.is_finite() {
            (g - w).abs() <= 1e-12 + 1e-10 * w.abs()
        } else {
            g == w
        };
        assert!(
            ok,
            "{spec}: element {i} ({:?}) is {g}, expected {w}",
            unravel(&want.shape, i)
        );
    }
}

/// Runs `spec` and compares its first output with `want`.
fn check(spec: &str, tensors: &[(&str, &[usize])], want: &A) {
    let r = run(spec, tensors);
    assert_close(spec, &r.output(0), want);
}

fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + (-v).exp())
}

// ---- elementwise --------------------------------------------------------------------

#[test]
fn unary_elementwise_ops_match_f64_definitions() {
    let s: &[usize] = &[2, 3];
    let x = A::input("x", s);
    let p = A::input("p", s);
    let gelu = |v: f64| 0.5 * v * (1.0 + erf(v / 2f64.sqrt()));
    let gelu_tanh = |v: f64| {
        0.5 * v * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (v + 0.044715 * v * v * v)).tanh())
    };
    let cases: Vec<(&str, &A, Box<dyn Fn(f64) -> f64>)> = vec![
        ("y = torch.exp(x)", &x, Box::new(f64::exp)),
        ("y = x.exp()", &x, Box::new(f64::exp)),
        ("y = torch.exp2(x)", &x, Box::new(f64::exp2)),
        ("y = 2 ** x", &x, Box::new(f64::exp2)),
        ("y = torch.log(p)", &p, Box::new(f64::ln)),
        ("y = torch.log2(p)", &p, Box::new(f64::log2)),
        ("y = torch.log1p(p)", &p, Box::new(|v| (1.0 + v).ln())),
        ("y = torch.expm1(x)", &x, Box::new(|v| v.exp() - 1.0)),
        ("y = torch.sin(x)", &x, Box::new(f64::sin)),
        ("y = torch.cos(x)", &x, Box::new(f64::cos)),
        ("y = torch.tanh(x)", &x, Box::new(f64::tanh)),
        ("y = torch.erf(x)", &x, Box::new(erf)),
        ("y = torch.sigmoid(x)", &x, Box::new(sigmoid)),
        ("y = torch.special.expit(x)", &x, Box::new(sigmoid)),
        ("y = torch.relu(x)", &x, Box::new(|v| v.max(0.0))),
        ("y = F.relu(x, inplace=False)", &x, Box::new(|v| v.max(0.0))),
        (
            "y = F.relu6(3 * x)",
            &x,
            Box::new(|v| (3.0 * v).clamp(0.0, 6.0)),
        ),
        (
            "y = F.leaky_relu(x)",
            &x,
            Box::new(|v| if v > 0.0 { v } else { 0.01 * v }),
        ),
        (
            "y = torch.nn.functional.leaky_relu(x, negative_slope=0.2)",
            &x,
            Box::new(|v| if v > 0.0 { v } else { 0.2 * v }),
        ),
        ("y = F.gelu(x)", &x, Box::new(gelu)),
        ("y = F.gelu(x, approximate='none')", &x, Box::new(gelu)),
        ("y = F.gelu(x, approximate='tanh')", &x, Box::new(gelu_tanh)),
        ("y = F.silu(x)", &x, Box::new(|v| v * sigmoid(v))),
        ("y = F.softplus(x)", &x, Box::new(|v| (1.0 + v.exp()).ln())),
        (
            "y = F.softplus(x, beta=2)",
            &x,
            Box::new(|v| (1.0 + (2.0 * v).exp()).ln() / 2.0),
        ),
        (
            "y = F.elu(x)",
            &x,
            Box::new(|v| if v > 0.0 { v } else { v.exp() - 1.0 }),
        ),
        (
            "y = F.elu(x, alpha=0.5)",
            &x,
            Box::new(|v| if v > 0.0 { v } else { 0.5 * (v.exp() - 1.0) }),
        ),
        ("y = F.hardtanh(x)", &x, Box::new(|v| v.clamp(-1.0, 1.0))),
        (
            "y = F.hardtanh(x, min_val=-0.5, max_val=0.25)",
            &x,
            Box::new(|v| v.clamp(-0.5, 0.25)),
        ),
        (
            "y = torch.clamp(x, min=-1, max=0.5)",
            &x,
            Box::new(|v| v.clamp(-1.0, 0.5)),
        ),
        ("y = x.clamp(-1.5)", &x, Box::new(|v| v.max(-1.5))),
        ("y = torch.clip(x, max=0.5)", &x, Box::new(|v| v.min(0.5))),
        ("y = torch.abs(x)", &x, Box::new(f64::abs)),
        ("y = x.abs()", &x, Box::new(f64::abs)),
        ("y = torch.neg(x)", &x, Box::new(|v| -v)),
        ("y = -x", &x, Box::new(|v| -v)),
        ("y = torch.sqrt(p)", &p, Box::new(f64::sqrt)),
        ("y = torch.rsqrt(p)", &p, Box::new(|v| 1.0 / v.sqrt())),
        ("y = torch.reciprocal(p)", &p, Box::new(|v| 1.0 / v)),
        ("y = 1 / p", &p, Box::new(|v| 1.0 / v)),
        ("y = torch.pow(x, 3)", &x, Box::new(|v| v * v * v)),
        ("y = x.pow(2)", &x, Box::new(|v| v * v)),
        ("y = x ** 2", &x, Box::new(|v| v * v)),
        ("y = -x ** 2", &x, Box::new(|v| -(v * v))),
        ("y = p ** -1", &p, Box::new(|v| 1.0 / v)),
        ("y = p ** 0.5", &p, Box::new(f64::sqrt)),
        ("y = p ** -0.5", &p, Box::new(|v| 1.0 / v.sqrt())),
        ("y = torch.square(x)", &x, Box::new(|v| v * v)),
        ("y = torch.floor(x)", &x, Box::new(f64::floor)),
        ("y = 2 * x + 1.5", &x, Box::new(|v| 2.0 * v + 1.5)),
        ("y = x * half", &x, Box::new(|v| v * 0.5)),
        ("y = x * alpha + eps", &x, Box::new(|v| v * 0.7 + 1e-3)),
        (
            "y = (x + 1) * (x - 1) / 4",
            &x,
            Box::new(|v| (v + 1.0) * (v - 1.0) / 4.0),
        ),
        ("y = x.double().contiguous()", &x, Box::new(|v| v)),
    ];
    for (spec, input, f) in cases {
        let name = if std::ptr::eq(input, &p) { "p" } else { "x" };
        check(spec, &[(name, s)], &input.map(f));
    }
}

#[test]
fn binary_ops_broadcast() {
    let x = A::input("x", &[2, 3]);
    let y = A::input("y", &[3]);
    let c = A::input("c", &[2, 1]);
    let r = A::input("r", &[1, 3]);
    let p = A::input("p", &[2, 3]);
    let t: &[(&str, &[usize])] = &[
        ("x", &[2, 3]),
        ("y", &[3]),
        ("c", &[2, 1]),
        ("r", &[1, 3]),
        ("p", &[2, 3]),
    ];
    let s = [2, 3];
    let cases: Vec<(&str, A)> = vec![
        ("z = x + y", A::build(&s, |i| x.at(i) + y.at(&[i[1]]))),
        (
            "z = torch.add(x, y, alpha=2)",
            A::build(&s, |i| x.at(i) + 2.0 * y.at(&[i[1]])),
        ),
        ("z = y - x", A::build(&s, |i| y.at(&[i[1]]) - x.at(i))),
        ("z = x.sub(y)", A::build(&s, |i| x.at(i) - y.at(&[i[1]]))),
        (
            "z = c * r",
            A::build(&s, |i| c.at(&[i[0], 0]) * r.at(&[0, i[1]])),
        ),
        (
            "z = torch.mul(c, r)",
            A::build(&s, |i| c.at(&[i[0], 0]) * r.at(&[0, i[1]])),
        ),
        ("z = x / p", A::build(&s, |i| x.at(i) / p.at(i))),
        ("z = torch.div(x, p)", A::build(&s, |i| x.at(i) / p.at(i))),
        ("z = x - 1.5", A::build(&s, |i| x.at(i) - 1.5)),
        (
            "z = torch.maximum(x, y)",
            A::build(&s, |i| x.at(i).max(y.at(&[i[1]]))),
        ),
        (
            "z = torch.max(x, y)",
            A::build(&s, |i| x.at(i).max(y.at(&[i[1]]))),
        ),
        (
            "z = torch.minimum(c, x)",
            A::build(&s, |i| x.at(i).min(c.at(&[i[0], 0]))),
        ),
        (
            "z = torch.where(x > 0, x, y)",
            A::build(&s, |i| {
                if x.at(i) > 0.0 {
                    x.at(i)
                } else {
                    y.at(&[i[1]])
                }
            }),
        ),
        (
            "z = torch.where(x > y, c, 0.0)",
            A::build(&s, |i| {
                if x.at(i) > y.at(&[i[1]]) {
                    c.at(&[i[0], 0])
                } else {
                    0.0
                }
            }),
        ),
        (
            "z = x >= y",
            A::build(&s, |i| (x.at(i) >= y.at(&[i[1]])) as i32 as f64),
        ),
        ("z = x != x", A::build(&s, |_| 0.0)),
        (
            "z = (x > 0) & (y < 0)",
            A::build(&s, |i| (x.at(i) > 0.0 && y.at(&[i[1]]) < 0.0) as i32 as f64),
        ),
        (
            "z = ~(x > 0) | (c > 1)",
            A::build(&s, |i| {
                (x.at(i) <= 0.0 || c.at(&[i[0], 0]) > 1.0) as i32 as f64
            }),
        ),
        ("z = x * (x > 0)", A::build(&s, |i| x.at(i).max(0.0))),
    ];
    for (spec, want) in cases {
        check(spec, t, &want);
    }
}

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

// ---- linear algebra ------------------------------------------------------------------

fn matmul_ref(a: &A, b: &A) -> A {
    let (n, k) = (a.shape[0], a.shape[1]);
    let m = b.shape[1];
    A::build(&[n, m], |i| {
        (0..k).map(|kk| a.at(&[i[0], kk]) * b.at(&[kk, i[1]])).sum()
    })
}

#[test]
fn matmul_shapes() {
    let a = A::input("a", &[2, 3]);
    let b = A::input("b", &[3, 4]);
    let v = A::input("v", &[3]);
    let t: &[(&str, &[usize])] = &[("a", &[2, 3]), ("b", &[3, 4]), ("v", &[3])];
    let ab = matmul_ref(&a, &b);
    check("c = a @ b", t, &ab);
    check("c = torch.matmul(a, b)", t, &ab);
    check("c = torch.mm(a, b)", t, &ab);
    // `dtype`, `inplace` and `device` are accepted and mean nothing for real tensors.
    check("c = torch.matmul(a, b).to(device='cpu')", t, &ab);
    check(
        "c = torch.nn.functional.relu(a @ b, inplace=True)",
        t,
        &A::build(&[2, 4], |i| ab.at(&[i[0], i[1]]).max(0.0)),
    );
    // Slices along a leading dimension start at their offset (row 1 of a), concat is
    // PyTorch's alias of cat, `%` takes the sign of the divisor, `//` of ints floors.
    check("c = a[1:, :]", t, &A::build(&[1, 3], |i| a.at(&[1, i[1]])));
    check(
        "c = torch.concat([a, a])",
        t,
        &A::build(&[4, 3], |i| a.at(&[i[0] % 2, i[1]])),
    );
    check(
        "c = a % 0.75",
        t,
        &A::build(&[2, 3], |i| {
            let v = a.at(&[i[0], i[1]]);
            v - 0.75 * (v / 0.75).floor()
        }),
    );
    check(
        "c = a * (-7 // 2)",
        t,
        &A::build(&[2, 3], |i| -4.0 * a.at(&[i[0], i[1]])),
    );
    check(
        "c = a * (7 // -2)",
        t,
        &A::build(&[2, 3], |i| -4.0 * a.at(&[i[0], i[1]])),
    );
    // torch.linalg.matmul is PyTorch's alias of torch.matmul.
    check("c = torch.linalg.matmul(a, b)", t, &ab);
    // `.ndim` is the number of dimensions: 2 for a.
    check(
        "c = (a @ b) * a.ndim",
        t,
        &A::build(&[2, 4], |i| 2.0 * ab.at(&[i[0], i[1]])),
    );
    check("c = a.matmul(b)", t, &ab);
    check("c = (b.T @ a.T).T", t, &ab);
    check(
        "c = v @ b",
        t,
        &A::build(&[4], |i| {
            (0..3).map(|k| v.at(&[k]) * b.at(&[k, i[0]])).sum()
        }),
    );
    check(
        "c = a @ v",
        t,
        &A::build(&[2], |i| {
            (0..3).map(|k| a.at(&[i[0], k]) * v.at(&[k])).sum()
        }),
    );
    check(
        "c = v @ v",
        t,
        &A {
            shape: vec![],
            d: vec![v.d.iter().map(|e| e * e).sum()],
        },
    );

    // Batched, and batch broadcasting.
    let p = A::input("p", &[2, 2, 3]);
    let q = A::input("q", &[2, 3, 5]);
    let t3: &[(&str, &[usize])] = &[
        ("p", &[2, 2, 3]),
        ("q", &[2, 3, 5]),
        ("r", &[3, 5]),
        ("s", &[2, 1, 2, 3]),
    ];
    let bmm = A::build(&[2, 2, 5], |i| {
        (0..3)
            .map(|k| p.at(&[i[0], i[1], k]) * q.at(&[i[0], k, i[2]]))
            .sum()
    });
    check("c = torch.bmm(p, q)", t3, &bmm);
    check("c = p @ q", t3, &bmm);
    let r = A::input("r", &[3, 5]);
    check(
        "c = p @ r",
        t3,
        &A::build(&[2, 2, 5], |i| {
            (0..3)
                .map(|k| p.at(&[i[0], i[1], k]) * r.at(&[k, i[2]]))
                .sum()
        }),
    );
    let s4 = A::input("s", &[2, 1, 2, 3]);
    check(
        "c = s @ q",
        t3,
        &A::build(&[2, 2, 2, 5], |i| {
            (0..3)
                .map(|k| s4.at(&[i[0], 0, i[2], k]) * q.at(&[i[1], k, i[3]]))
                .sum()
        }),
    );

    // linear: x @ w.T + b.
    let x = A::input("x", &[2, 3]);
    let w = A::input("w", &[4, 3]);
    let bias = A::input("bias", &[4]);
    check(
        "y = F.linear(x, w, bias)",
        &[("x", &[2, 3]), ("w", &[4, 3]), ("bias", &[4])],
        &A::build(&[2, 4], |i| {
            (0..3)
                .map(|k| x.at(&[i[0], k]) * w.at(&[i[1], k]))
                .sum::<f64>()
                + bias.at(&[i[1]])
        }),
    );

    // Each element is one sum of k products.
    let run = run("c = a @ b", t);
    match run.terms.node(run.out[0].elems[0]) {
        Node::Add(ops) => assert_eq!(ops.len(), 3),
        other => panic!("{other:?}"),
    }
}

// ---- layout and creation ---------------------------------------------------------------

#[test]
fn layout_ops() {
    let x = A::input("x", &[2, 3, 4]);
    let m = A::input("m", &[2, 5]);
    let t: &[(&str, &[usize])] = &[("x", &[2, 3, 4]), ("m", &[2, 5]), ("v", &[5])];
    let cases: Vec<(&str, A)> = vec![
        (
            "y = torch.transpose(x, 0, -1)",
            A::build(&[4, 3, 2], |i| x.at(&[i[2], i[1], i[0]])),
        ),
        (
            "y = x.transpose(1, 2)",
            A::build(&[2, 4, 3], |i| x.at(&[i[0], i[2], i[1]])),
        ),
        ("y = m.T", A::build(&[5, 2], |i| m.at(&[i[1], i[0]]))),
        ("y = m.t()", A::build(&[5, 2], |i| m.at(&[i[1], i[0]]))),
        (
            "y = x.mT",
            A::build(&[2, 4, 3], |i| x.at(&[i[0], i[2], i[1]])),
        ),
        (
            "y = x.permute(2, 0, 1)",
            A::build(&[4, 2, 3], |i| x.at(&[i[1], i[2], i[0]])),
        ),
        (
            "y = torch.permute(x, (1, 2, 0))",
            A::build(&[3, 4, 2], |i| x.at(&[i[2], i[0], i[1]])),
        ),
        (
            "y = x.reshape(6, -1)",
            A {
                shape: vec![6, 4],
                d: x.d.clone(),
            },
        ),
        (
            "y = torch.reshape(x, (4, 6))",
            A {
                shape: vec![4, 6],
                d: x.d.clone(),
            },
        ),
        (
            "y = x.view(-1)",
            A {
                shape: vec![24],
                d: x.d.clone(),
            },
        ),
        (
            "y = x.flatten(1)",
            A {
                shape: vec![2, 12],
                d: x.d.clone(),
            },
        ),
        (
            "y = m.unsqueeze(1)",
            A {
                shape: vec![2, 1, 5],
                d: m.d.clone(),
            },
        ),
        (
            "y = torch.unsqueeze(m, -1)",
            A {
                shape: vec![2, 5, 1],
                d: m.d.clone(),
            },
        ),
        (
            "y = m[:, None].squeeze()",
            A {
                shape: vec![2, 5],
                d: m.d.clone(),
            },
        ),
        (
            "y = m.unsqueeze(0).squeeze(0)",
            A {
                shape: vec![2, 5],
                d: m.d.clone(),
            },
        ),
        ("y = m[:, :2]", A::build(&[2, 2], |i| m.at(i))),
        (
            "y = m[..., 2:]",
            A::build(&[2, 3], |i| m.at(&[i[0], i[1] + 2])),
        ),
        (
            "y = m[:, -2:]",
            A::build(&[2, 2], |i| m.at(&[i[0], i[1] + 3])),
        ),
        (
            "y = m[:, ::2]",
            A::build(&[2, 3], |i| m.at(&[i[0], 2 * i[1]])),
        ),
        ("y = m[1]", A::build(&[5], |i| m.at(&[1, i[0]]))),
        ("y = x[0, :, -1]", A::build(&[3], |i| x.at(&[0, i[0], 3]))),
        (
            "y = x[..., 1]",
            A::build(&[2, 3], |i| x.at(&[i[0], i[1], 1])),
        ),
        ("y = m.chunk(2, dim=-1)[0]", A::build(&[2, 3], |i| m.at(i))),
        (
            "y = torch.chunk(m, 2, -1)[1]",
            A::build(&[2, 2], |i| m.at(&[i[0], i[1] + 3])),
        ),
        (
            "y = torch.split(m, 2, dim=1)[2]",
            A::build(&[2, 1], |i| m.at(&[i[0], 4])),
        ),
        (
            "y = m.split([1, 4], -1)[1]",
            A::build(&[2, 4], |i| m.at(&[i[0], i[1] + 1])),
        ),
        (
            "y = torch.cat([m, m[:, :1]], dim=-1)",
            A::build(&[2, 6], |i| m.at(&[i[0], i[1] % 5])),
        ),
        (
            "y = torch.cat((m, m))",
            A::build(&[4, 5], |i| m.at(&[i[0] % 2, i[1]])),
        ),
        (
            "y = torch.stack([m, -m], dim=1)",
            A::build(&[2, 2, 5], |i| {
                if i[1] == 0 {
                    m.at(&[i[0], i[2]])
                } else {
                    -m.at(&[i[0], i[2]])
                }
            }),
        ),
        (
            "y = m.expand(3, 2, 5)",
            A::build(&[3, 2, 5], |i| m.at(&[i[1], i[2]])),
        ),
        ("y = m[:, :x.shape[1]]", A::build(&[2, 3], |i| m.at(i))),
        ("y = m[:, :m.size(-1) // 2]", A::build(&[2, 2], |i| m.at(i))),
    ];
    for (spec, want) in cases {
        check(spec, t, &want);
    }
}

#[test]
fn chunk_destructuring_and_glu() {
    let m = A::input("m", &[2, 6]);
    let t: &[(&str, &[usize])] = &[("m", &[2, 6])];
    let r = run("a, b = m.chunk(2, dim=-1); c = a * torch.sigmoid(b)", t);
    assert_eq!(names(&r), ["a", "b", "c"]);
    assert_close("a", &r.output(0), &A::build(&[2, 3], |i| m.at(i)));
    assert_close(
        "b",
        &r.output(1),
        &A::build(&[2, 3], |i| m.at(&[i[0], i[1] + 3])),
    );
    let glu = A::build(&[2, 3], |i| m.at(i) * sigmoid(m.at(&[i[0], i[1] + 3])));
    assert_close("c", &r.output(2), &glu);
    check("y = F.glu(m)", t, &glu);
    check(
        "y = F.silu(m[:, :3]) * m[:, 3:]",
        t,
        &A::build(&[2, 3], |i| {
            let a = m.at(i);
            a * sigmoid(a) * m.at(&[i[0], i[1] + 3])
        }),
    );
}

#[test]
fn creation_ops() {
    let t: &[(&str, &[usize])] = &[("x", &[2, 3])];
    check(
        "y = torch.zeros(N)",
        t,
        &A {
            shape: vec![4],
            d: vec![0.0; 4],
        },
    );
    check(
        "y = torch.ones(2, 3)",
        t,
        &A {
            shape: vec![2, 3],
            d: vec![1.0; 6],
        },
    );
    check(
        "y = torch.ones((3,))",
        t,
        &A {
            shape: vec![3],
            d: vec![1.0; 3],
        },
    );
    check(
        "y = torch.full((2, 2), 0.5)",
        t,
        &A {
            shape: vec![2, 2],
            d: vec![0.5; 4],
        },
    );
    check(
        "y = torch.zeros_like(x)",
        t,
        &A {
            shape: vec![2, 3],
            d: vec![0.0; 6],
        },
    );
    check(
        "y = torch.ones_like(x) * 2",
        t,
        &A {
            shape: vec![2, 3],
            d: vec![2.0; 6],
        },
    );
    check(
        "y = torch.full_like(x, eps)",
        t,
        &A {
            shape: vec![2, 3],
            d: vec![1e-3; 6],
        },
    );
    check(
        "y = torch.zeros(2, 3, dtype=torch.float64)",
        t,
        &A {
            shape: vec![2, 3],
            d: vec![0.0; 6],
        },
    );
}

// ---- programs: outputs, temporaries, statements --------------------------------------

#[test]
fn outputs_are_assigned_names_except_underscored_temporaries() {
    let x = A::input("x", &[3]);
    let r = run(
        "_h = x * 2; y = _h + 1\n# a comment\nz = y * y\n",
        &[("x", &[3])],
    );
    assert_eq!(names(&r), ["y", "z"]);
    assert_close("y", &r.output(0), &x.map(|v| 2.0 * v + 1.0));
    assert_close("z", &r.output(1), &x.map(|v| (2.0 * v + 1.0).powi(2)));
    // Rebinding keeps the first position and the last value.
    let r = run("y = x; z = -y; y = y + 1", &[("x", &[3])]);
    assert_eq!(names(&r), ["y", "z"]);
    assert_close("y", &r.output(0), &x.map(|v| v + 1.0));
    assert_eq!(torch::parse("a, _ = x.chunk(2)").unwrap().outputs, ["a"]);
    // Targets in parentheses: the spec's first character is an operator (the lexer's
    // look-ahead must start at column 1).
    assert_eq!(
        torch::parse("(a, b) = x.chunk(2)").unwrap().outputs,
        ["a", "b"]
    );
    // A number assigned to an output is a 0-d tensor.
    let r = run("y = 3", &[]);
    assert_eq!(r.out[0].shape, Vec::<usize>::new());
    // Input elements are exactly `terms.input(name, index)`, params `terms.param`.
    let mut r = run("y = x + eps", &[("x", &[3])]);
    let x1 = r.terms.input("x", &[1]);
    let eps = r.terms.param("eps");
    let want = r.terms.add(x1, eps);
    assert_eq!(r.out[0].elems[1], want);
}

// ---- errors ------------------------------------------------------------------------------

#[test]
fn error_messages_name_the_op_the_argument_and_the_shapes() {
    let t: &[(&str, &[usize])] = &[("x", &[2, 3]), ("y", &[4]), ("a", &[2, 3]), ("b", &[4, 5])];
    let cases: &[(&str, usize, &[&str])] = &[
        ("y = torch.foo(x)", 11, &["unknown function `torch.foo`", "softmax", "layer_norm"]),
        ("z = x.frobnicate()", 17, &["unknown method `.frobnicate`", "supported ops"]),
        ("z = F.nll_loss(x, x)", 15, &["nll_loss: expects input [N, C] and target [N] (class indices)"]),
        ("z = torch.softmax(x, -1, None, 3)", 18, &["softmax: takes at most 3 positional arguments (4 given)"]),
        ("z = torch.softmax(x, dimm=-1)", 18, &["softmax: unexpected keyword argument `dimm`", "input, dim, dtype"]),
        ("z = torch.softmax(x)", 18, &["softmax: missing required argument `dim`"]),
        ("z = torch.softmax(x, dim=-1, dim=0)", 18, &["softmax: got multiple values for argument `dim`"]),
        ("z = x + y", 7, &["add: shapes [2, 3] and [4] cannot be broadcast together"]),
        ("z = torch.maximum(x, y)", 18, &["maximum: shapes [2, 3] and [4]"]),
        ("z = torch.where(x > 0, x, y)", 16, &["where: shapes [2, 3], [2, 3] and [4]"]),
        ("c = a @ b", 7, &["shapes [2, 3] and [4, 5] cannot be multiplied (3 != 4)"]),
        ("c = torch.mm(a, y)", 13, &["mm: expects two 2-D tensors, got shapes [2, 3] and [4]"]),
        ("z = torch.sum(x, dim=3)", 14, &["sum: dimension 3 is out of range", "[2, 3]"]),
        ("z = torch.softmax(x, dim=-3)", 18, &["softmax: dimension -3 is out of range"]),
        ("z = torch.cat([x, b], dim=0)", 14, &["cat: tensors must have the same shape except in dimension 0, got [2, 3] and [4, 5]"]),
        ("z = F.layer_norm(x, (4,))", 17, &["layer_norm: normalized_shape [4] does not match the trailing dims of input shape [2, 3]"]),
        ("z = F.layer_norm(x, (3,), y)", 17, &["layer_norm: weight has shape [4] but normalized_shape is [3]"]),
        ("z = x.reshape(4, -1)", 14, &["reshape: shape [4, -1] is invalid for input of shape [2, 3]"]),
        ("z = x ** y", 7, &["the exponent must be a constant"]),
        ("z = F.gelu(x, approximate='fast')", 11, &["gelu: argument `approximate` must be 'none' or 'tanh'"]),
        ("z = torch.softmax(x, dim='a')", 18, &["softmax: argument `dim` must be an int, got the string 'a'"]),
        ("z = torch.exp(q)", 15, &["unknown name `q`", "tensors a, b, x, y", "scalars alpha, eps, half", "sizes N"]),
        ("z = x.max(dim=-1)", 1, &["write `.values`"]),
        ("z = x.max(dim=-1).indices", 19, &["`.indices` of max/min is not supported"]),
        ("z = x[0, 0, 0]", 6, &["too many indices for a tensor of shape [2, 3]: 3"]),
        ("z = x[5]", 6, &["index 5 is out of bounds for dimension 0 with size 2"]),
        ("a, b = x.chunk(3, -1)", 15, &["cannot destructure a tuple of 3 elements into 2 names"]),
    ];
    for (spec, col, parts) in cases {
        let e = match try_run(spec, t, &[("N", 4)], FloatType::F32) {
            Ok(_) => panic!("{spec}: no error"),
            Err(e) => e,
        };
        for p in *parts {
            assert!(e.message.contains(p), "{spec}: `{}` lacks `{p}`", e.message);
        }
        assert_eq!(e.col, *col, "{spec}: {e}");
        assert!(e.to_string().starts_with(&format!("col {col}: ")));
    }
}

#[test]
fn chunk_of_odd_split_error_is_about_count() {
    // x.chunk(3) on a dim of size 2 gives 2 chunks, as in PyTorch.
    let r = run("a, b = x.chunk(3)", &[("x", &[2, 3])]);
    assert_eq!(r.out[0].shape, [1, 3]);
}

#[test]
fn parse_errors_have_columns() {
    let cases: &[(&str, usize, &str)] = &[
        (
            "y = torch.exp(x",
            16,
            "expected `)`, found the end of the spec",
        ),
        ("y = ", 5, "expected an expression"),
        ("y = x $ 2", 7, "unexpected character `$`"),
        ("y x", 3, "expected `=`"),
        ("torch.exp(x)", 6, "expected `=`"),
        ("3 = x", 1, "expected an output name"),
        ("= x", 1, "expected an output name"),
        ("y = x y", 7, "expected `;` or a newline"),
        (
            "y = f(a=1, b)",
            12,
            "positional argument follows keyword argument",
        ),
        ("y = 'abc", 5, "unterminated string"),
        ("y = 1e", 5, "exponent without digits"),
        ("y = a < b < c", 11, "chained comparisons"),
        ("_t = x", 1, "assigns no output"),
        ("", 1, "assigns no output"),
    ];
    for (spec, col, msg) in cases {
        let e = torch::parse(spec)
            .err()
            .unwrap_or_else(|| panic!("{spec}: parsed"));
        assert!(e.message.contains(msg), "{spec}: {e}");
        assert_eq!(e.col, *col, "{spec}: {e}");
    }
}

#[test]
fn supported_ops_all_resolve() {
    let ops = SpecProgram::supported_ops();
    assert!(ops.len() > 80);
    for op in ops {
        // A call with no arguments reaches the op (and fails on its arguments), never
        // "unknown function".
        let spec = format!("y = torch.{op}()");
        match try_run(&spec, &[("x", &[2])], &[], FloatType::F32) {
            Ok(_) => {}
            Err(e) => assert!(!e.message.contains("unknown"), "{spec}: {e}"),
        }
    }
}

#[test]
fn no_panics_on_odd_inputs() {
    let t: &[(&str, &[usize])] = &[("x", &[2, 3]), ("e", &[0]), ("s", &[])];
    for spec in [
        "y = torch.sum(e)",
        "y = torch.amax(e, 0)",
        "y = torch.mean(e)",
        "y = s.sum(0)",
        "y = torch.softmax(s, 0)",
        "y = s.T",
        "y = torch.cat([e, e])",
        "y = x[:, 5:]",
        "y = x[:, 2:1]",
        "y = x.chunk(5, -1)[2]",
        "y = x.reshape(-1, -1)",
        "y = x.permute(0, 0)",
        "y = x.transpose(0, 7)",
        "y = torch.zeros(-1)",
        "y = 9223372036854775807 + 1",
        "y = (-9223372036854775807 - 1) // -1",
        "y = 2 ** 100",
        "y = x ** 4294967296",
        "y = x[::0]",
        "y = x.unsqueeze(5)",
        "y = x.squeeze(4)",
        "y = 1e999999",
        "y = torch.exp",
        "y = x(1)",
        "y = torch.nn",
        "y = torch.stack([])",
        "y = torch.flatten(x, 1, 0)",
        "y = x.expand(1)",
        "y = x.split(0)",
        "y = x @ s",
        "y = torch.bmm(x, x)",
        "y = F.linear(x, s)",
        "y = 1 // 0",
        "y = x.size(5)",
        "y = torch.argmax(e)",
        "y = torch.argmin(e, 0)",
        "y = torch.argmax(s, 0)",
        "y = torch.cumsum(e, 0)",
        "y = torch.cumprod(s, 0)",
        "y = torch.flip(e, [0])",
        "y = torch.diag(e)",
        "y = torch.diag(x, -9223372036854775807)",
        "y = torch.diag(s, 9223372036854775807)",
        "y = torch.tril(e)",
        "y = torch.norm(e)",
        "y = torch.linalg.vector_norm(s, ord=math.inf)",
        "y = F.max_pool1d(x, 0)",
        "y = F.max_pool1d(x, 9223372036854775807)",
        "y = F.max_pool1d(x, 2, dilation=4611686018427387904)",
        "y = F.avg_pool1d(x, 1, -1)",
        "y = F.avg_pool2d(x, 1)",
        "y = F.avg_pool2d(x.unsqueeze(0), 1, divisor_override=0)",
        "y = F.max_pool2d(e, 1)",
        "y = F.conv1d(x, e)",
        "y = F.conv1d(x, x.unsqueeze(0), groups=0)",
        "y = F.conv1d(x, x.unsqueeze(0), stride=-1)",
        "y = F.conv2d(x.unsqueeze(0), x.unsqueeze(0).unsqueeze(0), padding='same', stride=2)",
        "y = F.mse_loss(x, e)",
        "y = F.kl_div(s, s, reduction='batchmean')",
        "y = F.cosine_similarity(s, s)",
        "y = F.triplet_margin_loss(s, s, s)",
        "y = F.smooth_l1_loss(x, x, beta=eps)",
        "y = math.sqrt(x)",
        "y = math.pi()",
    ] {
        let _ = try_run(spec, t, &[], FloatType::F32);
    }
}

// ---- constants and printing --------------------------------------------------------------

fn q(s: &str) -> BigRational {
    let (n, d) = s.split_once('/').unwrap_or((s, "1"));
    BigRational::new(n.parse().unwrap(), d.parse().unwrap())
}

#[test]
fn decimal_constants_round_to_the_float_type() {
    let tenth = q("1/10");
    assert_eq!(FloatType::F64.round(&tenth), 0.1);
    assert_eq!(FloatType::F32.round(&tenth), 0.1f32 as f64);
    assert_eq!(FloatType::F16.round(&tenth), 0.0999755859375);
    assert_eq!(FloatType::BF16.round(&tenth), 0.10009765625);
    assert_eq!(FloatType::F16.round(&q("65504")), 65504.0);
    assert_eq!(FloatType::F16.round(&q("70000")), f64::INFINITY);
    assert_eq!(FloatType::F16.round(&q("-70000")), f64::NEG_INFINITY);
    // Ties to even.
    assert_eq!(FloatType::F16.round(&q("2049")), 2048.0);
    assert_eq!(FloatType::F16.round(&q("2051")), 2052.0);
    // Subnormals.
    let tiny = 2f64.powi(-24);
    assert_eq!(
        FloatType::F16.round(&BigRational::from_float(tiny).unwrap()),
        tiny
    );
    assert_eq!(
        FloatType::F16.round(&BigRational::from_float(tiny / 2.0).unwrap()),
        0.0
    );
    assert_eq!(
        FloatType::F16.round(&BigRational::from_float(tiny * 0.75).unwrap()),
        tiny
    );
    assert_eq!(
        FloatType::F32.round(&BigRational::from_float(1e-45).unwrap()),
        1e-45f32 as f64
    );
    // The largest finite f16 is 65504; 65519 rounds to it, 65520 (the halfway point to
    // 65536) rounds to even, beyond the range: inf (IEEE round to nearest).
    let r = |v: f64| FloatType::F16.round(&BigRational::from_float(v).unwrap());
    assert_eq!(r(65504.0), 65504.0);
    assert_eq!(r(65519.0), 65504.0);
    assert_eq!(r(65520.0), f64::INFINITY);
    assert_eq!(r(-65520.0), f64::NEG_INFINITY);
    assert_eq!(FloatType::F32.epsilon(), f32::EPSILON as f64);
    assert_eq!(FloatType::F64.epsilon(), f64::EPSILON);

    // In a spec: `0.1 * x` multiplies by the f32 nearest to 0.1 (exactly).
    for (float, v) in [
        (FloatType::F32, 0.1f32 as f64),
        (FloatType::F64, 0.1),
        (FloatType::BF16, 0.10009765625),
    ] {
        let mut r = try_run("y = 0.1 * x", &[("x", &[1])], &[], float).unwrap();
        let x0 = r.terms.input("x", &[0]);
        let c = r.terms.float(v);
        let want = r.terms.mul(c, x0);
        assert_eq!(r.out[0].elems[0], want, "{float:?}");
    }
    // Integers stay exact.
    let mut r = try_run("y = 16777217 * x", &[("x", &[1])], &[], FloatType::F32).unwrap();
    let x0 = r.terms.input("x", &[0]);
    let c = r.terms.int(16777217);
    assert_eq!(r.out[0].elems[0], r.terms.mul(c, x0));
}

fn show(spec: &str, tensors: &[(&str, &[usize])]) -> Vec<String> {
    let r = try_run(spec, tensors, &[], FloatType::F32).unwrap();
    r.out
        .iter()
        .flat_map(|o| o.elems.iter().map(|&e| r.terms.display(e).to_string()))
        .collect()
}

#[test]
fn printed_terms_of_tiny_specs() {
    // softmax on a 1x2 x: exp(x - max) / sum(exp(x - max)), one max shared by the row.
    assert_eq!(
        show("y = torch.softmax(x, dim=-1)", &[("x", &[1, 2])]),
        [
            "exp(x[0,0] - max(x[0,0], x[0,1])) / (exp(x[0,0] - max(x[0,0], x[0,1])) + exp(x[0,1] - max(x[0,0], x[0,1])))",
            "exp(x[0,1] - max(x[0,0], x[0,1])) / (exp(x[0,0] - max(x[0,0], x[0,1])) + exp(x[0,1] - max(x[0,0], x[0,1])))",
        ]
    );
    // tanh-gelu with its constants rounded to f32.
    assert_eq!(
        show("y = F.gelu(x, approximate='tanh')", &[("x", &[1])]),
        ["0.5 * x[0] * (tanh(0.7978846f32 * (x[0] + 0.044715f32 * x[0]^3)) + 1)"]
    );
    assert_eq!(
        show(
            "y = torch.sum(x, dim=1); z = torch.relu(x) + x.mean(-1, keepdim=True)",
            &[("x", &[1, 2])]
        ),
        [
            "x[0,0] + x[0,1]",
            "max(x[0,0], 0) + 0.5 * (x[0,0] + x[0,1])",
            "max(x[0,1], 0) + 0.5 * (x[0,0] + x[0,1])",
        ]
    );
    assert_eq!(
        show("y = F.leaky_relu(x)", &[("x", &[1])]),
        ["select(x[0] > 0, x[0], 0.01f32 * x[0])"]
    );
}

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
