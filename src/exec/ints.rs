//! The integer half of the interpreters' domain, and the meaning of every integer op
//! written once over it (docs/semantics.md, "Values").
//!
//! A TTIR integer op means the same in both runs: two's complement in the op's width.
//! What differs is the domain ([`Ints`]): the bounded run holds machine integers
//! ([`Machine`]: an `i128` holding the signed reading of a value in its width, every
//! result wrapped) and decided conditions (`bool`); the all-sizes run
//! (`verify::run::Run`) holds polynomials over the sizes and program ids, exact, with
//! conditions over them that it decides by forking, and it proves that no result it
//! keeps exact leaves its width (`verify::overflow`; [`can_wrap`] says which results
//! those are). An op's meaning below asks the domain only what it can answer (is this
//! value a constant, is it non-negative on every continuation) and falls back to the
//! machine's arithmetic where every operand is a constant.
//!
//! Invariant: with every operand a constant, each function here returns what the GPU
//! computes (`exec::ops::int`), in every domain; with symbolic operands it returns that
//! value exactly or an error naming what it cannot read, never a guess.

use crate::exec::error::ErrorKind;
use crate::exec::ops::int as machine;
use crate::exec::table::IntOp;
use crate::term::CmpOp;

/// Integers and conditions on them, as one run holds them.
pub(crate) trait Ints {
    /// An integer value of some width (its signed reading).
    type I: Clone;
    /// A condition (an `i1`).
    type C: Clone;
    /// The run's error.
    type E;
    fn fail(&self, kind: ErrorKind, message: String) -> Self::E;
    fn int(&mut self, n: i128) -> Self::I;
    fn as_const(&self, a: &Self::I) -> Option<i128>;
    /// `a op b` for `op` one of add, sub, mul, max, min, in `bits`: the machine wraps
    /// the result to its width; the all-sizes run keeps it exact (an obligation, see
    /// [`can_wrap`]).
    fn ring(&mut self, op: IntOp, bits: u32, a: &Self::I, b: &Self::I) -> Self::I;
    /// `floor(a / b)` and `a - b·floor(a / b)`, asked only for `a >= 0`, `b > 0`.
    fn floor_div(&mut self, a: &Self::I, b: &Self::I) -> Self::I;
    fn modulo(&mut self, a: &Self::I, b: &Self::I) -> Self::I;
    /// `a` truncated to `bits` (a narrowing cast): the machine keeps the low bits; the
    /// all-sizes run keeps `a` and proves it fits.
    fn narrow(&mut self, a: &Self::I, bits: u32) -> Self::I;
    /// Whether `a >= 0` on every continuation of the run.
    fn nonneg(&mut self, a: &Self::I) -> bool;
    /// Whether `a > 0` on every continuation of the run.
    fn positive(&mut self, a: &Self::I) -> bool;
    fn rel(&mut self, op: CmpOp, a: &Self::I, b: &Self::I) -> Self::C;
    fn truth(&mut self, b: bool) -> Self::C;
    fn cond_const(&self, c: &Self::C) -> Option<bool>;
    fn and(&mut self, a: &Self::C, b: &Self::C) -> Self::C;
    fn or(&mut self, a: &Self::C, b: &Self::C) -> Self::C;
    fn not(&mut self, a: &Self::C) -> Self::C;
    /// Which way `c` goes on this run (the all-sizes run forks where both can).
    fn decide(&mut self, c: &Self::C) -> Result<bool, Self::E>;
}

/// The bounded run's integers: concrete, wrapped to their width.
pub(crate) struct Machine;

impl Ints for Machine {
    type I = i128;
    type C = bool;
    type E = machine::Fail;
    fn fail(&self, kind: ErrorKind, message: String) -> Self::E {
        machine::Fail { kind, message }
    }
    fn int(&mut self, n: i128) -> i128 {
        n
    }
    fn as_const(&self, a: &i128) -> Option<i128> {
        Some(*a)
    }
    fn ring(&mut self, op: IntOp, bits: u32, a: &i128, b: &i128) -> i128 {
        let r = match op {
            IntOp::Add => a + b,
            IntOp::Sub => a - b,
            IntOp::Mul => a * b,
            IntOp::Max => *a.max(b),
            _ => *a.min(b),
        };
        machine::wrap(r, bits) as i128
    }
    fn floor_div(&mut self, a: &i128, b: &i128) -> i128 {
        a.div_euclid(*b)
    }
    fn modulo(&mut self, a: &i128, b: &i128) -> i128 {
        a.rem_euclid(*b)
    }
    fn narrow(&mut self, a: &i128, bits: u32) -> i128 {
        machine::wrap(*a, bits) as i128
    }
    fn nonneg(&mut self, a: &i128) -> bool {
        *a >= 0
    }
    fn positive(&mut self, a: &i128) -> bool {
        *a > 0
    }
    fn rel(&mut self, op: CmpOp, a: &i128, b: &i128) -> bool {
        match op {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
        }
    }
    fn truth(&mut self, b: bool) -> bool {
        b
    }
    fn cond_const(&self, c: &bool) -> Option<bool> {
        Some(*c)
    }
    fn and(&mut self, a: &bool, b: &bool) -> bool {
        *a && *b
    }
    fn or(&mut self, a: &bool, b: &bool) -> bool {
        *a || *b
    }
    fn not(&mut self, a: &bool) -> bool {
        !*a
    }
    fn decide(&mut self, c: &bool) -> Result<bool, Self::E> {
        Ok(*c)
    }
}

