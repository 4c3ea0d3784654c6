//! Ops without regions: one result from operand values. Arithmetic, comparisons,
//! selects and casts are defined here; shape, memory and dot ops are dispatched to
//! their own files.
//!
//! Invariant: every float operation goes through the [`Domain`]; integers are machine
//! integers of the op's width (`int.rs`).

use super::int;
use super::interp::{fail, malformed, truth_elem, Fail, Interp, R};
use super::lanes::{map1, map2, map3};
use crate::exec::domain::{Binary, Domain, Precision, Truth};
use crate::exec::error::ErrorKind;
use crate::exec::ints::{self, Machine};
use crate::exec::shape;
use crate::exec::table::{
    axis, clamp_ops, extern_round_to_int, extern_unary, float_predicate, literal, op_kind, IntOp,
    Literal, OpKind,
};
use crate::exec::value::{Elem, Value};
use crate::exec::values;
use crate::term::Func;
use crate::triton_ir::ast::{Attr, Op, Type};
use std::rc::Rc;

impl<'a, D: Domain> Interp<'a, D> {
    /// Ops without regions: one result from operand values.
    pub(super) fn simple(&mut self, op: &Op, args: &[Rc<Value<D::V>>]) -> R<Value<D::V>> {
        let arg = |i: usize| -> R<&Value<D::V>> {
            args.get(i).map(|v| &**v).ok_or_else(|| Fail {
                kind: ErrorKind::Malformed,
                message: format!("expects at least {} operands, has {}", i + 1, args.len()),
            })
        };
        let out_shape = || -> Vec<usize> {
            op.result_types
                .first()
                .map(|t| t.shape().iter().map(|&d| d.max(0) as usize).collect())
                .unwrap_or_default()
        };
        let name = op.name.as_str();
        let unsupported = || {
            fail(
                ErrorKind::Unsupported,
                format!(
                    "op `{name}` is not supported by the interpreter (supported: tt, arith, math, scf and cf ops of Triton kernels; see src/exec/ops.rs)"
                ),
            )
        };
        let Some(kind) = op_kind(name) else {
            return unsupported();
        };
        if shape::is_lane_move(kind) {
            let ins: Vec<_> = args.iter().map(|v| (&v.shape[..], &v.elems[..])).collect();
            return match shape::lane_move(kind, op, &ins) {
                Ok((shape, elems)) => Ok(Value { shape, elems }),
                Err((kind, message)) => fail(kind, message),
            };
        }
        match kind {
            OpKind::Unary(f) => {
                let bits = op.result_types.first().map_or(64, int::width);
                map1(arg(0)?, |e| match e {
                    // `math.absi`
                    Elem::Int(i) if f == Func::Abs => {
                        Ok(Elem::Int(ints::abs(&mut Machine, bits, &(i as i128)) as i64))
                    }
                    e => self.float_unary(e, f),
                })
            }
            OpKind::Binary(b) => map2(arg(0)?, arg(1)?, |a, b2| self.float_binary(b, a, b2)),
            OpKind::Int(ib) => {
                let bits = op.result_types.first().map_or(64, int::width);
                map2(arg(0)?, arg(1)?, |a, b| self.int_binary(ib, bits, a, b))
            }
            OpKind::Constant => self.constant(op),
            OpKind::ProgramId | OpKind::NumPrograms => {
                let axis = axis(op).or_else(malformed)?;
                let v = if kind == OpKind::ProgramId {
                    self.program[axis]
                } else {
                    self.inst.grid[axis]
                };
                Ok(Value::scalar(Elem::Int(v)))
            }
            OpKind::MakeRange => {
                let elems: Vec<_> = shape::make_range(op).map(Elem::Int).collect();
                Ok(Value {
                    shape: vec![elems.len()],
                    elems,
                })
            }
            OpKind::NegF => map1(arg(0)?, |e| match e {
                Elem::Float(a) => Ok(Elem::Float(self.domain.neg(a))),
                Elem::Undef(u) => Ok(Elem::Undef(u)),
                other => malformed(format!("operand is {}", other.kind())),
            }),
            OpKind::Fma => map3(arg(0)?, arg(1)?, arg(2)?, |a, b, c| {
                values::fma(self, &a, &b, &c)
            }),
            OpKind::ClampF => {
                let (max, min) = clamp_ops(op);
                map3(arg(0)?, arg(1)?, arg(2)?, |x, lo, hi| {
                    let m = self.float_binary(max, x, lo)?;
                    self.float_binary(min, m, hi)
                })
            }
            OpKind::CmpF => {
                let pred = op.attr("predicate").and_then(Attr::as_str).unwrap_or("");
                if float_predicate(pred).is_none() {
                    return fail(ErrorKind::Unsupported, format!("predicate '{pred}'"));
                }
                map2(arg(0)?, arg(1)?, |a, b| match (a, b) {
                    (Elem::Float(x), Elem::Float(y)) => match self.domain.cmpf(pred, x, y) {
                        Some(t) => Ok(truth_elem(t)),
                        None => fail(ErrorKind::Unsupported, format!("predicate '{pred}'")),
                    },
                    (Elem::Undef(u), _) | (_, Elem::Undef(u)) => Ok(Elem::Undef(u)),
                    (a, b) => malformed(format!("compares {} with {}", a.kind(), b.kind())),
                })
            }
            OpKind::CmpI => {
                let pred = op.attr("predicate").and_then(Attr::as_str).unwrap_or("");
                let bits = op.operand_types.first().map_or(64, int::width);
                map2(arg(0)?, arg(1)?, |a, b| match (a, b) {
                    (Elem::Int(x), Elem::Int(y)) => {
                        ints::compare(&mut Machine, pred, bits, &(x as i128), &(y as i128))
                            .map(Elem::Bool)
                    }
                    (Elem::DataInt { .. }, Elem::Int(_) | Elem::DataInt { .. })
                    | (Elem::Int(_), Elem::DataInt { .. }) => self
                        .data_int_compare(pred, a, b)
                        .unwrap_or_else(|| malformed("integer comparison")),
                    (Elem::Bool(x), Elem::Bool(y)) => {
                        ints::compare_conds(&mut Machine, pred, &x, &y).map(Elem::Bool)
                    }
                    (Elem::Undef(u), _) | (_, Elem::Undef(u)) => Ok(Elem::Undef(u)),
                    (a, b) => fail(
                        ErrorKind::Unsupported,
                        format!("integer comparison of {} with {}", a.kind(), b.kind()),
                    ),
                })
            }
            OpKind::Select => {
                let (c, a, b) = (arg(0)?, arg(1)?, arg(2)?);
                let c = if c.shape.is_empty() && !a.shape.is_empty() {
                    Value::splat(c.elems[0], &a.shape)
                } else {
                    c.clone()
                };
                map3(&c, a, b, |c, a, b| values::select(self, &c, &a, &b))
            }
            OpKind::FloatCast => map1(arg(0)?, |e| values::float_cast(self, op, &e)),
            OpKind::Bitcast => map1(arg(0)?, |e| values::bitcast(self, op, &e)),
            OpKind::IntToFloat { unsigned } => map1(arg(0)?, |e| match e {
                Elem::Int(i) => {
                    let bits = op.operand_types.first().map_or(64, int::width);
                    let x = ints::as_converted(&mut Machine, bits, unsigned, &(i as i128))?;
                    Ok(Elem::Float(self.domain.constant(x as f64)))
                }
                Elem::DataInt { v, lo, .. } => {
                    let bits = op.operand_types.first().map_or(64, int::width);
                    self.data_int_to_float(v, lo, bits, unsigned)
                }
                Elem::Bool(b) => {
                    let x = ints::from_bool(&mut Machine, &b, !unsigned)?;
                    Ok(Elem::Float(self.domain.constant(x as f64)))
                }
                Elem::Cond(c) => {
                    // `sitofp` reads a true i1 as -1 (MLIR's sign extension).
                    let one = self.domain.constant(if unsigned { 1.0 } else { -1.0 });
                    let zero = self.domain.constant(0.0);
                    Ok(Elem::Float(self.domain.select(c, one, zero)))
                }
                Elem::Undef(u) => Ok(Elem::Undef(u)),
                other => malformed(format!("converts {}", other.kind())),
            }),
            OpKind::FloatToInt { unsigned } => map1(arg(0)?, |e| match e {
                // An integer-valued float of the data (`fptosi(floor(x))`).
                Elem::Float(v)
                    if self.domain.as_number(v).is_none() && self.domain.int_range(v).is_some() =>
                {
                    let bits = op.result_types.first().map_or(64, int::width);
                    values::data_float_to_int(self, v, bits, unsigned, &op.name)
                }
                Elem::Float(v) => {
                    let bits = op.result_types.first().map_or(64, int::width);
                    let x = self.domain.as_number(v);
                    ints::from_float(&mut Machine, x, bits, unsigned).map(|i| Elem::Int(i as i64))
                }
                Elem::Undef(u) => Ok(Elem::Undef(u)),
                other => malformed(format!("converts {}", other.kind())),
            }),
            OpKind::IntCast {
                signed,
                zero_extend: unsigned,
            } => {
                let to_bool = matches!(op.result_types.first().map(Type::elem), Some(Type::Int(1)));
                let bits = match op.result_types.first().map(Type::elem) {
                    Some(Type::Int(b)) => Some(*b),
                    _ => None,
                };
                let src = op.operand_types.first().map_or(64, int::width);
                map1(arg(0)?, |e| match e {
                    Elem::DataInt { v, lo, hi } => self.data_int_cast(v, lo, hi, bits, unsigned),
                    Elem::Int(i) if to_bool => {
                        Ok(Elem::Bool(ints::to_bool(&mut Machine, &(i as i128))))
                    }
                    Elem::Int(i) => {
                        let dst = bits.unwrap_or(64);
                        ints::cast(&mut Machine, src, dst, unsigned, &(i as i128))
                            .map(|x| Elem::Int(x as i64))
                    }
                    Elem::Bool(b) if to_bool => Ok(Elem::Bool(b)),
                    Elem::Bool(b) => {
                        ints::from_bool(&mut Machine, &b, signed).map(|x| Elem::Int(x as i64))
                    }
                    Elem::Undef(u) => Ok(Elem::Undef(u)),
                    other => fail(
                        ErrorKind::Unsupported,
                        format!("integer cast of {}", other.kind()),
                    ),
                })
            }
            OpKind::AddPtr => map2(arg(0)?, arg(1)?, |p, o| values::add_ptr(self, &p, &o)),
            OpKind::Load => self.load(op, args),
            OpKind::Store => {
                self.store(op, args)?;
                Ok(Value::scalar(Elem::Int(0)))
            }
            OpKind::Dot => {
                // Triton prints `inputPrecision = tf32` (its default on f32) and leaves
                // `ieee` unprinted; tf32x3 is about f32-accurate and stays exact.
                let tf32 = self.domain.precision() == Precision::Ieee
                    && matches!(op.attr("inputPrecision"), Some(Attr::Str(p)) if p == "tf32");
                let (a, b, c) = (arg(0)?, arg(1)?, arg(2)?);
                let (shape, elems) = values::dot(
                    self,
                    (&a.shape, &a.elems),
                    (&b.shape, &b.elems),
                    (&c.shape, &c.elems),
                    tf32,
                )?;
                Ok(Value { shape, elems })
            }
            OpKind::Extern => self.extern_call(op, args),
            OpKind::Poison => {
                let idx = self.undef_loads.len();
                self.undef_loads.push((op.line, op.loc.clone()));
                Ok(Value::splat(Elem::Undef(idx), &out_shape()))
            }
            // `tl.debug_barrier()`: the interpreter runs a program's tensor ops in
            // program order, every lane at once, so the threads it orders never
            // interleave here: a no-op.
            OpKind::Barrier => Ok(Value::scalar(Elem::Int(0))),
            OpKind::Debug => Ok(Value::scalar(values::debug(self, op))),
            // Region ops and terminators are run by `control.rs`, never here.
            _ => unsupported(),
        }
    }

