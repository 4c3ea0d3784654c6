//! The bounded run's hooks of the one walk (`exec::walk::Control`): every branch on an
//! index is taken concretely, a branch on the data forks (`fork.rs`) and merges, a loop
//! runs trip by trip with its counter wrapping in its width, and `scf.while` (which the
//! all-sizes run does not read) is run here.
//!
//! Invariant: anything else is an error naming the op.

use super::interp::{malformed, Env, Fail, Flow, Interp, Vals, R};
use super::lanes::{broadcast_scalar, same_shape};
use super::{int, select};
use crate::exec::domain::Domain;
use crate::exec::error::{ErrorKind, ExecError};
use crate::exec::execution::MAX_OPS;
use crate::exec::ints::{self, Machine};
use crate::exec::precision;
use crate::exec::table::IntOp;
use crate::exec::value::{Elem, Value};
use crate::exec::walk::{self, Control, Jump, Side, Trip};
use crate::triton_ir::ast::{Loc, Module, Op, Region};
use std::rc::Rc;

impl<'a, D: Domain> Control<'a> for Interp<'a, D> {
    type T = Value<D::V>;
    type Count = i64;
    type Fork = D::V;
    type X = ExecError;

    fn module(&self) -> &'a Module {
        self.module
    }
    fn tensor(&self, shape: Vec<usize>, elems: Vec<Elem<D::V>>) -> Value<D::V> {
        Value { shape, elems }
    }
    fn lanes(t: &Value<D::V>) -> (&[usize], &[Elem<D::V>]) {
        (&t.shape, &t.elems)
    }
    fn nesting(&mut self) -> &mut u32 {
        &mut self.depth
    }
    fn at(&self, op: &Op, f: Fail) -> ExecError {
        Interp::at(self, op, f)
    }
    fn at_line(&self, line: u32, loc: &Loc, f: Fail) -> ExecError {
        ExecError {
            kind: f.kind,
            message: f.message,
            line,
            loc: loc.clone(),
            program: self.program,
            clash: None,
            unwritten: None,
        }
    }
    fn count(&mut self, op: &Op) -> Result<(), ExecError> {
        self.ops += 1;
        if self.ops > MAX_OPS {
            let message = format!("more than {MAX_OPS} ops executed; use smaller sizes");
            let kind = ErrorKind::Limit;
            return Err(Interp::at(self, op, Fail { kind, message }));
        }
        Ok(())
    }
    fn follows_branches(&self) -> bool {
        true
    }

    fn map1<F>(&mut self, a: &Value<D::V>, mut f: F) -> R<Value<D::V>>
    where
        F: FnMut(&mut Self, &Elem<D::V>) -> R<Elem<D::V>>,
    {
        let elems = a.elems.iter().map(|x| f(self, x)).collect::<R<Vec<_>>>()?;
        Ok(Value {
            shape: a.shape.clone(),
            elems,
        })
    }
    fn map2<F>(&mut self, a: &Value<D::V>, b: &Value<D::V>, mut f: F) -> R<Value<D::V>>
    where
        F: FnMut(&mut Self, &Elem<D::V>, &Elem<D::V>) -> R<Elem<D::V>>,
    {
        same_shape(a, b)?;
        let elems = (a.elems.iter().zip(&b.elems))
            .map(|(x, y)| f(self, x, y))
            .collect::<R<Vec<_>>>()?;
        Ok(Value {
            shape: a.shape.clone(),
            elems,
        })
    }
    fn map3<F>(
        &mut self,
        a: &Value<D::V>,
        b: &Value<D::V>,
        c: &Value<D::V>,
        mut f: F,
    ) -> R<Value<D::V>>
    where
        F: FnMut(&mut Self, &Elem<D::V>, &Elem<D::V>, &Elem<D::V>) -> R<Elem<D::V>>,
    {
        // A scalar condition of a select on tensors.
        let a = broadcast_scalar(a, &b.shape);
        same_shape(&a, b)?;
        same_shape(&a, c)?;
        let elems = (0..a.elems.len())
            .map(|i| f(self, &a.elems[i], &b.elems[i], &c.elems[i]))
            .collect::<R<Vec<_>>>()?;
        Ok(Value {
            shape: a.shape.clone(),
            elems,
        })
    }
    fn in_type(&mut self, op: &Op, v: Value<D::V>) -> Value<D::V> {
        self.round_to_type(op, v)
    }

    fn int_lane(&mut self, n: i128) -> Elem<D::V> {
        Elem::Int(n as i64)
    }
    fn int_const(&self, l: &Elem<D::V>) -> Option<i64> {
        match *l {
            Elem::Int(k) => Some(k),
            _ => None,
        }
    }
    fn program_id(&self, axis: usize) -> Elem<D::V> {
        Elem::Int(self.program[axis])
    }
    fn num_programs(&self, axis: usize) -> Elem<D::V> {
        Elem::Int(self.inst.grid[axis])
    }
    fn int_abs(&mut self, bits: u32, a: &Elem<D::V>) -> R<Elem<D::V>> {
        match *a {
            Elem::Int(i) => Ok(Elem::Int(ints::abs(&mut Machine, bits, &(i as i128)) as i64)),
            other => malformed(format!("operand is {}", other.kind())),
        }
    }
    fn int_op(
        &mut self,
        _: &Op,
        io: IntOp,
        bits: u32,
        a: &Elem<D::V>,
        b: &Elem<D::V>,
    ) -> R<Elem<D::V>> {
        self.int_binary(io, bits, *a, *b)
    }
    fn int_compare(
        &mut self,
        _: &Op,
        pred: &str,
        bits: u32,
        a: &Elem<D::V>,
        b: &Elem<D::V>,
    ) -> R<Elem<D::V>> {
        self.int_compare_lane(pred, bits, *a, *b)
    }
    fn int_cast(&mut self, op: &Op, signed: bool, zext: bool, a: &Elem<D::V>) -> R<Elem<D::V>> {
        self.int_cast_lane(op, signed, zext, *a)
    }
    fn int_to_float(&mut self, _: &Op, bits: u32, unsigned: bool, a: &Elem<D::V>) -> R<Elem<D::V>> {
        self.int_to_float_lane(bits, unsigned, *a)
    }
    fn float_to_int(
        &mut self,
        op: &Op,
        bits: u32,
        unsigned: bool,
        a: &Elem<D::V>,
    ) -> R<Elem<D::V>> {
        match *a {
            // An integer-valued float of the data (`fptosi(floor(x))`).
            Elem::Float(v)
                if self.domain.as_number(v).is_none() && self.domain.int_range(v).is_some() =>
            {
                crate::exec::values::data_float_to_int(self, v, bits, unsigned, &op.name)
            }
            a => self.float_to_int_lane(bits, unsigned, a),
        }
    }
    fn poison(&mut self, op: &Op) -> R<Value<D::V>> {
        Ok(self.poison_value(op))
    }
    fn load(&mut self, op: &Op, args: &[Rc<Value<D::V>>]) -> Result<Value<D::V>, ExecError> {
        let out = Interp::load(self, op, args).map_err(|f| Interp::at(self, op, f))?;
        Ok(self.round_to_type(op, out))
    }
    fn store(&mut self, op: &Op, args: &[Rc<Value<D::V>>]) -> Result<(), ExecError> {
        Interp::store(self, op, args).map_err(|f| Interp::at(self, op, f))
    }
    fn atomic_rmw(&mut self, op: &Op, args: &[Rc<Value<D::V>>]) -> Result<Value<D::V>, ExecError> {
        let out = Interp::atomic_rmw(self, op, args).map_err(|f| Interp::at(self, op, f))?;
        Ok(self.round_to_type(op, out))
    }

    fn if_side(&mut self, op: &Op, cond: Option<&Value<D::V>>) -> Result<Side<D::V>, ExecError> {
        match cond.and_then(|v| v.single()) {
            Some(Elem::Bool(b)) => Ok(Side::Taken(b)),
            Some(Elem::Undef(u)) => Err(Interp::at(self, op, self.undefined_use(u, "an `if` condition"))),
            Some(Elem::Cond(c)) => Ok(Side::Fork(c)),
            _ => Err(Interp::at(self, op, Fail {
                kind: ErrorKind::Unsupported,
                message: "`if` on a value that depends on the data; only index-dependent branches are supported".into(),
            })),
        }
    }
    fn fork_if(&mut self, op: &Op, c: D::V, env: &mut Env<D::V>) -> Result<Vals<D::V>, ExecError> {
        self.scf_if_forked(op, c, env)
    }
    fn cond_br(
        &mut self,
        region: &Region,
        op: &Op,
        cond: Option<&Value<D::V>>,
        env: &mut Env<D::V>,
        line: u32,
        loc: &Loc,
    ) -> Result<Jump<Value<D::V>>, ExecError> {
        match cond.and_then(|v| v.single()) {
            Some(Elem::Bool(true)) => Ok(Jump::To(0)),
            Some(Elem::Bool(false)) => Ok(Jump::To(1)),
            Some(Elem::Undef(u)) => Err(Interp::at(self, op, self.undefined_use(u, "a branch condition"))),
            // both successors run to the region's end, merged by `c`
            Some(Elem::Cond(c)) => Ok(Jump::Ended(self.fork_branch(region, op, c, env, line, loc)?)),
            _ => Err(Interp::at(self, op, Fail {
                kind: ErrorKind::Unsupported,
                message: "branch on a value that depends on the data; only index-dependent branches are supported".into(),
            })),
        }
    }

    fn loop_bounds(
        &mut self,
        op: &Op,
        args: &[Rc<Value<D::V>>],
    ) -> Result<(i64, i64, i64), ExecError> {
        let int = |i: usize| match args.get(i).and_then(|v| v.single()) {
            Some(Elem::Int(v)) => Ok(v),
            Some(Elem::Undef(u)) => {
                Err(Interp::at(self, op, self.undefined_use(u, "a loop bound")))
            }
            Some(Elem::DataInt { .. }) => {
                Err(Interp::at(self, op, select::data_int_use("a loop bound")))
            }
            _ => Err(Interp::at(
                self,
                op,
                Fail {
                    kind: ErrorKind::Malformed,
                    message: "loop bounds must be integers".into(),
                },
            )),
        };
        let (lb, ub, step) = (int(0)?, int(1)?, int(2)?);
        if step <= 0 {
            return Err(Interp::at(
                self,
                op,
                Fail {
                    kind: ErrorKind::Malformed,
                    message: format!("loop step {step} is not positive"),
                },
            ));
        }
        Ok((lb, ub, step))
    }
    fn trip(&mut self, _: &Op, iv: &i64, ub: &i64, _: &i64, _: u32) -> Result<Trip, ExecError> {
        Ok(if iv < ub { Trip::Run } else { Trip::Done })
    }
    fn next_count(&mut self, op: &Op, iv: &i64, step: &i64) -> Result<i64, ExecError> {
        // The counter wraps in its width as on the GPU (a loop near 2^31 then runs
        // on from a negative counter, and its accesses show it).
        let bits = op.operand_types.first().map_or(64, int::width);
        let next = int::wrap(*iv as i128 + *step as i128, bits);
        if next < *iv {
            self.warn_once(format!(
                "the loop counter of scf.for at line {} wraps from {iv} to {next} (i{bits})",
                op.line
            ));
        }
        Ok(next)
    }
    fn counter(&self, iv: &i64) -> Value<D::V> {
        Value::scalar(Elem::Int(*iv))
    }
    fn loop_summary(
        &mut self,
        op: &Op,
        _: &Region,
        _: i64,
        _: i64,
        _: i64,
        _: Vals<D::V>,
        _: &mut Env<D::V>,
    ) -> Result<Vals<D::V>, ExecError> {
        let message = "the bounded run counts every trip".into();
        Err(Interp::at(
            self,
            op,
            Fail {
                kind: ErrorKind::Malformed,
                message,
            },
        ))
    }

    fn scf_while(&mut self, op: &Op, env: &mut Env<D::V>) -> Result<Vals<D::V>, ExecError> {
        Interp::scf_while(self, op, env)
    }
}

