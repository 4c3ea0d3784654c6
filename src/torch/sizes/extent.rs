//! Size expressions as the all-sizes reading computes with them: `+ - * //` kept in a
//! canonical linear form where they are linear (so `H` and `2 * H - H` compare equal),
//! the `-1` extent of a reshape, broadcasting of symbolic shapes, and the few facts about
//! sizes the reading relies on (`at_least`, `within`), each true at every size (sizes
//! are at least 1) or answered `false`.

use crate::formula::Size;
use crate::launch::BinOp;
use std::collections::BTreeMap;

pub(super) fn int(v: i64) -> Size {
    Size::Int(v)
}

/// `a op b`, kept in a canonical linear form (`k·N + c`, names sorted) where both are
/// linear in the sizes, so equal extents (`H` and `2 * H - H`) compare equal.
pub(super) fn bin(op: BinOp, a: &Size, b: &Size) -> Size {
    let lin = match (op, linear(a), linear(b)) {
        (BinOp::Add, Some(x), Some(y)) => Some(combine(&x, &y, 1)),
        (BinOp::Sub, Some(x), Some(y)) => Some(combine(&x, &y, -1)),
        (BinOp::Mul, Some(x), Some(y)) if x.0.is_empty() => Some(scale(&y, x.1)),
        (BinOp::Mul, Some(x), Some(y)) if y.0.is_empty() => Some(scale(&x, y.1)),
        _ => None,
    };
    match lin.and_then(|l| from_linear(&l)) {
        Some(e) => e,
        None => Size::Bin(op, Box::new(a.clone()), Box::new(b.clone())),
    }
}

/// The `-1` extent of a reshape of `from` to `to` (where the `-1` stands as 1): the
/// product of `from` over that of `to`, with the extents both have cancelled first so
/// that `[B, 4·NT] → [B, -1, 4]` reads `4·NT // 4` (which the prover reduces to `NT`),
/// not a quotient of products.
pub(super) fn inferred_extent(from: &[Size], to: &[Size]) -> Size {
    let same = |a: &Size, b: &Size| a == b || linear(a).is_some_and(|x| linear(b) == Some(x));
    let mut rest: Vec<&Size> = from.iter().collect();
    let mut divisor = int(1);
    for t in to {
        match rest.iter().position(|r| same(r, t)) {
            Some(i) => {
                rest.remove(i);
            }
            None => divisor = bin(BinOp::Mul, &divisor, t),
        }
    }
    let total = rest.iter().fold(int(1), |acc, r| bin(BinOp::Mul, &acc, r));
    match divisor {
        Size::Int(1) => total,
        d => Size::Bin(BinOp::FloorDiv, Box::new(total), Box::new(d)),
    }
}

/// A size expression as `Σ k·name + c`, when it is one (no overflow).
type Linear = (BTreeMap<String, i64>, i64);

fn linear(e: &Size) -> Option<Linear> {
    match e {
        Size::Int(c) => Some((BTreeMap::new(), *c)),
        Size::Size(n) => Some((BTreeMap::from([(n.clone(), 1)]), 0)),
        Size::Neg(a) => Some(scale(&linear(a)?, -1)),
        Size::Bin(op, a, b) => {
            let (x, y) = (linear(a)?, linear(b)?);
            match op {
                BinOp::Add => Some(combine(&x, &y, 1)),
                BinOp::Sub => Some(combine(&x, &y, -1)),
                BinOp::Mul if x.0.is_empty() => Some(scale(&y, x.1)),
                BinOp::Mul if y.0.is_empty() => Some(scale(&x, y.1)),
                _ => None,
            }
        }
    }
}

fn combine(x: &Linear, y: &Linear, sign: i64) -> Linear {
    let mut out = x.clone();
    for (n, k) in &y.0 {
        *out.0.entry(n.clone()).or_insert(0) += sign * k;
    }
    out.0.retain(|_, k| *k != 0);
    out.1 += sign * y.1;
    out
}

fn scale(x: &Linear, k: i64) -> Linear {
    let mut out: Linear = (
        x.0.iter().map(|(n, c)| (n.clone(), c * k)).collect(),
        x.1 * k,
    );
    out.0.retain(|_, c| *c != 0);
    out
}