    pub(super) fn constant(&mut self, op: &Op) -> R<Value<D::V>> {
        let (shape, values) = literal(op).or_else(malformed)?;
        let mut elems: Vec<Elem<D::V>> = values
            .iter()
            .map(|l| match *l {
                Literal::Bool(b) => Elem::Bool(b),
                Literal::Int(i) => Elem::Int(i as i64),
                Literal::Float(x) => Elem::Float(self.domain.constant(x)),
            })
            .collect();
        if elems.len() == 1 {
            return Ok(Value::splat(elems.remove(0), &shape));
        }
        Ok(Value { shape, elems })
    }

    pub(super) fn float_unary(&mut self, e: Elem<D::V>, f: Func) -> R<Elem<D::V>> {
        values::float_unary(self, f, &e)
    }

    pub(super) fn float_binary(
        &mut self,
        op: Binary,
        a: Elem<D::V>,
        b: Elem<D::V>,
    ) -> R<Elem<D::V>> {
        values::float_binary(self, op, &a, &b)
    }

    pub(super) fn int_binary(
        &mut self,
        op: IntOp,
        bits: u32,
        a: Elem<D::V>,
        b: Elem<D::V>,
    ) -> R<Elem<D::V>> {
        match (a, b) {
            (Elem::Int(x), Elem::Int(y)) => {
                ints::binary(&mut Machine, op, bits, &(x as i128), &(y as i128))
                    .map(|r| Elem::Int(r as i64))
            }
            (Elem::DataInt { .. }, Elem::Int(_) | Elem::DataInt { .. })
            | (Elem::Int(_), Elem::DataInt { .. }) => self
                .data_int_binary(op, bits, a, b)
                .unwrap_or_else(|| malformed("integer op")),
            (Elem::Bool(x), Elem::Bool(y)) => ints::logic(&mut Machine, op, &x, &y).map(Elem::Bool),
            (Elem::Cond(c), Elem::Bool(k)) | (Elem::Bool(k), Elem::Cond(c)) => match (op, k) {
                (IntOp::And, true) | (IntOp::Or, false) | (IntOp::Xor, false) => Ok(Elem::Cond(c)),
                (IntOp::And, false) => Ok(Elem::Bool(false)),
                (IntOp::Or, true) => Ok(Elem::Bool(true)),
                (IntOp::Xor, true) => Ok(truth_elem(self.domain.not(c))),
                _ => fail(
                    ErrorKind::Unsupported,
                    "integer arithmetic on a data-dependent boolean",
                ),
            },
            (Elem::Cond(x), Elem::Cond(y)) => match op {
                IntOp::And => Ok(truth_elem(self.domain.and(x, y))),
                IntOp::Or => Ok(truth_elem(self.domain.or(x, y))),
                IntOp::Xor => {
                    // x != y  ==  (x || y) && !(x && y)
                    let either = self.domain.or(x, y);
                    let both = self.domain.and(x, y);
                    match (either, both) {
                        (Truth::Known(e), Truth::Known(b)) => Ok(Elem::Bool(e && !b)),
                        _ => fail(ErrorKind::Unsupported, "xor of two data-dependent booleans"),
                    }
                }
                _ => fail(
                    ErrorKind::Unsupported,
                    "integer arithmetic on a data-dependent boolean",
                ),
            },
            (Elem::Undef(u), _) | (_, Elem::Undef(u)) => Ok(Elem::Undef(u)),
            (a, b) => malformed(format!("integer op on {} and {}", a.kind(), b.kind())),
        }
    }

