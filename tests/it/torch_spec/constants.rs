//! Decimal constants rounded to the float type, and printed terms of tiny specs.

use super::*;

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
