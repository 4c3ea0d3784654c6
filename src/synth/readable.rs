//! Readable forms of a proved formula: `c · sum` as `mean` ([`meanify`]), and the
//! textbook shapes of [`tidy`].
//!
//! Invariant: each rewrite is an identity at every instance (a mean's `1/n` is its
//! axis' extent); the caller proves the rewritten formula again.

use crate::formula::window::WindowOp;
use crate::formula::{BinaryOp, Formula, ReduceOp, ShapeEnv, UnaryOp};
use num_traits::{One, Zero};

/// `c · sum(a, axis)` with `c = ±1/n`, `n` the extent of the summed axis, is
/// `±mean(a, axis)`; so is `sum(a, axis) / n`. (Size-generic: the constant of one
/// instance becomes the mean at every instance, and the proof at another instance
/// decides whether that is what the kernel computes.)
pub fn meanify(f: Formula, env: &ShapeEnv) -> Formula {
    use Formula as F;
    let f = match f {
        F::Binary(op, a, b) => F::binary(op, meanify(*a, env), meanify(*b, env)),
        F::Unary(op, a) => F::unary(op, meanify(*a, env)),
        F::Powi(a, k) => meanify(*a, env).powi(k),
        F::Cmp(op, a, b) => F::cmp(op, meanify(*a, env), meanify(*b, env)),
        F::Select(c, a, b) => F::select(meanify(*c, env), meanify(*a, env), meanify(*b, env)),
        F::Reduce {
            op,
            axis,
            keepdim,
            arg,
        } => F::reduce(op, meanify(*arg, env), axis, keepdim),
        F::MatMul(a, b) => meanify(*a, env).matmul(meanify(*b, env)),
        F::Transpose(a) => meanify(*a, env).t(),
        F::Cat { axis, args } => F::cat(args.into_iter().map(|a| meanify(a, env)).collect(), axis),
        F::Slice {
            arg,
            axis,
            start,
            end,
        } => meanify(*arg, env).slice(axis, start, end),
        F::Broadcast { arg, shape } => meanify(*arg, env).broadcast_to(shape),
        F::Reshape { arg, shape } => meanify(*arg, env).reshape(shape),
        F::Unsqueeze { arg, axis } => meanify(*arg, env).unsqueeze(axis),
        f => f,
    };
    // The extent of the summed axis of `sum`, if `f` is one.
    let summed = |f: &Formula| -> Option<i64> {
        match f {
            F::Reduce {
                op: ReduceOp::Sum,
                axis,
                arg,
                ..
            } => arg.shape(env).ok()?.get(*axis).map(|&n| n as i64),
            _ => None,
        }
    };
    let as_mean = |f: Formula| match f {
        F::Reduce {
            axis, keepdim, arg, ..
        } => F::reduce(ReduceOp::Mean, *arg, axis, keepdim),
        f => f,
    };
    let ratio = |c: &num_rational::BigRational, n: i64| {
        c * num_rational::BigRational::from_integer(n.into())
    };
    // `c · sum(x)^k` with `c · n^k = ±1`: `±mean(x)^k` (a variance's `E[x]²` written as
    // `sum(x)² / H²`, the kernel's `1/H` folded at the instance).
    let power_of_sum = |c: &num_rational::BigRational, p: &Formula| -> Option<Formula> {
        let F::Powi(s, k) = p else { return None };
        let n = summed(s)?;
        let k = u32::try_from(*k).ok().filter(|&k| k >= 1)?;
        let scaled =
            c * num_rational::BigRational::from_integer(num_bigint::BigInt::from(n).pow(k));
        let m = as_mean((**s).clone()).powi(k as i32);
        if scaled.is_one() {
            Some(m)
        } else if (-scaled).is_one() {
            Some(F::unary(UnaryOp::Neg, m))
        } else {
            None
        }
    };
    match f {
        F::Binary(BinaryOp::Mul, a, b) => {
            let (c, s) = match (*a, *b) {
                (F::Const(c), s) | (s, F::Const(c)) if summed(&s).is_some() => (c, s),
                (F::Const(c), p) | (p, F::Const(c)) if power_of_sum(&c, &p).is_some() => {
                    return power_of_sum(&c, &p).expect("checked")
                }
                (a, b) => return F::binary(BinaryOp::Mul, a, b),
            };
            let n = summed(&s).unwrap_or(1);
            let k = ratio(&c, n);
            if k.is_one() {
                as_mean(s)
            } else if (-k).is_one() {
                F::unary(UnaryOp::Neg, as_mean(s))
            } else {
                F::binary(BinaryOp::Mul, F::Const(c), s)
            }
        }
        F::Binary(BinaryOp::Div, a, b) => match (*a, *b) {
            (s, F::Const(c))
                if summed(&s)
                    .is_some_and(|n| c == num_rational::BigRational::from_integer(n.into())) =>
            {
                as_mean(s)
            }
            (a, b) => F::binary(BinaryOp::Div, a, b),
        },
        f => f,
    }
}

