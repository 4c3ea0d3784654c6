//! `--precision ieee`'s roundings: `Func::RoundF16`/`RoundBf16`/`RoundTf32` evaluate to
//! IEEE round-to-nearest-even (subnormals, ties, overflow to inf), checked against a
//! bit-level reference on f32 inputs; and `decide` treats them as opaque: it never
//! proves `round(x) = x`, and refutes it where the rounding shows.

use lift::decide::{decide, Options, Verdict};
use lift::term::{eval_func, Func, Terms};

/// f32 → f16 bits, round to nearest even, by integer operations only.
fn f16_bits(x: f32) -> u16 {
    let u = x.to_bits();
    let sign = ((u >> 16) & 0x8000) as u16;
    let exp = ((u >> 23) & 0xff) as i32;
    let man = u & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    let (mut r, rem, half) = if e <= 0 {
        if e < -10 {
            return sign;
        }
        // Subnormal: units of 2^-24.
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        (m >> shift, m & ((1 << shift) - 1), 1u32 << (shift - 1))
    } else {
        (((e as u32) << 10) | (man >> 13), man & 0x1fff, 0x1000)
    };
    if rem > half || (rem == half && r & 1 == 1) {
        r += 1; // a carry into the exponent is right, up to inf (0x7c00)
    }
    sign | r as u16
}

fn f16_value(b: u16) -> f64 {
    let sign = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((b >> 10) & 0x1f) as i32;
    let man = (b & 0x3ff) as f64;
    match exp {
        0 => sign * man * 2f64.powi(-24),
        0x1f if man == 0.0 => sign * f64::INFINITY,
        0x1f => f64::NAN,
        _ => sign * (1.0 + man / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// f32 with its low `drop` mantissa bits rounded off (to nearest even): bf16 (16),
/// tf32 (13). A carry into the exponent field is right, up to inf.
fn f32_rounded(x: f32, drop: u32) -> f64 {
    let u = x.to_bits();
    let lsb = (u >> drop) & 1;
    let r = (u as u64 + ((1u64 << (drop - 1)) - 1) + lsb as u64) & !((1u64 << drop) - 1);
    f32::from_bits(r as u32) as f64
}

/// Deterministic f32s: random bit patterns (every exponent), and values near the
/// formats' boundaries.
fn samples() -> Vec<f32> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut v = Vec::new();
    for _ in 0..200_000 {
        let bits = next() as u32;
        let x = f32::from_bits(bits);
        if x.is_finite() {
            v.push(x);
        }
        // Exponents around f16's range (2^-26 .. 2^17) with random mantissas.
        let e = (next() % 44) as i32 - 26;
        let m = 1.0 + (next() & 0x7f_ffff) as f32 / 8_388_608.0;
        v.push(m * 2f32.powi(e) * if next() & 1 == 1 { -1.0 } else { 1.0 });
    }
    v
}

#[test]
fn round_f16_agrees_with_bit_level_reference() {
    for x in samples() {
        let want = f16_value(f16_bits(x));
        let got = eval_func(Func::RoundF16, x as f64);
        assert!(
            got == want && got.is_sign_negative() == want.is_sign_negative(),
            "round_f16({x:e}) = {got:e}, reference {want:e}"
        );
    }
}

#[test]
fn round_bf16_and_tf32_agree_with_bit_level_reference() {
    for x in samples() {
        for (f, drop) in [(Func::RoundBf16, 16), (Func::RoundTf32, 13)] {
            let want = f32_rounded(x, drop);
            let got = eval_func(f, x as f64);
            assert!(got == want, "{f:?}({x:e}) = {got:e}, reference {want:e}");
        }
    }
}

#[test]
fn round_f16_ties_subnormals_and_overflow() {
    let r = |x: f64| eval_func(Func::RoundF16, x);
    let ulp1 = 2f64.powi(-10);
    assert_eq!(r(1.0 + ulp1 / 2.0), 1.0, "tie to even (down)");
    assert_eq!(r(1.0 + 1.5 * ulp1), 1.0 + 2.0 * ulp1, "tie to even (up)");
    assert_eq!(r(65504.0), 65504.0);
    assert_eq!(r(65519.99), 65504.0, "below the overflow threshold");
    assert_eq!(
        r(65520.0),
        f64::INFINITY,
        "the tie at the threshold overflows"
    );
    assert_eq!(r(-1e6), f64::NEG_INFINITY);
    assert_eq!(r(2f64.powi(-25)), 0.0, "half the least subnormal ties to 0");
    assert_eq!(r(3.0 * 2f64.powi(-25)), 2f64.powi(-23));
    assert_eq!(r(0.1), 0.0999755859375);
    assert!(r(-1e-30).is_sign_negative() && r(-1e-30) == 0.0);
    assert!(r(f64::NAN).is_nan());
    // tf32 keeps f32's exponent range: no overflow at 65520.
    assert_eq!(eval_func(Func::RoundTf32, 65520.0), 65536.0);
    assert_eq!(eval_func(Func::RoundTf32, 1.0 + 2f64.powi(-11)), 1.0);
}

#[test]
fn decide_never_proves_a_rounding_away() {
    let mut t = Terms::new();
    let x = t.input("x", &[0]);
    let w = t.input("w", &[0]);
    let s = t.add(x, w);
    let r = t.call(Func::RoundF16, s);
    match decide(&t, r, s, &Options::default()) {
        Verdict::NotEqual(cex) => {
            // The counterexample shows the rounding: the kernel side is the rounded one.
            assert_eq!(cex.lhs, eval_func(Func::RoundF16, cex.rhs));
            assert_ne!(cex.lhs, cex.rhs);
        }
        v => panic!("round_f16(x + w) vs x + w: {v:?}"),
    }
    // Equal arguments round alike; round is odd: round(-(x+w)) = -round(x+w).
    let s2 = t.add(w, x);
    let r2 = t.call(Func::RoundF16, s2);
    assert!(matches!(
        decide(&t, r, r2, &Options::default()),
        Verdict::Equal { .. }
    ));
    let neg = t.neg(s);
    let rn = t.call(Func::RoundF16, neg);
    let nr = t.neg(r);
    assert!(matches!(
        decide(&t, rn, nr, &Options::default()),
        Verdict::Equal { .. }
    ));
    // Different formats are different functions.
    let rb = t.call(Func::RoundBf16, s);
    assert!(matches!(
        decide(&t, r, rb, &Options::default()),
        Verdict::NotEqual(_)
    ));
    // A constant that is an f64 folds exactly; idempotent.
    let c = t.float(0.1);
    let rc = t.call(Func::RoundF16, c);
    assert_eq!(
        t.as_const(rc)
            .map(|q| num_traits::ToPrimitive::to_f64(q).unwrap()),
        Some(0.0999755859375)
    );
    assert_eq!(t.call(Func::RoundF16, r), r);
}