/// Whether `op`'s result can leave its width: the machine wraps it, the all-sizes run
/// proves it does not (`verify::overflow`).
pub(crate) fn can_wrap(op: IntOp) -> bool {
    matches!(op, IntOp::Add | IntOp::Sub | IntOp::Mul | IntOp::Shl)
}

/// Both operands as constants, when they are.
fn consts<D: Ints>(d: &D, a: &D::I, b: &D::I) -> Option<(i64, i64)> {
    Some((d.as_const(a)? as i64, d.as_const(b)? as i64))
}

/// The machine's error as the run's.
fn lift<D: Ints, T>(d: &D, r: Result<T, machine::Fail>) -> Result<T, D::E> {
    r.map_err(|f| d.fail(f.kind, f.message))
}

/// `arith` integer op `op` on `bits`-wide integers (`addi`, `divsi`, `shli`, ...).
pub(crate) fn binary<D: Ints>(
    d: &mut D,
    op: IntOp,
    bits: u32,
    a: &D::I,
    b: &D::I,
) -> Result<D::I, D::E> {
    if matches!(
        op,
        IntOp::Add | IntOp::Sub | IntOp::Mul | IntOp::Max | IntOp::Min
    ) {
        return Ok(d.ring(op, bits, a, b));
    }
    if let Some((x, y)) = consts(d, a, b) {
        let r = lift(d, machine::arith(op, bits, x, y))?;
        return Ok(d.int(r as i128));
    }
    // A left shift by a constant is a product by a power of two (both wrap alike); MLIR
    // makes a shift by the width or more poison, so only `0..bits` is read.
    if let Some(c) = d
        .as_const(b)
        .filter(|&c| (0..bits.min(127) as i128).contains(&c))
    {
        if op == IntOp::Shl {
            let p = d.int(1 << c);
            return Ok(d.ring(IntOp::Mul, bits, a, &p));
        }
    }
    let division = matches!(
        op,
        IntOp::DivS
            | IntOp::DivU
            | IntOp::FloorDiv
            | IntOp::RemS
            | IntOp::RemU
            | IntOp::CeilDiv
            | IntOp::CeilDivU
    );
    if op == IntOp::MulHiU {
        // Philox (`tl.rand`, `tl.randint`) multiplies by constants and keeps the high
        // half: no polynomial over the sizes says that, and the formula language has
        // no name for the random stream it feeds.
        return Err(d.fail(
            ErrorKind::Unsupported,
            "tt.mulhiui (the Philox multiply of tl.rand/tl.randint) of integers that depend on the sizes: \
             the random stream has no formula over the sizes, so it is read on the launch instance only"
                .into(),
        ));
    }
    if !division {
        return Err(d.fail(
            ErrorKind::Unsupported,
            format!("{op:?} of integers that depend on the sizes"),
        ));
    }
    // Truncating, floor and unsigned division all agree for a >= 0, b > 0.
    if !d.nonneg(a) || !d.positive(b) {
        return Err(d.fail(
            ErrorKind::Unsupported,
            "an operand that may be negative".into(),
        ));
    }
    Ok(match op {
        IntOp::RemS | IntOp::RemU => d.modulo(a, b),
        IntOp::CeilDiv | IntOp::CeilDivU => {
            // ceil(a / b) = floor((a + b - 1) / b); exact, the operands are in width.
            let one = d.int(1);
            let ab = d.ring(IntOp::Add, 128, a, b);
            let up = d.ring(IntOp::Sub, 128, &ab, &one);
            d.floor_div(&up, b)
        }
        _ => d.floor_div(a, b),
    })
}

/// `math.absi` in `bits`: `max(a, 0 - a)`, so `INT_MIN` stays `INT_MIN` as on the GPU
/// (the subtraction wraps; [`can_wrap`] holds for it, so the caller keeps it in width
/// as it keeps a `subi`).
pub(crate) fn abs<D: Ints>(d: &mut D, bits: u32, a: &D::I) -> D::I {
    let zero = d.int(0);
    let neg = d.ring(IntOp::Sub, bits, &zero, a);
    d.ring(IntOp::Max, bits, a, &neg)
}