/// Whether the summand `a` reads better after `b`: a scalar (`eps`), or an input that
/// `b` does not use (a bias), beside a compound `b`.
fn trails(a: &Formula, b: &Formula) -> bool {
    let compound = !matches!(
        b,
        Formula::Input(_) | Formula::Scalar(_) | Formula::Const(_)
    );
    compound
        && match a {
            Formula::Scalar(_) => true,
            Formula::Input(n) => !b.free_names().0.contains(n),
            _ => false,
        }
}

/// Readability rewrites that keep the instantiated terms: `-1 * a → -a`,
/// `a + -b → a - b`, `a * b^-1 → a / b`, `b^-1 → 1 / b`, a leaf summand last
/// (`v + eps`), and `1 / sqrt(a)` standing alone → `rsqrt(a)`.
pub fn tidy(f: Formula) -> Formula {
    use Formula as F;
    match f {
        F::Binary(op, a, b) => {
            let a = tidy(*a);
            let b = tidy(*b);
            match (op, a, b) {
                (BinaryOp::Mul, a, b) if is_const(&a, -1) => F::unary(UnaryOp::Neg, b),
                (BinaryOp::Mul, a, b) if is_const(&b, -1) => F::unary(UnaryOp::Neg, a),
                (BinaryOp::Add, a, F::Unary(UnaryOp::Neg, b)) => F::binary(BinaryOp::Sub, a, *b),
                (BinaryOp::Add, F::Unary(UnaryOp::Neg, a), b) => F::binary(BinaryOp::Sub, b, *a),
                // `a + -b * c` → `a - b * c` (rotary's `x0·c − x1·s`).
                (BinaryOp::Add, a, b) if negated(&b).is_some() => {
                    F::binary(BinaryOp::Sub, a, negated(&b).expect("checked"))
                }
                (BinaryOp::Mul, a, F::Binary(BinaryOp::Div, one, b)) if is_one(&one) => {
                    F::binary(BinaryOp::Div, a, *b)
                }
                (BinaryOp::Mul, F::Binary(BinaryOp::Div, one, a), b) if is_one(&one) => {
                    F::binary(BinaryOp::Div, b, *a)
                }
                // A convolution plus its bias broadcast over the spatial axes
                // (`conv1d(x, w) + b[:, None]`): PyTorch's `conv1d(x, w, b)`.
                (
                    BinaryOp::Add,
                    F::Window {
                        op: WindowOp::Conv,
                        args,
                        geometry,
                    },
                    c,
                )
                | (
                    BinaryOp::Add,
                    c,
                    F::Window {
                        op: WindowOp::Conv,
                        args,
                        geometry,
                    },
                ) if args.len() == 2 && conv_bias(&c, geometry.nd()).is_some() => {
                    let mut args = args;
                    args.push(conv_bias(&c, geometry.nd()).expect("checked"));
                    F::window(WindowOp::Conv, args, geometry)
                }
                // `eps + v` → `v + eps`, `b + (..)` → `(..) + b` (a bias: an input the
                // other summand does not use); `1 + t` and `x + c * x^3` stay.
                (BinaryOp::Add, a, b) if trails(&a, &b) => F::binary(BinaryOp::Add, b, a),
                // `max(x, 0)`: the constant last, as people write relu.
                (
                    op @ (BinaryOp::Max | BinaryOp::Min | BinaryOp::FMax | BinaryOp::FMin),
                    a @ F::Const(_),
                    b,
                ) if !matches!(b, F::Const(_)) => F::binary(op, b, a),
                (op, a, b) => F::binary(op, a, b),
            }
        }
        F::Powi(a, -1) => match tidy(*a) {
            F::Unary(UnaryOp::Sqrt, a) => F::Unary(UnaryOp::Rsqrt, a),
            a => F::binary(BinaryOp::Div, F::int(1), a),
        },
        F::Powi(a, k) => F::Powi(Box::new(tidy(*a)), k),
        // `exp2(log2(e) * a)` → `exp(a)`: how compilers write `exp` (the decider reads
        // the rounded `log2(e)` as the real one; the tidied formula is proved again).
        F::Unary(UnaryOp::Exp2, a) => exp2_as_exp(tidy(*a)),
        F::Unary(op, a) => F::unary(op, tidy(*a)),
        F::Cmp(op, a, b) => F::cmp(op, tidy(*a), tidy(*b)),
        F::Select(c, a, b) => F::select(tidy(*c), tidy(*a), tidy(*b)),
        F::Reduce {
            op,
            axis,
            keepdim,
            arg,
        } => F::reduce(op, tidy(*arg), axis, keepdim),
        // `(c * a) @ b` and `a @ (c * b)` → `c * (a @ b)` for a scalar `c`: the scale
        // outside, as in `scale * (q @ k.T)`.
        F::MatMul(a, b) => {
            let (a, b) = (tidy(*a), tidy(*b));
            match (a, b) {
                (F::Binary(BinaryOp::Mul, c, a), b) if is_scalar(&c) => {
                    F::binary(BinaryOp::Mul, *c, F::MatMul(a, Box::new(b)))
                }
                (a, F::Binary(BinaryOp::Mul, c, b)) if is_scalar(&c) => {
                    F::binary(BinaryOp::Mul, *c, F::MatMul(Box::new(a), b))
                }
                (a, b) => F::MatMul(Box::new(a), Box::new(b)),
            }
        }
        F::Transpose(a) => F::Transpose(Box::new(tidy(*a))),
        F::Cat { axis, args } => F::cat(args.into_iter().map(tidy).collect(), axis),
        F::Slice {
            arg,
            axis,
            start,
            end,
        } => tidy(*arg).slice(axis, start, end),
        F::Broadcast { arg, shape } => tidy(*arg).broadcast_to(shape),
        F::Reshape { arg, shape } => tidy(*arg).reshape(shape),
        F::Unsqueeze { arg, axis } => tidy(*arg).unsqueeze(axis),
        f => f,
    }
}

