//! The value ops of the walk: every op without regions but `tt.load`/`tt.store`,
//! dispatched once for both runs. Shape moves, float arithmetic and comparisons,
//! selects, float casts, pointers, `tt.dot` and constants are read here over the run's
//! lanes (their meanings in `exec::values` and `exec::shape`); the integer ops and the
//! conversions between integers and floats are the run's hooks ([`Control::int_op`],
//! ...), whose integer domains differ (machine integers, polynomials over the sizes).
//!
//! Invariant: an op's kind is read here once; a run sees only the lanes of an op it
//! has a hook for, and the results it keeps exact are shown to fit their width
//! ([`Control::fits`]).

use super::Control;
use crate::exec::domain::{Binary, Domain, Precision};
use crate::exec::error::ErrorKind;
use crate::exec::ints;
use crate::exec::shape;
use crate::exec::table::{
    axis, clamp_ops, extern_round_to_int, extern_unary, float_predicate, int_width, literal,
    Literal, OpKind,
};
use crate::exec::values::{self, Kind};
use crate::term::Func;
use crate::triton_ir::ast::{Attr, Op};
use std::rc::Rc;

/// The result of value op `op` (of `kind`) on `args`.
pub(super) fn value_op<'m, C: Control<'m>>(
    c: &mut C,
    op: &Op,
    kind: Option<OpKind>,
    args: &[Rc<C::T>],
) -> Result<C::T, C::E> {
    let name = op.name.as_str();
    let arg = |c: &C, i: usize| -> Result<&C::T, C::E> {
        match args.get(i) {
            Some(v) => Ok(&**v),
            None => Err(c.fail(
                ErrorKind::Malformed,
                format!("expects at least {} operands, has {}", i + 1, args.len()),
            )),
        }
    };
    let bits = op.result_types.first().map_or(64, int_width);
    let src = op.operand_types.first().map_or(64, int_width);
    let Some(kind) = kind else {
        return Err(unknown(c, name));
    };
    if shape::is_lane_move(kind) {
        let ins: Vec<_> = args.iter().map(|v| C::lanes(v)).collect();
        return match shape::lane_move(kind, op, &ins) {
            Ok((shape, lanes)) => Ok(c.tensor(shape, lanes)),
            Err((k, message)) => Err(c.meaning(op, c.fail(k, message))),
        };
    }
    // `llrint` and its kin: a float rounded half to even into an integer.
    if kind == OpKind::Extern
        && op
            .attr("symbol")
            .and_then(Attr::as_str)
            .is_some_and(extern_round_to_int)
    {
        return c.map1(arg(c, 0)?, |c, l| {
            values::round_to_int(c, l).map_err(|e| c.meaning(op, e))
        });
    }
    let libdevice = match (kind, op.attr("symbol").and_then(Attr::as_str)) {
        (OpKind::Extern, Some(sym)) => extern_unary(sym),
        (OpKind::Unary(f), _) => Some(f),
        _ => None,
    };
    if let Some(f) = libdevice {
        let a = arg(c, 0)?;
        let v = c.map1(a, |c, l| match c.kind(l) {
            // `math.absi`
            Kind::Int(_) if f == Func::Abs => c.int_abs(bits, l),
            _ => values::float_unary(c, f, l).map_err(|e| c.meaning(op, e)),
        })?;
        if C::lanes(&v)
            .1
            .iter()
            .any(|l| matches!(c.kind(l), Kind::Int(_)))
        {
            c.fits(op, &v, bits, &format!("i{bits} index arithmetic"))?;
        }
        return Ok(v);
    }
    match kind {
        OpKind::Binary(b) => {
            let (x, y) = (arg(c, 0)?, arg(c, 1)?);
            c.map2(x, y, |c, a, b2| {
                values::float_binary(c, b, a, b2).map_err(|e| c.meaning(op, e))
            })
        }
        OpKind::Int(io) => {
            let (x, y) = (arg(c, 0)?, arg(c, 1)?);
            let v = c.map2(x, y, |c, a, b| c.int_op(op, io, bits, a, b))?;
            if ints::can_wrap(io) {
                c.fits(op, &v, bits, &format!("i{bits} index arithmetic"))?;
            }
            Ok(v)
        }
        OpKind::IntCast {
            signed,
            zero_extend,
        } => {
            // Exact where the value fits the target (a narrowing is an obligation).
            let v = c.map1(arg(c, 0)?, |c, l| c.int_cast(op, signed, zero_extend, l))?;
            if bits < src {
                c.fits(op, &v, bits, &format!("cast to i{bits}"))?;
            }
            Ok(v)
        }
        OpKind::Constant => constant(c, op),
        OpKind::ProgramId | OpKind::NumPrograms => {
            let axis = axis(op).map_err(|m| c.fail(ErrorKind::Malformed, m))?;
            let l = if kind == OpKind::ProgramId {
                c.program_id(axis)
            } else {
                c.num_programs(axis)
            };
            Ok(c.tensor(Vec::new(), vec![l]))
        }
        OpKind::MakeRange => {
            let lanes: Vec<_> = shape::make_range(op)
                .map(|i| c.int_lane(i as i128))
                .collect();
            Ok(c.tensor(vec![lanes.len()], lanes))
        }
        OpKind::NegF => c.map1(arg(c, 0)?, |c, l| match c.kind(l) {
            Kind::Float(x) => {
                let v = c.floats().neg(x);
                Ok(c.float(v))
            }
            Kind::Undef => Ok(l.clone()),
            _ => Err(c.fail(ErrorKind::Malformed, "negf of a non-float".into())),
        }),
        OpKind::Fma => {
            let (x, y, z) = (arg(c, 0)?, arg(c, 1)?, arg(c, 2)?);
            c.map3(x, y, z, |c, a, b, d| {
                values::fma(c, a, b, d).map_err(|e| c.meaning(op, e))
            })
        }
        OpKind::ClampF => {
            let (max, min) = clamp_ops(op);
            let (x, lo, hi) = (arg(c, 0)?, arg(c, 1)?, arg(c, 2)?);
            c.map3(x, lo, hi, |c, x, lo, hi| {
                let m = values::float_binary(c, max, x, lo)?;
                values::float_binary(c, min, &m, hi)
            })
        }
        OpKind::CmpF => {
            let pred = op.attr("predicate").and_then(Attr::as_str).unwrap_or("");
            let bad = |c: &C| c.fail(ErrorKind::Unsupported, format!("cmpf predicate {pred}"));
            if float_predicate(pred).is_none() {
                return Err(bad(c));
            }
            // IEEE's ordered and unordered predicates.
            let (x, y) = (arg(c, 0)?, arg(c, 1)?);
            c.map2(x, y, |c, a, b| match (c.kind(a), c.kind(b)) {
                (Kind::Float(x), Kind::Float(y)) => match c.floats().cmpf(pred, x, y) {
                    Some(t) => Ok(c.truth(t)),
                    None => Err(bad(c)),
                },
                (Kind::Undef, _) => Ok(a.clone()),
                (_, Kind::Undef) => Ok(b.clone()),
                _ => Err(c.fail(ErrorKind::Malformed, "cmpf of non-floats".into())),
            })
        }
        OpKind::CmpI => {
            let pred = op.attr("predicate").and_then(Attr::as_str).unwrap_or("");
            let (x, y) = (arg(c, 0)?, arg(c, 1)?);
            c.map2(x, y, |c, a, b| c.int_compare(op, pred, src, a, b))
        }
        OpKind::Select => {
            let (k, x, y) = (arg(c, 0)?, arg(c, 1)?, arg(c, 2)?);
            c.map3(k, x, y, |c, k, a, b| values::select(c, k, a, b))
        }
        OpKind::FloatCast => c.map1(arg(c, 0)?, |c, l| {
            values::float_cast(c, op, l).map_err(|e| c.meaning(op, e))
        }),
        OpKind::Bitcast => c.map1(arg(c, 0)?, |c, l| {
            values::bitcast(c, op, l).map_err(|e| c.meaning(op, e))
        }),
        OpKind::IntToFloat { unsigned } => {
            c.map1(arg(c, 0)?, |c, l| c.int_to_float(op, src, unsigned, l))
        }
        OpKind::FloatToInt { unsigned } => {
            c.map1(arg(c, 0)?, |c, l| c.float_to_int(op, bits, unsigned, l))
        }
        OpKind::AddPtr => {
            let (p, o) = (arg(c, 0)?, arg(c, 1)?);
            c.map2(p, o, |c, p, o| {
                values::add_ptr(c, p, o).map_err(|e| c.meaning(op, e))
            })
        }
        OpKind::Dot => {
            // Triton prints `inputPrecision = tf32` (its default on f32) and leaves
            // `ieee` unprinted; tf32x3 is about f32-accurate and stays exact. Without
            // `--precision ieee` tf32 inputs are read as exact.
            let tf32 = c.floats().precision() == Precision::Ieee
                && matches!(op.attr("inputPrecision"), Some(Attr::Str(p)) if p == "tf32");
            let (a, b, d) = (arg(c, 0)?, arg(c, 1)?, arg(c, 2)?);
            let (shape, lanes) = values::dot(c, C::lanes(a), C::lanes(b), C::lanes(d), tf32)
                .map_err(|e| c.meaning(op, e))?;
            Ok(c.tensor(shape, lanes))
        }
        OpKind::Extern => libdevice_call(c, op, args),
        OpKind::Poison => c.poison(op),
        // `tl.debug_barrier()`: both runs run a program's tensor ops in program order,
        // every lane at once, so the threads it orders never interleave: a no-op.
        OpKind::Barrier => {
            let unit = c.unit();
            Ok(c.tensor(Vec::new(), vec![unit]))
        }
        OpKind::Debug => {
            let unit = values::debug(c, op);
            Ok(c.tensor(Vec::new(), vec![unit]))
        }
        // Region ops, terminators and memory are the walk's, never here.
        _ => Err(unknown(c, name)),
    }
}