/// `i1` op `op` on conditions (`andi`, `ori`, `xori` of masks).
pub(crate) fn logic<D: Ints>(d: &mut D, op: IntOp, a: &D::C, b: &D::C) -> Result<D::C, D::E> {
    Ok(match op {
        IntOp::And => d.and(a, b),
        IntOp::Or => d.or(a, b),
        IntOp::Xor => {
            let (na, nb) = (d.not(a), d.not(b));
            let (l, r) = (d.and(a, &nb), d.and(&na, b));
            d.or(&l, &r)
        }
        _ => match (d.cond_const(a), d.cond_const(b)) {
            // An i1 is -1 or 0 as a signed integer.
            (Some(x), Some(y)) => {
                let r = lift(d, machine::arith(op, 1, -(x as i64), -(y as i64)))?;
                d.truth(r & 1 == 1)
            }
            _ => {
                return Err(d.fail(
                    ErrorKind::Unsupported,
                    "integer arithmetic on a condition".into(),
                ))
            }
        },
    })
}

/// `arith.cmpi` predicate `pred` on `bits`-wide integers (`u*` predicates read the
/// bits unsigned).
pub(crate) fn compare<D: Ints>(
    d: &mut D,
    pred: &str,
    bits: u32,
    a: &D::I,
    b: &D::I,
) -> Result<D::C, D::E> {
    let op = match pred {
        "slt" | "ult" => CmpOp::Lt,
        "sle" | "ule" => CmpOp::Le,
        "sgt" | "ugt" => CmpOp::Gt,
        "sge" | "uge" => CmpOp::Ge,
        "eq" => CmpOp::Eq,
        "ne" => CmpOp::Ne,
        p => return Err(d.fail(ErrorKind::Unsupported, format!("integer predicate '{p}'"))),
    };
    // Unsigned and signed orders agree on non-negative values.
    if pred.starts_with('u') && !(d.nonneg(a) && d.nonneg(b)) {
        return match consts(d, a, b) {
            Some((x, y)) => {
                let r = lift(d, machine::compare(pred, bits, x, y))?;
                Ok(d.truth(r))
            }
            None => Err(d.fail(
                ErrorKind::Unsupported,
                "unsigned comparison of values that may be negative".into(),
            )),
        };
    }
    Ok(d.rel(op, a, b))
}

/// `arith.cmpi` on two `i1`s (true is -1 as a signed integer).
pub(crate) fn compare_conds<D: Ints>(
    d: &mut D,
    pred: &str,
    a: &D::C,
    b: &D::C,
) -> Result<D::C, D::E> {
    if let (Some(x), Some(y)) = (d.cond_const(a), d.cond_const(b)) {
        let r = lift(d, machine::compare(pred, 1, -(x as i64), -(y as i64)))?;
        return Ok(d.truth(r));
    }
    match pred {
        "eq" | "ne" => {
            let differ = logic(d, IntOp::Xor, a, b)?;
            Ok(if pred == "ne" { differ } else { d.not(&differ) })
        }
        _ => Err(d.fail(
            ErrorKind::Unsupported,
            format!("predicate '{pred}' on conditions that depend on the sizes"),
        )),
    }
}

/// An integer cast from `src` to `dst` bits (`extsi`, `extui`, `trunci`,
/// `index_cast[ui]`): a narrowing keeps the low bits ([`Ints::narrow`]); a widening
/// sign-extends, or zero-extends with `zero_extend`.
pub(crate) fn cast<D: Ints>(
    d: &mut D,
    src: u32,
    dst: u32,
    zero_extend: bool,
    a: &D::I,
) -> Result<D::I, D::E> {
    if dst < src {
        return Ok(d.narrow(a, dst));
    }
    if zero_extend && dst > src && !d.nonneg(a) {
        return match d.as_const(a) {
            Some(x) => Ok(d.int(machine::cast(x as i64, src, dst, true) as i128)),
            None => Err(d.fail(
                ErrorKind::Unsupported,
                "a zero extension of a value that may be negative".into(),
            )),
        };
    }
    Ok(a.clone())
}

/// An integer cast to `i1`: the lowest bit.
pub(crate) fn to_bool<D: Ints>(d: &mut D, a: &D::I) -> D::C {
    let two = d.int(2);
    let one = d.int(1);
    match d.as_const(a) {
        Some(x) => d.truth(x & 1 == 1),
        None => {
            // floor-mod by 2 is the low bit of a two's complement value, whatever
            // its sign.
            let bit = d.modulo(a, &two);
            d.rel(CmpOp::Eq, &bit, &one)
        }
    }
}