impl<'a, D: Domain> Interp<'a, D> {
    /// The error for a `scf.while` that spins with nothing changing: a deadlock where a
    /// failed compare-and-swap found a lock never given back, else a wait on another
    /// program, which the run (programs one after another) cannot model.
    fn spin_blocked(&self, op: &Op) -> ExecError {
        let fail = match &self.order.blocked {
            Some(why) => Fail {
                kind: ErrorKind::Deadlock,
                message: format!("the loop spins forever: {why}"),
            },
            None => Fail {
                kind: ErrorKind::Unsupported,
                message: "the loop spins on memory that no program changes while it runs (a wait for another program: the programs run one after another here)".into(),
            },
        };
        self.at(op, fail)
    }

    /// `out` rounded to the result type of `op` under `--precision ieee`.
    fn round_to_type(&mut self, op: &Op, out: Value<D::V>) -> Value<D::V> {
        match precision::result_kind(&*self.domain, op) {
            Some(kind) => precision::value_in_type(&mut *self.domain, kind, out),
            None => out,
        }
    }

    pub(super) fn scf_while(
        &mut self,
        op: &Op,
        env: &mut Env<D::V>,
    ) -> Result<Vec<Rc<Value<D::V>>>, ExecError> {
        let mut carried = self.operands(op, env)?;
        let (Some(before), Some(after)) = (op.regions.first(), op.regions.get(1)) else {
            return Err(self.at(
                op,
                Fail {
                    kind: ErrorKind::Malformed,
                    message: "scf.while needs two regions".into(),
                },
            ));
        };
        // A spin: a trip that starts as the last one did (the same carried values, no
        // store or atomic changed memory since) repeats forever, since no other program
        // runs meanwhile. It is blocked (docs/semantics.md, "Atomics and locks").
        let mut last: Option<(Vals<D::V>, u64)> = None;
        loop {
            if last
                .as_ref()
                .is_some_and(|(c, e)| *e == self.effects && *c == carried)
            {
                return Err(self.spin_blocked(op));
            }
            last = Some((carried.clone(), self.effects));
            let Flow::Yield(cond_args) =
                walk::region(self, before, carried, env, op.line, &op.loc)?
            else {
                return Err(self.at(
                    op,
                    Fail {
                        kind: ErrorKind::Unsupported,
                        message: "return inside a while".into(),
                    },
                ));
            };
            let Some((cond, rest)) = cond_args.split_first() else {
                return Err(self.at(
                    op,
                    Fail {
                        kind: ErrorKind::Malformed,
                        message: "scf.condition without a condition".into(),
                    },
                ));
            };
            match cond.single() {
                Some(Elem::Bool(true)) => {}
                Some(Elem::Bool(false)) => return Ok(rest.to_vec()),
                Some(Elem::Undef(u)) => {
                    return Err(self.at(op, self.undefined_use(u, "a `while` condition")))
                }
                _ => {
                    return Err(self.at(
                        op,
                        Fail {
                            kind: ErrorKind::Unsupported,
                            message: "`while` condition depends on the data".into(),
                        },
                    ))
                }
            }
            let Flow::Yield(next) =
                walk::region(self, after, rest.to_vec(), env, op.line, &op.loc)?
            else {
                return Err(self.at(
                    op,
                    Fail {
                        kind: ErrorKind::Unsupported,
                        message: "return inside a while".into(),
                    },
                ));
            };
            carried = next;
        }
    }
}