fn unknown<'m, C: Control<'m>>(c: &C, name: &str) -> C::E {
    c.fail(
        ErrorKind::Unsupported,
        format!(
            "op `{name}` is not supported by the interpreter (supported: tt, arith, math, scf and cf ops of Triton kernels; see src/exec/table.rs)"
        ),
    )
}

/// `arith.constant`: a splat or a dense literal.
fn constant<'m, C: Control<'m>>(c: &mut C, op: &Op) -> Result<C::T, C::E> {
    let (shape, literals) = literal(op).map_err(|m| c.fail(ErrorKind::Malformed, m))?;
    let mut lanes: Vec<C::L> = Vec::with_capacity(literals.len());
    for l in &literals {
        lanes.push(match *l {
            Literal::Bool(b) => c.truth(crate::exec::domain::Truth::Known(b)),
            Literal::Int(i) => c.int_lane(i),
            Literal::Float(x) => {
                let v = c.floats().constant(x);
                c.float(v)
            }
        });
    }
    if lanes.len() == 1 {
        let n = shape.iter().product();
        return Ok(c.tensor(shape, vec![lanes.remove(0); n]));
    }
    Ok(c.tensor(shape, lanes))
}

/// A libdevice call of more than one operand (`tt.extern_elementwise`): C's
/// `fmax`/`fmin` (the operand that is not NaN), `fma`, and `powi`/`pow` by a constant
/// integer exponent.
fn libdevice_call<'m, C: Control<'m>>(c: &mut C, op: &Op, args: &[Rc<C::T>]) -> Result<C::T, C::E> {
    let symbol = op.attr("symbol").and_then(Attr::as_str).unwrap_or("");
    let base = symbol.strip_prefix("__nv_").unwrap_or(symbol);
    let malformed = |c: &C, m: String| c.fail(ErrorKind::Malformed, m);
    let two = |c: &C| match (args.first(), args.get(1)) {
        (Some(a), Some(b)) => Ok((&**a, &**b)),
        _ => Err(malformed(c, format!("{symbol} needs two operands"))),
    };
    match base {
        "fmaxf" | "fmax" | "fminf" | "fmin" => {
            let b = if base.starts_with("fmax") {
                Binary::MaxNum
            } else {
                Binary::MinNum
            };
            let (x, y) = two(c)?;
            c.map2(x, y, |c, a, d| values::float_binary(c, b, a, d))
        }
        "fmaf" | "fma" => {
            let (Some(a), Some(b), Some(d)) = (args.first(), args.get(1), args.get(2)) else {
                return Err(malformed(c, "fma needs three operands".into()));
            };
            c.map3(a, b, d, |c, x, y, z| values::fma(c, x, y, z))
        }
        "powif" | "powi" | "powf" | "pow" => {
            let (a, b) = two(c)?;
            c.map2(a, b, |c, x, n| {
                let exponent = match c.kind(n) {
                    Kind::Float(v) => c
                        .floats()
                        .as_number(v)
                        .filter(|e| e.fract() == 0.0 && e.abs() < 1e6)
                        .map(|e| e as i64),
                    _ => c.int_const(n),
                };
                match (c.kind(x), exponent) {
                    (Kind::Float(v), Some(k)) => {
                        let p = c.floats().powi(v, k as i32);
                        Ok(c.float(p))
                    }
                    (Kind::Undef, _) => Ok(x.clone()),
                    _ => Err(c.fail(
                        ErrorKind::Unsupported,
                        format!("{symbol} with an exponent that is not a constant integer"),
                    )),
                }
            })
        }
        _ => Err(c.fail(
            ErrorKind::Unsupported,
            format!("libdevice function `{symbol}` is not supported"),
        )),
    }
}