fn from_linear(l: &Linear) -> Option<Size> {
    let mut e: Option<Size> = None;
    for (n, &k) in &l.0 {
        let term = if k == 1 {
            Size::Size(n.clone())
        } else {
            Size::Bin(
                BinOp::Mul,
                Box::new(Size::Int(k)),
                Box::new(Size::Size(n.clone())),
            )
        };
        e = Some(match e {
            None => term,
            Some(acc) => Size::Bin(BinOp::Add, Box::new(acc), Box::new(term)),
        });
    }
    Some(match e {
        None => Size::Int(l.1),
        Some(acc) if l.1 == 0 => acc,
        Some(acc) if l.1 < 0 => Size::Bin(BinOp::Sub, Box::new(acc), Box::new(Size::Int(-l.1))),
        Some(acc) => Size::Bin(BinOp::Add, Box::new(acc), Box::new(Size::Int(l.1))),
    })
}

/// Whether `a >= b` at every size (sizes are at least 1), as far as a linear form or a
/// `min`/`max` split shows it (`false` when unsure).
pub(super) fn at_least(a: &Size, b: &Size) -> bool {
    if *b == int(0) && nonneg(a) {
        return true;
    }
    match (a, b) {
        (Size::Bin(BinOp::Min, x, y), _) => at_least(x, b) && at_least(y, b),
        (Size::Bin(BinOp::Max, x, y), _) => at_least(x, b) || at_least(y, b),
        (_, Size::Bin(BinOp::Max, x, y)) => at_least(a, x) && at_least(a, y),
        (_, Size::Bin(BinOp::Min, x, y)) => at_least(a, x) || at_least(a, y),
        _ => match (linear(a), linear(b)) {
            // `Σ k·S + c` with every `k >= 0` is least at every size 1.
            (Some(x), Some(y)) => {
                let (ks, c) = combine(&x, &y, -1);
                ks.values().all(|k| *k >= 0) && ks.values().sum::<i64>() + c >= 0
            }
            _ => a == b,
        },
    }
}

/// Whether `e >= 0` at every size by its form: sizes and non-negative constants combined
/// by `+`, `*`, `//`, `%`, `cdiv`, `min` and `max`.
fn nonneg(e: &Size) -> bool {
    match e {
        Size::Int(i) => *i >= 0,
        Size::Size(_) => true,
        Size::Neg(_) => false,
        Size::Bin(BinOp::Sub, ..) => false,
        Size::Bin(BinOp::Max, x, y) => nonneg(x) || nonneg(y),
        Size::Bin(_, x, y) => nonneg(x) && nonneg(y),
    }
}

/// Whether `s <= n` at every size (sizes are at least 1): `n` itself, a constant not past
/// a constant, or `n` a positive multiple of `s`.
pub(super) fn within(s: &Size, n: &Size) -> bool {
    match (s, n) {
        _ if s == n => true,
        (Size::Int(a), Size::Int(b)) => a <= b,
        (Size::Int(a), _) => *a <= 1,
        (_, Size::Bin(BinOp::Mul, x, y)) => {
            (**x == *s && matches!(**y, Size::Int(k) if k >= 1))
                || (**y == *s && matches!(**x, Size::Int(k) if k >= 1))
        }
        _ => false,
    }
}

/// NumPy broadcasting of two symbolic shapes: equal axes, or a constant 1.
pub(super) fn broadcast(a: &[Size], b: &[Size]) -> Result<Vec<Size>, String> {
    let n = a.len().max(b.len());
    let one = int(1);
    (0..n)
        .map(|i| {
            let x = (i + a.len()).checked_sub(n).map(|k| &a[k]).unwrap_or(&one);
            let y = (i + b.len()).checked_sub(n).map(|k| &b[k]).unwrap_or(&one);
            if x == y || *y == one {
                Ok(x.clone())
            } else if *x == one {
                Ok(y.clone())
            } else {
                Err(format!(
                    "shapes `{x}` and `{y}` do not broadcast at every size"
                ))
            }
        })
        .collect()
}