/// An `i1` widened to an integer (`extsi`, `extui`, `sitofp`, `uitofp`): true is -1
/// when sign-extended (as MLIR defines it), 1 otherwise.
pub(crate) fn from_bool<D: Ints>(d: &mut D, c: &D::C, signed: bool) -> Result<D::I, D::E> {
    let b = d.decide(c)?;
    Ok(d.int(match (b, signed) {
        (false, _) => 0,
        (true, true) => -1,
        (true, false) => 1,
    }))
}

/// The value `uitofp`/`sitofp` converts: `a` itself, or for `unsigned` its `bits` read
/// unsigned (`2^bits + a` for a negative `a`).
pub(crate) fn as_converted<D: Ints>(
    d: &mut D,
    bits: u32,
    unsigned: bool,
    a: &D::I,
) -> Result<D::I, D::E> {
    if !unsigned || d.nonneg(a) {
        return Ok(a.clone());
    }
    match d.as_const(a) {
        Some(x) => Ok(d.int(machine::unsigned(x as i64, bits) as i128)),
        None => Err(d.fail(
            ErrorKind::Unsupported,
            "an unsigned conversion of an integer that may be negative (the GPU reads it as 2^w + x)"
                .into(),
        )),
    }
}

/// `fptosi`/`fptoui` to `bits` of the float `x` (`None`: a value that depends on the
/// data): truncated toward zero, saturating as PTX's `cvt.rzi` does.
pub(crate) fn from_float<D: Ints>(
    d: &mut D,
    x: Option<f64>,
    bits: u32,
    unsigned: bool,
) -> Result<D::I, D::E> {
    match x {
        Some(x) if x.is_finite() => Ok(d.int(machine::from_float(x, bits, unsigned) as i128)),
        _ => Err(d.fail(
            ErrorKind::Unsupported,
            "float to integer cast of a value that depends on the data".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const I32_MIN: i128 = -(1 << 31);

    #[test]
    fn machine_integers_are_the_gpus() {
        let m = &mut Machine;
        // |INT_MIN| does not exist in i32: the GPU's `abs` leaves it INT_MIN.
        assert_eq!(abs(m, 32, &I32_MIN), I32_MIN);
        assert_eq!(abs(m, 32, &-5), 5);
        assert_eq!(abs(m, 64, &(i64::MIN as i128)), i64::MIN as i128);
        // i32::MAX + 1 wraps.
        assert_eq!(
            binary(m, IntOp::Add, 32, &((1 << 31) - 1), &1).ok(),
            Some(I32_MIN)
        );
        // Truncating division and remainder (C's, not floor).
        assert_eq!(binary(m, IntOp::DivS, 32, &-7, &2).ok(), Some(-3));
        assert_eq!(binary(m, IntOp::RemS, 32, &-7, &2).ok(), Some(-1));
        assert_eq!(binary(m, IntOp::FloorDiv, 32, &-7, &2).ok(), Some(-4));
        assert_eq!(binary(m, IntOp::CeilDiv, 32, &7, &2).ok(), Some(4));
        assert!(binary(m, IntOp::DivS, 32, &1, &0).is_err());
        // -1 is 0xFFFFFFFF unsigned: above 5.
        assert_eq!(compare(m, "ult", 32, &5, &-1).ok(), Some(true));
        assert_eq!(compare(m, "slt", 32, &5, &-1).ok(), Some(false));
        // i1: true is -1 signed, so true < false.
        assert_eq!(compare_conds(m, "slt", &true, &false).ok(), Some(true));
        assert_eq!(compare_conds(m, "ult", &true, &false).ok(), Some(false));
        assert_eq!(logic(m, IntOp::Xor, &true, &true).ok(), Some(false));
        // Casts: zero extension of -1 from 16 bits, truncation keeps low bits.
        assert_eq!(cast(m, 16, 32, true, &-1).ok(), Some(65535));
        assert_eq!(cast(m, 16, 32, false, &-1).ok(), Some(-1));
        assert_eq!(cast(m, 32, 16, false, &40000).ok(), Some(40000 - 65536));
        assert!(to_bool(m, &3));
        assert!(!to_bool(m, &-2));
        // extsi/sitofp of a true i1 is -1; extui/uitofp 1.
        assert_eq!(from_bool(m, &true, true).ok(), Some(-1));
        assert_eq!(from_bool(m, &true, false).ok(), Some(1));
        assert_eq!(as_converted(m, 32, true, &-1).ok(), Some(u32::MAX as i128));
        assert_eq!(as_converted(m, 32, false, &-1).ok(), Some(-1));
    }
}