/// `exp2(a)` written as `exp`: `exp2(c·a)` is `exp(q·a)` where `c` is `q·log2(e)`; so is
/// the max-shifted `exp2(c·a − max(c·a))` = `exp(q·a − max(q·a))` when `q > 0` (a
/// positive factor passes through a max: `max(c·a) = c·max(a)`), the base-2 softmax
/// numerator of attention kernels. Anything else stays `exp2(a)`.
fn exp2_as_exp(a: Formula) -> Formula {
    use Formula as F;
    if let Some(x) = times_log2_e(&a).and_then(|(q, rest)| scaled(q, rest)) {
        return F::unary(UnaryOp::Exp, x);
    }
    if let F::Binary(BinaryOp::Sub, x, m) = &a {
        if let F::Reduce {
            op: ReduceOp::Max,
            axis,
            keepdim,
            arg,
        } = m.as_ref()
        {
            let positive = times_log2_e(x).filter(|(q, _)| *q > 0.0);
            if let (true, Some((q, rest))) = (arg == x, positive) {
                if let Some(x) = scaled(q, rest) {
                    let m = F::reduce(ReduceOp::Max, x.clone(), *axis, *keepdim);
                    return F::unary(UnaryOp::Exp, F::binary(BinaryOp::Sub, x, m));
                }
            }
        }
    }
    F::unary(UnaryOp::Exp2, a)
}

