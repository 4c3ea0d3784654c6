//! Control flow: regions and blocks (`cf.br`/`cf.cond_br` between them), `scf.for`,
//! `scf.if`, `scf.while`, `tt.call`, and the per-op dispatch that binds results.
//!
//! Invariant: a branch on an index is taken concretely; a branch on the data forks
//! (`fork.rs`) and merges; anything else is an error naming the op.

use super::interp::{bind_block_args, lookup, Env, Fail, Flow, Interp, Vals, R};
use super::{int, select};
use crate::exec::domain::Domain;
use crate::exec::error::{ErrorKind, ExecError};
use crate::exec::execution::MAX_OPS;
use crate::exec::table::{callee, op_kind, OpKind, MAX_NESTING};
use crate::exec::value::{Elem, Value};
use crate::exec::{precision, shape};
use crate::triton_ir::ast::{Block, Loc, Op, Region};
use std::rc::Rc;

impl<'a, D: Domain> Interp<'a, D> {
    /// Run a region from its entry block with `args` bound to the entry block's
    /// arguments; follows `cf.br`/`cf.cond_br` between its blocks.
    pub(super) fn run_region(
        &mut self,
        region: &Region,
        args: Vec<Rc<Value<D::V>>>,
        env: &mut Env<D::V>,
        line: u32,
        loc: &Loc,
    ) -> Result<Flow<D::V>, ExecError> {
        let program = self.program;
        let here = |kind, message: String| ExecError {
            kind,
            message,
            line,
            loc: loc.clone(),
            program,
            clash: None,
        };
        if self.depth > MAX_NESTING {
            return Err(here(
                ErrorKind::Limit,
                format!("call/region nesting deeper than {MAX_NESTING}"),
            ));
        }
        let Some(block) = region.blocks.first() else {
            return Ok(Flow::Yield(Vec::new()));
        };
        self.run_from(region, block, args, env, line, loc)
    }

