//! Elementwise ops and broadcasting.

use super::*;

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