/// `(q, a)` where `f` is `c · a` (or `(c · s) · b`, then `a = s · b`) and the constant
/// `c` is `q · log2(e)`.
fn times_log2_e(f: &Formula) -> Option<(f64, Formula)> {
    use Formula as F;
    let F::Binary(BinaryOp::Mul, l, r) = f else {
        return None;
    };
    if let Some(q) = over_log2_e(l) {
        return Some((q, r.as_ref().clone()));
    }
    match l.as_ref() {
        F::Binary(BinaryOp::Mul, c, s) => {
            let q = over_log2_e(c)?;
            Some((
                q,
                F::binary(BinaryOp::Mul, s.as_ref().clone(), r.as_ref().clone()),
            ))
        }
        _ => None,
    }
}

/// `q · a`, with `1 · a` as `a` and `-1 · a` as `-a` (`None` for a `q` that is no
/// finite number).
fn scaled(q: f64, a: Formula) -> Option<Formula> {
    use Formula as F;
    Some(match q {
        1.0 => a,
        -1.0 => F::unary(UnaryOp::Neg, a),
        q => F::binary(
            BinaryOp::Mul,
            F::Const(num_rational::BigRational::from_float(q)?),
            a,
        ),
    })
}

/// `q` where the constant `f` is `q · log2(e)` up to rounding, with `q` an f32 (how a
/// compiler folds `exp(q·a)` into `exp2`). Only a guess: the tidied formula is proved.
fn over_log2_e(f: &Formula) -> Option<f64> {
    use num_traits::ToPrimitive;
    let Formula::Const(c) = f else {
        return None;
    };
    let c = c.to_f64()?;
    let q = (c / std::f64::consts::LOG2_E) as f32 as f64;
    (q != 0.0 && ((q * std::f64::consts::LOG2_E - c) / c).abs() < 1e-6).then_some(q)
}

/// A 0-d formula: a scalar parameter or a constant.
fn is_scalar(f: &Formula) -> bool {
    matches!(f, Formula::Scalar(_) | Formula::Const(_))
}

fn is_one(f: &Formula) -> bool {
    matches!(f, Formula::Const(c) if c.is_one())
}

#[allow(dead_code)]
fn is_zero(f: &Formula) -> bool {
    matches!(f, Formula::Const(c) if c.is_zero())
}

/// `g` where `f` is `-g` with its minus on a factor of a product (`-b * c`).
fn negated(f: &Formula) -> Option<Formula> {
    use Formula as F;
    match f {
        F::Binary(BinaryOp::Mul, a, b) => match (&**a, &**b) {
            (F::Unary(UnaryOp::Neg, a), b) => {
                Some(F::binary(BinaryOp::Mul, (**a).clone(), b.clone()))
            }
            (a, F::Unary(UnaryOp::Neg, b)) => {
                Some(F::binary(BinaryOp::Mul, a.clone(), (**b).clone()))
            }
            (a, b) => negated(a)
                .map(|a| F::binary(BinaryOp::Mul, a, b.clone()))
                .or_else(|| negated(b).map(|b| F::binary(BinaryOp::Mul, a.clone(), b))),
        },
        _ => None,
    }
}

fn is_const(f: &Formula, v: i64) -> bool {
    matches!(f, Formula::Const(c) if *c == num_rational::BigRational::from_integer(v.into()))
}