    /// Run `region` from `block` (bound to `args`) to its end.
    pub(super) fn run_from<'r>(
        &mut self,
        region: &'r Region,
        mut block: &'r Block,
        args: Vec<Rc<Value<D::V>>>,
        env: &mut Env<D::V>,
        line: u32,
        loc: &Loc,
    ) -> Result<Flow<D::V>, ExecError> {
        let program = self.program;
        let here = |kind, message: String| ExecError {
            kind,
            message,
            line,
            loc: loc.clone(),
            program,
            clash: None,
        };
        let mut args = args;
        self.depth += 1;
        let result = loop {
            bind_block_args(block, args, env).map_err(|m| here(ErrorKind::Malformed, m))?;
            let mut next: Option<(&Block, Vals<D::V>)> = None;
            let mut ended = None;
            for op in &block.ops {
                self.ops += 1;
                if self.ops > MAX_OPS {
                    return Err(self.at(
                        op,
                        Fail {
                            kind: ErrorKind::Limit,
                            message: format!("more than {MAX_OPS} ops executed; use smaller sizes"),
                        },
                    ));
                }
                let kind = op_kind(&op.name);
                match kind {
                    Some(
                        OpKind::Yield
                        | OpKind::ReduceReturn
                        | OpKind::ScanReturn
                        | OpKind::Condition,
                    ) => {
                        ended = Some(Flow::Yield(self.operands(op, env)?));
                        break;
                    }
                    Some(OpKind::Return) => {
                        ended = Some(Flow::Return(self.operands(op, env)?));
                        break;
                    }
                    Some(OpKind::Br | OpKind::CondBr) => {
                        let target = if kind == Some(OpKind::Br) {
                            0
                        } else {
                            let c = self.operands(op, env)?;
                            match c.first().and_then(|v| v.single()) {
                                Some(Elem::Bool(true)) => 0,
                                Some(Elem::Bool(false)) => 1,
                                Some(Elem::Undef(u)) => {
                                    return Err(self.at(op, self.undefined_use(u, "a branch condition")))
                                }
                                Some(Elem::Cond(c)) => {
                                    // both successors run to the region's end, merged by `c`
                                    ended = Some(self.fork_branch(region, op, c, env, line, loc)?);
                                    break;
                                }
                                _ => {
                                    return Err(self.at(op, Fail {
                                        kind: ErrorKind::Unsupported,
                                        message: "branch on a value that depends on the data; only index-dependent branches are supported".into(),
                                    }))
                                }
                            }
                        };
                        let succ = op.successors.get(target).ok_or_else(|| {
                            self.at(
                                op,
                                Fail {
                                    kind: ErrorKind::Malformed,
                                    message: "missing branch target".into(),
                                },
                            )
                        })?;
                        let dest = region
                            .blocks
                            .iter()
                            .find(|b| b.label.as_deref() == Some(succ.label.as_str()))
                            .ok_or_else(|| {
                                self.at(
                                    op,
                                    Fail {
                                        kind: ErrorKind::Malformed,
                                        message: format!("no block ^{}", succ.label),
                                    },
                                )
                            })?;
                        let vals = succ
                            .args
                            .iter()
                            .map(|n| lookup(env, n))
                            .collect::<R<Vec<_>>>()
                            .map_err(|f| self.at(op, f))?;
                        next = Some((dest, vals));
                        break;
                    }
                    _ => self.op(op, env)?,
                }
            }
            if let Some(flow) = ended {
                break flow;
            }
            match next {
                Some((b, a)) => {
                    block = b;
                    args = a;
                }
                None => break Flow::Yield(Vec::new()),
            }
        };
        self.depth -= 1;
        Ok(result)
    }

    /// Execute one non-terminator op, binding its results in `env`.
    pub(super) fn op(&mut self, op: &Op, env: &mut Env<D::V>) -> Result<(), ExecError> {
        let results = match op_kind(&op.name) {
            Some(OpKind::For) => self.scf_for(op, env)?,
            Some(OpKind::If) => self.scf_if(op, env)?,
            Some(OpKind::While) => self.scf_while(op, env)?,
            Some(OpKind::Reduce) => self.reduce(op, env)?,
            Some(OpKind::Scan) => self.scan(op, env)?,
            Some(OpKind::Call) => self.call(op, env)?,
            Some(OpKind::Split) => {
                let v = self.operands(op, env)?;
                let v = v.first().map(|v| (&v.shape[..], &v.elems[..]));
                let halves = shape::split(v.map_or(&[][..], |v| v.0), v.map_or(&[][..], |v| v.1));
                let halves = halves.map_err(|message| {
                    self.at(
                        op,
                        Fail {
                            kind: ErrorKind::Malformed,
                            message,
                        },
                    )
                })?;
                halves
                    .map(|(shape, elems)| Rc::new(Value { shape, elems }))
                    .to_vec()
            }
            _ => {
                let args = self.operands(op, env)?;
                let mut out = self.simple(op, &args).map_err(|f| self.at(op, f))?;
                if let Some(kind) = precision::result_kind(&*self.domain, op) {
                    out = precision::value_in_type(&mut *self.domain, kind, out);
                }
                vec![Rc::new(out)]
            }
        };
        if results.len() < op.results.len() {
            return Err(self.at(
                op,
                Fail {
                    kind: ErrorKind::Malformed,
                    message: format!(
                        "produced {} values for {} results",
                        results.len(),
                        op.results.len()
                    ),
                },
            ));
        }
        for (name, v) in op.results.iter().zip(results) {
            env.insert(name.clone(), v);
        }
        Ok(())
    }

    pub(super) fn scf_for(
        &mut self,
        op: &Op,
        env: &mut Env<D::V>,
    ) -> Result<Vec<Rc<Value<D::V>>>, ExecError> {
        let args = self.operands(op, env)?;
        let int = |i: usize| match args.get(i).and_then(|v| v.single()) {
            Some(Elem::Int(v)) => Ok(v),
            Some(Elem::Undef(u)) => Err(self.at(op, self.undefined_use(u, "a loop bound"))),
            Some(Elem::DataInt { .. }) => Err(self.at(op, select::data_int_use("a loop bound"))),
            _ => Err(self.at(
                op,
                Fail {
                    kind: ErrorKind::Malformed,
                    message: "loop bounds must be integers".into(),
                },
            )),
        };
        let (lb, ub, step) = (int(0)?, int(1)?, int(2)?);
        if step <= 0 {
            return Err(self.at(
                op,
                Fail {
                    kind: ErrorKind::Malformed,
                    message: format!("loop step {step} is not positive"),
                },
            ));
        }
        let Some(body) = op.regions.first() else {
            return Err(self.at(
                op,
                Fail {
                    kind: ErrorKind::Malformed,
                    message: "missing body".into(),
                },
            ));
        };
        let mut carried: Vec<Rc<Value<D::V>>> = args[3..].to_vec();
        let mut iv = lb;
        while iv < ub {
            let mut block_args = Vec::with_capacity(carried.len() + 1);
            block_args.push(Rc::new(Value::scalar(Elem::Int(iv))));
            block_args.extend(carried.iter().cloned());
            match self.run_region(body, block_args, env, op.line, &op.loc)? {
                Flow::Yield(v) => carried = v,
                Flow::Return(_) => {
                    return Err(self.at(
                        op,
                        Fail {
                            kind: ErrorKind::Unsupported,
                            message: "return inside a loop".into(),
                        },
                    ))
                }
            }
            // The counter wraps in its width as on the GPU (a loop near 2^31 then runs
            // on from a negative counter, and its accesses show it).
            let bits = op.operand_types.first().map_or(64, int::width);
            let next = int::wrap(iv as i128 + step as i128, bits);
            if next < iv {
                self.warn_once(format!(
                    "the loop counter of scf.for at line {} wraps from {iv} to {next} (i{bits})",
                    op.line
                ));
            }
            iv = next;
        }
        Ok(carried)
    }

    pub(super) fn scf_if(
        &mut self,
        op: &Op,
        env: &mut Env<D::V>,
    ) -> Result<Vec<Rc<Value<D::V>>>, ExecError> {
        let args = self.operands(op, env)?;
        let cond = match args.first().and_then(|v| v.single()) {
            Some(Elem::Bool(b)) => b,
            Some(Elem::Undef(u)) => return Err(self.at(op, self.undefined_use(u, "an `if` condition"))),
            Some(Elem::Cond(c)) => return self.scf_if_forked(op, c, env),
            _ => {
                return Err(self.at(op, Fail {
                    kind: ErrorKind::Unsupported,
                    message: "`if` on a value that depends on the data; only index-dependent branches are supported".into(),
                }))
            }
        };
        let region = if cond {
            op.regions.first()
        } else {
            op.regions.get(1)
        };
        match region {
            Some(r) => match self.run_region(r, Vec::new(), env, op.line, &op.loc)? {
                Flow::Yield(v) => Ok(v),
                Flow::Return(_) => Err(self.at(
                    op,
                    Fail {
                        kind: ErrorKind::Unsupported,
                        message: "return inside an if".into(),
                    },
                )),
            },
            None => Ok(Vec::new()),
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
        loop {
            let Flow::Yield(cond_args) = self.run_region(before, carried, env, op.line, &op.loc)?
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
            let Flow::Yield(next) = self.run_region(after, rest.to_vec(), env, op.line, &op.loc)?
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

    pub(super) fn call(
        &mut self,
        op: &Op,
        env: &mut Env<D::V>,
    ) -> Result<Vec<Rc<Value<D::V>>>, ExecError> {
        let callee = callee(op).unwrap_or("");
        let module = self.module;
        let Some(func) = module.func(callee) else {
            return Err(self.at(
                op,
                Fail {
                    kind: ErrorKind::Malformed,
                    message: format!("no function @{callee}"),
                },
            ));
        };
        let args = self.operands(op, env)?;
        self.run_func(func, args, op.line, &op.loc)
    }
}
