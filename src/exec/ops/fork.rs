//! Branches on the data: `if label == ignore_index: ... return` (liger's TVD and JSD
//! kernels), `scf.if` on a loaded value.
//!
//! Where a branch condition is a boolean of the domain (a comparison of loaded values),
//! both sides run, each from the same memory, and their results are merged with
//! `select(c, then, else)`: every element of memory and every value the branch yields.
//! An element of an `inout` tensor written on one side only keeps its initial value on
//! the other; one of an `out` tensor (and never written before) would be written under
//! a condition, which no term can say: that is an `Unsupported` error, not a guess. In
//! the concrete domain every condition is decided, so no fork happens and `lift run`
//! is unchanged. Nested forks multiply the work; `MAX_OPS` bounds it.
//!
//! Integer tensors (class labels) load as integers: concrete where the domain knows the
//! value, else [`Elem::DataInt`] over the dtype's range, so `label == ignore_index`
//! is such a condition.

use super::interp::{fail, Env, Flow, Interp, Memory, R};
use crate::exec::domain::Domain;
use crate::exec::error::{ErrorKind, ExecError};
use crate::exec::value::{Elem, Value};
use crate::launch::{Dtype, Role};
use crate::triton_ir::ast::{Loc, Op, Region};
use std::rc::Rc;

impl<'a, D: Domain> Interp<'a, D> {
    /// An element loaded from a tensor of `dtype`.
    pub(super) fn loaded(&self, dtype: Dtype, v: D::V) -> Elem<D::V> {
        let Some((lo, hi)) = dtype.int_range().filter(|_| dtype != Dtype::Bool) else {
            return Elem::Float(v);
        };
        // The launch's declared `values` narrow the dtype's range.
        let (lo, hi) = match self.domain.int_range(v) {
            Some((a, b)) if a >= lo && b <= hi => (a, b),
            _ => (lo, hi),
        };
        match self.domain.as_number(v) {
            Some(x) if x.fract() == 0.0 && x >= lo as f64 && x <= hi as f64 => Elem::Int(x as i64),
            // one declared value (a lock or counter the caller zeroes: `values = [0]`)
            _ if lo == hi => Elem::Int(lo as i64),
            _ => Elem::DataInt {
                v,
                lo: lo.max(i64::MIN as i128) as i64,
                hi: hi.min(i64::MAX as i128) as i64,
            },
        }
    }

    /// `cf.cond_br` on `c`: both successors of `op` run to the end of `region`.
    pub(super) fn fork_branch(
        &mut self,
        region: &Region,
        op: &Op,
        c: D::V,
        env: &mut Env<D::V>,
        line: u32,
        loc: &Loc,
    ) -> Result<Flow<D::V>, ExecError> {
        let mut sides = Vec::with_capacity(2);
        let before = self.memory.clone();
        for (k, succ) in op.successors.iter().take(2).enumerate() {
            let Some(dest) = region
                .blocks
                .iter()
                .find(|b| b.label.as_deref() == Some(succ.label.as_str()))
            else {
                return Err(self.at(op, malformed_fail(format!("no block ^{}", succ.label))));
            };
            let args = succ
                .args
                .iter()
                .map(|n| super::interp::lookup(env, n))
                .collect::<R<Vec<_>>>()
                .map_err(|f| self.at(op, f))?;
            self.memory = before.clone();
            let mut side_env = env.clone();
            self.path.push((c, k == 0));
            let flow = crate::exec::walk::from(self, region, dest, args, &mut side_env, line, loc);
            self.path.pop();
            let flow = flow?;
            sides.push((flow, std::mem::take(&mut self.memory)));
        }
        let (Some((else_flow, else_mem)), Some((then_flow, then_mem))) = (sides.pop(), sides.pop())
        else {
            return Err(self.at(op, malformed_fail("cf.cond_br needs two successors".into())));
        };
        self.memory = self
            .merge_memory(c, then_mem, else_mem)
            .map_err(|f| self.at(op, f))?;
        match (then_flow, else_flow) {
            (Flow::Return(a), Flow::Return(b)) => Ok(Flow::Return(
                self.merge_values(c, a, b).map_err(|f| self.at(op, f))?,
            )),
            (Flow::Yield(a), Flow::Yield(b)) => Ok(Flow::Yield(
                self.merge_values(c, a, b).map_err(|f| self.at(op, f))?,
            )),
            _ => Err(self.at(
                op,
                super::interp::Fail {
                    kind: ErrorKind::Unsupported,
                    message:
                        "a branch on the data whose sides end differently (one returns, one yields)"
                            .into(),
                },
            )),
        }
    }

