//! The points the procedure evaluates at, and what it reports about them: the leaves of a
//! term (input elements, named params), the deterministic value of a leaf at a point
//! (seeded random, or one of the boundary families), and the counterexample a point gives.
//!
//! Invariant: a leaf's value at a point depends only on the point and the leaf, so a
//! counterexample replays anywhere (`point_value`).

use crate::term::{Node, TermId, Terms};
use std::sync::Arc;

/// Which side of a pair is a PyTorch spec. Where the spec is NaN because the point left
/// its domain (`log` of a negative, `0/0`), PyTorch gives no number there and any value
/// of the other side (a kernel's) refines it: `tl.maximum(tl.log(x), 0)`, which is 0
/// at x < 0 (IEEE maxNum drops the NaN), is `torch.clamp(torch.log(x), min=0)`, which
/// is NaN there. The reverse is a difference: a kernel that is NaN where the spec has a
/// value is wrong there. Two kernels (`equiv`) and a kernel and its lifted formula are
/// compared both ways (`Neither`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SpecSide {
    #[default]
    Neither,
    Left,
    Right,
}

/// A leaf of a term: an input element or a named param.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Leaf {
    Input { tensor: Arc<str>, index: Box<[i64]> },
    Param(Arc<str>),
}

/// A point where the two sides differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Counterexample {
    /// The point's seed ([`point_value`]); [`CALLER_POINT`] for the caller's point.
    pub point: u64,
    /// The value of every leaf of both terms.
    pub values: Vec<(Leaf, f64)>,
    pub lhs: f64,
    pub rhs: f64,
    /// The two values differ by less than f32's resolution (the difference is real,
    /// but a kernel computing in f32 may round it away).
    pub below_f32: bool,
}

impl Counterexample {
    /// Evaluate a term at this point (f64), e.g. to replay the refutation. Leaves the
    /// point has no value for evaluate to NaN.
    pub fn eval(&self, terms: &Terms, id: TermId) -> f64 {
        let input = |name: &str, idx: &[i64]| {
            self.values
                .iter()
                .find_map(|(l, v)| match l {
                    Leaf::Input { tensor, index } if &**tensor == name && &**index == idx => {
                        Some(*v)
                    }
                    _ => None,
                })
                .unwrap_or(f64::NAN)
        };
        let param = |name: &str| {
            self.values
                .iter()
                .find_map(|(l, v)| matches!(l, Leaf::Param(p) if &**p == name).then_some(*v))
                .unwrap_or(f64::NAN)
        };
        terms.eval(id, &input, &param)
    }
}

/// The `point` of a counterexample found at the caller-supplied point.
pub const CALLER_POINT: u64 = u64::MAX;

fn mix(mut h: u64, x: u64) -> u64 {
    h ^= x
        .wrapping_add(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(h << 6)
        .wrapping_add(h >> 2);
    // splitmix64 finaliser
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// First seed of the boundary points (see [`point_value`]); [`BOUNDARY_POINTS`] of them.
pub const BOUNDARY_POINT: u64 = 1 << 40;
/// How many boundary points there are.
pub const BOUNDARY_POINTS: u64 = 11;

/// The value a point gives a leaf: deterministic in (point, leaf). Ordinary points give
/// multiples of 1/16 in `[-2, 2]` without 0; odd points positive values only (`(0, 2]`),
/// for `log`/`sqrt` domains. The boundary points `BOUNDARY_POINT + k` look where
/// functions change and random points rarely go: every leaf 0 (ties `x >= 0` vs
/// `x > 0`, guards `x == 0`), every leaf 1, every leaf -1, every leaf negative (a max
/// seeded with 0), leaves from {-1, 0, 1} and from {±2, ±1, ±1/2, 0}, large magnitudes
/// (to ±256: beyond where f32's exp overflows), positive large ones, tiny ones (±2^-20
/// multiples), positive tiny ones, and f32 values with random 23-bit mantissas in
/// ±[1/2, 8) (where an f16/bf16/tf32 rounding shows: every other family is a short
/// dyadic fraction, which those formats represent exactly, sums included).
pub fn point_value(point: u64, leaf: &Leaf) -> f64 {
    let h = leaf_hash(point, leaf);
    let k = (h % 32) as f64 + 1.0; // 1..=32
    let negative = (h >> 40) & 1 == 1;
    let sign = if negative { -1.0 } else { 1.0 };
    match point.checked_sub(BOUNDARY_POINT) {
        Some(0) => 0.0,
        Some(1) => 1.0,
        Some(2) => -1.0,
        Some(3) => -k / 16.0,
        Some(4) => [-1.0, 0.0, 1.0][(h % 3) as usize],
        Some(5) => [-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0][(h % 7) as usize],
        Some(6) => sign * k * 8.0,
        Some(7) => k * 8.0,
        Some(8) => sign * k / 1_048_576.0,
        Some(9) => k / 1_048_576.0,
        Some(10) => {
            let mantissa = 1.0 + ((h >> 8) & 0x7f_ffff) as f64 / 8_388_608.0;
            let exponent = ((h >> 32) % 4) as i32 - 1;
            sign * mantissa * 2f64.powi(exponent)
        }
        _ if point % 2 == 1 || !negative => k / 16.0,
        _ => -k / 16.0,
    }
}

pub(super) fn leaf_hash(point: u64, leaf: &Leaf) -> u64 {
    let mut h = mix(0x6c69_6674, point);
    match leaf {
        Leaf::Input { tensor, index } => {
            h = mix(h, 1);
            for b in tensor.bytes() {
                h = mix(h, b as u64);
            }
            for &i in index.iter() {
                h = mix(h, i as u64);
            }
        }
        Leaf::Param(name) => {
            h = mix(h, 2);
            for b in name.bytes() {
                h = mix(h, b as u64);
            }
        }
    }
    h
}

pub(super) fn leaf_of(terms: &Terms, t: TermId) -> Option<Leaf> {
    match terms.node(t) {
        Node::Input { tensor, index } => Some(Leaf::Input {
            tensor: tensor.clone(),
            index: index.clone(),
        }),
        Node::Param(name) => Some(Leaf::Param(name.clone())),
        _ => None,
    }
}