/// `b` where `f` is the input `b` with a unit axis after it for each of `nd` spatial
/// axes (`b[:, None]` for a 1-D convolution): a per-channel bias.
fn conv_bias(f: &Formula, nd: usize) -> Option<Formula> {
    let mut f = f;
    for k in (1..=nd).rev() {
        match f {
            Formula::Unsqueeze { arg, axis } if *axis == k => f = arg,
            _ => return None,
        }
    }
    matches!(f, Formula::Input(_)).then(|| f.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::Size;
    use num_rational::BigRational;

    /// The f32 nearest `c · log2(e)`, as a compiler folds it.
    fn times_log2e(c: f64) -> Formula {
        Formula::Const(BigRational::from_float((c * std::f64::consts::LOG2_E) as f32).unwrap())
    }

    fn shifted(x: Formula) -> Formula {
        let m = Formula::reduce(ReduceOp::Max, x.clone(), 1, true);
        Formula::unary(UnaryOp::Exp2, Formula::binary(BinaryOp::Sub, x, m))
    }

    /// `a + (-1·b)·c` (a product with its minus on the first factor, as an n-ary
    /// product of terms is built pairwise) reads `a - b·c`, also inside a reshape.
    #[test]
    fn a_negated_product_reads_as_a_subtraction() {
        let (a, b, c) = (
            Formula::input("a"),
            Formula::input("b"),
            Formula::input("c"),
        );
        let minus_one = Formula::Const(BigRational::from_integer((-1).into()));
        let bc = Formula::binary(
            BinaryOp::Mul,
            Formula::binary(BinaryOp::Mul, minus_one, b.clone()),
            c.clone(),
        );
        let f = Formula::binary(BinaryOp::Add, a.clone(), bc).reshape(vec![Size::Int(4)]);
        let want = Formula::binary(BinaryOp::Sub, a, Formula::binary(BinaryOp::Mul, b, c));
        assert_eq!(tidy(f), want.reshape(vec![Size::Int(4)]));
    }

    #[test]
    fn a_base_2_softmax_numerator_reads_as_exp() {
        let qk = Formula::input("s");
        let scale = Formula::scalar("scale");
        // exp2(log2e·scale·s − max(log2e·scale·s)) = exp(scale·s − max(scale·s))
        let c_scale = Formula::binary(BinaryOp::Mul, times_log2e(1.0), scale.clone());
        let f = shifted(Formula::binary(BinaryOp::Mul, c_scale, qk.clone()));
        let x = Formula::binary(BinaryOp::Mul, scale, qk.clone());
        let m = Formula::reduce(ReduceOp::Max, x.clone(), 1, true);
        let want = Formula::unary(UnaryOp::Exp, Formula::binary(BinaryOp::Sub, x, m));
        assert_eq!(tidy(f), want);
        // Twice log2(e): exp(2·s − max(2·s)).
        let f = shifted(Formula::binary(BinaryOp::Mul, times_log2e(2.0), qk.clone()));
        let x = Formula::binary(BinaryOp::Mul, Formula::int(2), qk);
        let m = Formula::reduce(ReduceOp::Max, x.clone(), 1, true);
        assert_eq!(
            tidy(f),
            Formula::unary(UnaryOp::Exp, Formula::binary(BinaryOp::Sub, x, m))
        );
    }

    #[test]
    fn a_negative_factor_or_another_max_stays_base_2() {
        let s = Formula::input("s");
        // max(−c·s) is −c·min(s): no max-shifted exp of −s.
        let neg = shifted(Formula::binary(BinaryOp::Mul, times_log2e(-1.0), s.clone()));
        assert_eq!(tidy(neg.clone()), neg);
        // The max of another tensor is no shift of this one.
        let x = Formula::binary(BinaryOp::Mul, times_log2e(1.0), s);
        let m = Formula::reduce(ReduceOp::Max, Formula::input("t"), 1, true);
        let other = Formula::unary(UnaryOp::Exp2, Formula::binary(BinaryOp::Sub, x, m));
        assert_eq!(tidy(other.clone()), other);
    }
}