    /// `scf.if` on `c`: both regions run, their memory and results merged.
    pub(super) fn scf_if_forked(
        &mut self,
        op: &Op,
        c: D::V,
        env: &mut Env<D::V>,
    ) -> Result<Vec<Rc<Value<D::V>>>, ExecError> {
        let before = self.memory.clone();
        let mut sides = Vec::with_capacity(2);
        for k in 0..2 {
            self.memory = before.clone();
            self.path.push((c, k == 0));
            let ran = op
                .regions
                .get(k)
                .map(|r| crate::exec::walk::region(self, r, Vec::new(), env, op.line, &op.loc));
            self.path.pop();
            let yielded = match ran {
                Some(ran) => match ran? {
                    Flow::Yield(v) => v,
                    Flow::Return(_) => {
                        return Err(self.at(
                            op,
                            super::interp::Fail {
                                kind: ErrorKind::Unsupported,
                                message: "return inside an if".into(),
                            },
                        ))
                    }
                },
                None => Vec::new(),
            };
            sides.push((yielded, std::mem::take(&mut self.memory)));
        }
        let (else_vals, else_mem) = sides.pop().unwrap_or_default();
        let (then_vals, then_mem) = sides.pop().unwrap_or_default();
        self.memory = self
            .merge_memory(c, then_mem, else_mem)
            .map_err(|f| self.at(op, f))?;
        self.merge_values(c, then_vals, else_vals)
            .map_err(|f| self.at(op, f))
    }

    /// Memory after a fork: `select(c, then, else)` where the sides differ.
    fn merge_memory(
        &mut self,
        c: D::V,
        then_mem: Vec<Memory<D::V>>,
        else_mem: Vec<Memory<D::V>>,
    ) -> R<Vec<Memory<D::V>>> {
        let mut out = then_mem;
        for (t, (m, e)) in out.iter_mut().zip(else_mem).enumerate() {
            for (flat, (a, b)) in m.written.iter_mut().zip(e.written).enumerate() {
                *a = match (*a, b) {
                    (None, None) => None,
                    (Some(x), Some(y)) if x.0 == y.0 => Some(x),
                    (Some((x, site, prog)), Some((y, _, _))) => {
                        Some((self.domain.select(c, x, y), site, prog))
                    }
                    // an `inout` element one side leaves alone keeps its initial value
                    (Some((x, site, prog)), None) if self.inst.tensors[t].role == Role::Inout => {
                        let y = self.initial(t, flat);
                        Some((self.domain.select(c, x, y), site, prog))
                    }
                    (None, Some((y, site, prog))) if self.inst.tensors[t].role == Role::Inout => {
                        let x = self.initial(t, flat);
                        Some((self.domain.select(c, x, y), site, prog))
                    }
                    _ => {
                        let decl = &self.inst.tensors[t];
                        return fail(
                            ErrorKind::Unsupported,
                            format!(
                                "{}{:?} is written on one side of a branch on the data only (a conditional write)",
                                decl.name,
                                decl.unravel(flat)
                            ),
                        );
                    }
                };
            }
        }
        Ok(out)
    }

    /// The value element `flat` of tensor `t` has before the kernel writes it.
    fn initial(&mut self, t: usize, flat: usize) -> D::V {
        let index = self.inst.tensors[t].unravel(flat);
        self.domain.input(t, &index, flat)
    }

    /// Values after a fork, element by element.
    fn merge_values(
        &mut self,
        c: D::V,
        a: Vec<Rc<Value<D::V>>>,
        b: Vec<Rc<Value<D::V>>>,
    ) -> R<Vec<Rc<Value<D::V>>>> {
        if a.len() != b.len() {
            return fail(
                ErrorKind::Malformed,
                "the sides of a branch yield different arities",
            );
        }
        let mut out = Vec::with_capacity(a.len());
        for (x, y) in a.iter().zip(&b) {
            if x.shape != y.shape {
                return fail(
                    ErrorKind::Malformed,
                    "the sides of a branch yield different shapes",
                );
            }
            let mut elems = Vec::with_capacity(x.elems.len());
            for (&p, &q) in x.elems.iter().zip(&y.elems) {
                elems.push(if p == q {
                    p
                } else {
                    crate::exec::values::select(self, &Elem::Cond(c), &p, &q)?
                });
            }
            out.push(Rc::new(Value {
                shape: x.shape.clone(),
                elems,
            }));
        }
        Ok(out)
    }
}

fn malformed_fail(message: String) -> super::interp::Fail {
    super::interp::Fail {
        kind: ErrorKind::Malformed,
        message,
    }
}