    pub(super) fn extern_call(&mut self, op: &Op, args: &[Rc<Value<D::V>>]) -> R<Value<D::V>> {
        let symbol = op.attr("symbol").and_then(Attr::as_str).unwrap_or("");
        let base = symbol.strip_prefix("__nv_").unwrap_or(symbol);
        if extern_round_to_int(symbol) {
            let a = args.first().ok_or_else(|| Fail {
                kind: ErrorKind::Malformed,
                message: format!("{symbol} needs one operand"),
            })?;
            return map1(a, |e| values::round_to_int(self, &e));
        }
        if let Some(f) = extern_unary(symbol) {
            let a = args.first().ok_or_else(|| Fail {
                kind: ErrorKind::Malformed,
                message: format!("{symbol} needs one operand"),
            })?;
            return map1(a, |e| self.float_unary(e, f));
        }
        type Pair<'v, V> = (&'v Value<V>, &'v Value<V>);
        let two = || -> R<Pair<D::V>> {
            match (args.first(), args.get(1)) {
                (Some(a), Some(b)) => Ok((a, b)),
                _ => malformed(format!("{symbol} needs two operands")),
            }
        };
        match base {
            // C's fmax/fmin return the operand that is not NaN.
            "fmaxf" | "fmax" => {
                let (a, b) = two()?;
                map2(a, b, |x, y| self.float_binary(Binary::MaxNum, x, y))
            }
            "fminf" | "fmin" => {
                let (a, b) = two()?;
                map2(a, b, |x, y| self.float_binary(Binary::MinNum, x, y))
            }
            "fmaf" | "fma" => {
                let (Some(a), Some(b), Some(c)) = (args.first(), args.get(1), args.get(2)) else {
                    return malformed("fma needs three operands");
                };
                map3(a, b, c, |x, y, z| {
                    let p = self.float_binary(Binary::Mul, x, y)?;
                    self.float_binary(Binary::Add, p, z)
                })
            }
            "powif" | "powi" | "powf" | "pow" => {
                let (a, b) = two()?;
                map2(a, b, |x, n| {
                    let exponent = match n {
                        Elem::Int(k) => Some(k),
                        Elem::Float(v) => self
                            .domain
                            .as_number(v)
                            .filter(|e| e.fract() == 0.0 && e.abs() < 1e6)
                            .map(|e| e as i64),
                        _ => None,
                    };
                    match (x, exponent) {
                        (Elem::Float(v), Some(k)) => Ok(Elem::Float(self.domain.powi(v, k as i32))),
                        (Elem::Undef(u), _) => Ok(Elem::Undef(u)),
                        _ => fail(
                            ErrorKind::Unsupported,
                            format!("{symbol} with an exponent that is not a constant integer"),
                        ),
                    }
                })
            }
            _ => fail(
                ErrorKind::Unsupported,
                format!("libdevice function `{symbol}` is not supported"),
            ),
        }
    }
}
