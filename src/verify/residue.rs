//! Indices `a·v + b` (one loop or program variable `v`, constants `a ≠ 0` and `b`) read
//! by residue class, the arithmetic behind the division-free queries of
//! [`super::extent`] and [`super::coverage`]: written as `m·w + r` with `m` a multiple
//! of `a`, such an index reaches exactly the residues `r ≡ b (mod a)`, each at one value
//! of `v`, linear in `w`.

use z3::ast::Int;

/// The index `a·var + b`.
#[derive(Clone, Debug, PartialEq)]
pub struct Stride {
    pub var: String,
    pub a: i128,
    pub b: i128,
}

pub fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// The least common multiple of `m` and `|a|` (`m > 0`).
pub fn lcm(m: i128, a: i128) -> i128 {
    m / gcd(m, a) * a.abs()
}

impl Stride {
    /// The residues modulo `m` (a multiple of `a`) this index takes.
    pub fn residues(&self, m: i128) -> impl Iterator<Item = i128> + '_ {
        (0..m).filter(move |r| (r - self.b).rem_euclid(self.a) == 0)
    }

    /// The value of the variable at which the index is `m·w + r` (`r` one of
    /// [`Stride::residues`]`(m)`).
    pub fn at<'c>(&self, ctx: &'c z3::Context, m: i128, w: &Int<'c>, r: i128) -> Int<'c> {
        let int = |x: i128| Int::from_i64(ctx, x as i64);
        Int::add(
            ctx,
            &[
                &Int::mul(ctx, &[&int(m / self.a), w]),
                &int((r - self.b) / self.a),
            ],
        )
    }

    /// The index at value `v` of the variable.
    pub fn index<'c>(&self, ctx: &'c z3::Context, v: &Int<'c>) -> Int<'c> {
        let int = |x: i128| Int::from_i64(ctx, x as i64);
        Int::add(ctx, &[&Int::mul(ctx, &[&int(self.a), v]), &int(self.b)])
    }

    /// Whether this index and `other` can ever be equal.
    pub fn may_meet(&self, other: &Stride) -> bool {
        (other.b - self.b) % gcd(self.a, other.a) == 0
    }

    /// Whether this index can equal `c`.
    pub fn may_be(&self, c: i128) -> bool {
        (c - self.b) % self.a == 0
    }
}
