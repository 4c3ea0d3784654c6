//! The semantics of each TTIR op (`tt`, `arith`, `math`, `scf`, `cf`).

use super::domain::{Binary, Domain, Precision, Truth};
use super::precision;
use super::value::{strides, unravel, Elem, Value};
use super::{ErrorKind, ExecError, Execution, Options, StoreSite, MAX_OPS};
use crate::launch::{Instance, Role};
use crate::term::{CmpOp, Func};
use crate::triton_ir::ast::{
    Attr, Block, FloatKind, Func as IrFunc, Loc, Module, Op, Region, Scalar, Type,
};
use rustc_hash::FxHashMap;
use std::rc::Rc;

mod fork;
mod gather;
pub(crate) mod int;
mod masked;
mod select;

type Env<V> = FxHashMap<String, Rc<Value<V>>>;

/// An error before it is tied to an op.
#[derive(Debug)]
struct Fail {
    kind: ErrorKind,
    message: String,
}

type R<T> = Result<T, Fail>;

fn fail<T>(kind: ErrorKind, message: impl Into<String>) -> R<T> {
    Err(Fail {
        kind,
        message: message.into(),
    })
}

fn malformed<T>(message: impl Into<String>) -> R<T> {
    fail(ErrorKind::Malformed, message)
}

/// How a region ended.
enum Flow<V> {
    /// `scf.yield`, `tt.reduce.return`, `scf.condition`, or falling off the end.
    Yield(Vec<Rc<Value<V>>>),
    /// `tt.return`.
    Return(Vec<Rc<Value<V>>>),
}

/// Memory of one tensor: what has been written, and by whom.
#[derive(Clone)]
struct Memory<V> {
    written: Vec<Option<(V, usize, [i64; 3])>>,
}

pub(super) struct Interp<'a, D: Domain> {
    module: &'a Module,
    inst: &'a Instance,
    domain: &'a mut D,
    options: Options,
    memory: Vec<Memory<D::V>>,
    store_sites: Vec<StoreSite>,
    /// (ttir line, source) of loads whose masked-off lanes had no `other=`.
    undef_loads: Vec<(u32, Loc)>,
    warnings: Vec<String>,
    program: [i64; 3],
    ops: u64,
    depth: u32,
    /// The conditions of the enclosing branches on the data, each with the side taken
    /// (`fork.rs`): a gather reads nothing for an index value they rule out.
    path: Vec<(D::V, bool)>,
}

impl<'a, D: Domain> Interp<'a, D> {
    pub(super) fn new(
        module: &'a Module,
        inst: &'a Instance,
        options: Options,
        domain: &'a mut D,
    ) -> Self {
        let memory = inst
            .tensors
            .iter()
            .map(|t| Memory {
                written: vec![None; if t.role == Role::In { 0 } else { t.numel() }],
            })
            .collect();
        Interp {
            module,
            inst,
            domain,
            options,
            memory,
            store_sites: Vec::new(),
            undef_loads: Vec::new(),
            path: Vec::new(),
            warnings: Vec::new(),
            program: [0; 3],
            ops: 0,
            depth: 0,
        }
    }

    pub(super) fn run_program(
        &mut self,
        program: [i64; 3],
        func: &IrFunc,
        args: Vec<Value<D::V>>,
    ) -> Result<(), ExecError> {
        self.program = program;
        let args = args.into_iter().map(Rc::new).collect();
        self.run_func(func, args, func.line, &func.loc)?;
        Ok(())
    }

    /// Run a function body in a fresh environment with its parameters bound.
    fn run_func(
        &mut self,
        func: &IrFunc,
        args: Vec<Rc<Value<D::V>>>,
        line: u32,
        loc: &Loc,
    ) -> Result<Vec<Rc<Value<D::V>>>, ExecError> {
        let mut env = Env::default();
        if args.len() != func.args.len() {
            return Err(ExecError {
                kind: ErrorKind::Malformed,
                message: format!(
                    "@{} takes {} arguments, given {}",
                    func.name,
                    func.args.len(),
                    args.len()
                ),
                line,
                loc: loc.clone(),
                program: self.program,
            });
        }
        // The parser may also list the parameters as the entry block's arguments (as
        // MLIR does); bind them either way.
        let entry_takes_args = func.body.blocks.first().is_some_and(|b| !b.args.is_empty());
        for (a, v) in func.args.iter().zip(&args) {
            env.insert(a.name.clone(), v.clone());
        }
        let block_args = if entry_takes_args { args } else { Vec::new() };
        match self.run_region(&func.body, block_args, &mut env, line, loc)? {
            Flow::Return(v) | Flow::Yield(v) => Ok(v),
        }
    }

    pub(super) fn finish(mut self) -> Execution<D::V> {
        let memory = &mut self.memory;
        let outputs = super::collect_outputs(self.inst, &mut *self.domain, |i| {
            std::mem::take(&mut memory[i].written)
                .into_iter()
                .map(|slot| slot.map(|(v, site, _)| (v, site)))
                .collect()
        });
        Execution {
            outputs,
            store_sites: self.store_sites,
            warnings: self.warnings,
            ops_executed: self.ops,
        }
    }

    fn at(&self, op: &Op, f: Fail) -> ExecError {
        ExecError {
            kind: f.kind,
            message: format!("{}: {}", op.name, f.message),
            line: op.line,
            loc: op.loc.clone(),
            program: self.program,
        }
    }

    /// Run a region from its entry block with `args` bound to the entry block's
    /// arguments; follows `cf.br`/`cf.cond_br` between its blocks.
    fn run_region(
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
        };
        if self.depth > 256 {
            return Err(here(
                ErrorKind::Limit,
                "call/region nesting deeper than 256".into(),
            ));
        }
        let Some(block) = region.blocks.first() else {
            return Ok(Flow::Yield(Vec::new()));
        };
        self.run_from(region, block, args, env, line, loc)
    }

    /// Run `region` from `block` (bound to `args`) to its end.
    fn run_from<'r>(
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
        };
        let mut args = args;
        self.depth += 1;
        let result = loop {
            bind_block_args(block, args, env).map_err(|m| here(ErrorKind::Malformed, m))?;
            let mut next: Option<(&Block, Vec<Rc<Value<D::V>>>)> = None;
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
                match op.name.as_str() {
                    "scf.yield" | "tt.reduce.return" | "tt.scan.return" | "scf.condition" => {
                        ended = Some(Flow::Yield(self.operands(op, env)?));
                        break;
                    }
                    "tt.return" => {
                        ended = Some(Flow::Return(self.operands(op, env)?));
                        break;
                    }
                    "cf.br" | "cf.cond_br" => {
                        let target = if op.name == "cf.br" {
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

    fn operands(&self, op: &Op, env: &Env<D::V>) -> Result<Vec<Rc<Value<D::V>>>, ExecError> {
        op.operands
            .iter()
            .map(|n| lookup(env, n))
            .collect::<R<Vec<_>>>()
            .map_err(|f| self.at(op, f))
    }

    /// Execute one non-terminator op, binding its results in `env`.
    fn op(&mut self, op: &Op, env: &mut Env<D::V>) -> Result<(), ExecError> {
        let results = match op.name.as_str() {
            "scf.for" => self.scf_for(op, env)?,
            "scf.if" => self.scf_if(op, env)?,
            "scf.while" => self.scf_while(op, env)?,
            "tt.reduce" => self.reduce(op, env)?,
            "tt.scan" => self.scan(op, env)?,
            "tt.call" => self.call(op, env)?,
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

    /// Ops without regions: one result from operand values.
    fn simple(&mut self, op: &Op, args: &[Rc<Value<D::V>>]) -> R<Value<D::V>> {
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
        // Elementwise float ops.
        if let Some(f) = unary_func(name) {
            return map1(arg(0)?, |e| self.float_unary(e, f));
        }
        if let Some(b) = float_binary(name) {
            return map2(arg(0)?, arg(1)?, |a, b2| self.float_binary(b, a, b2));
        }
        if let Some(ib) = int_binary(name) {
            let bits = op.result_types.first().map_or(64, int::width);
            return map2(arg(0)?, arg(1)?, |a, b| self.int_binary(ib, bits, a, b));
        }
        match name {
            "arith.constant" => self.constant(op),
            "tt.get_program_id" | "tt.get_num_programs" => {
                let axis = op.attr("axis").and_then(Attr::as_int).unwrap_or(0);
                if !(0..3).contains(&axis) {
                    return malformed(format!("axis {axis}"));
                }
                let v = if name == "tt.get_program_id" {
                    self.program[axis as usize]
                } else {
                    self.inst.grid[axis as usize]
                };
                Ok(Value::scalar(Elem::Int(v)))
            }
            "tt.make_range" => {
                let start = op.attr("start").and_then(Attr::as_int).unwrap_or(0);
                let end = op.attr("end").and_then(Attr::as_int).unwrap_or(0);
                let elems: Vec<_> = (start..end).map(Elem::Int).collect();
                Ok(Value {
                    shape: vec![elems.len()],
                    elems,
                })
            }
            "arith.negf" => map1(arg(0)?, |e| match e {
                Elem::Float(a) => Ok(Elem::Float(self.domain.neg(a))),
                Elem::Undef(u) => Ok(Elem::Undef(u)),
                other => malformed(format!("operand is {}", other.kind())),
            }),
            "math.fma" => map3(arg(0)?, arg(1)?, arg(2)?, |a, b, c| {
                let ab = self.float_binary(Binary::Mul, a, b)?;
                self.float_binary(Binary::Add, ab, c)
            }),
            "tt.clampf" => {
                let (max, min) = clamp_ops(op);
                map3(arg(0)?, arg(1)?, arg(2)?, |x, lo, hi| {
                    let m = self.float_binary(max, x, lo)?;
                    self.float_binary(min, m, hi)
                })
            }
            "arith.cmpf" => {
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
            "arith.cmpi" => {
                let pred = op.attr("predicate").and_then(Attr::as_str).unwrap_or("");
                let bits = op.operand_types.first().map_or(64, int::width);
                map2(arg(0)?, arg(1)?, |a, b| match (a, b) {
                    (Elem::Int(x), Elem::Int(y)) => int::compare(pred, bits, x, y).map(Elem::Bool),
                    (Elem::DataInt { .. }, Elem::Int(_) | Elem::DataInt { .. })
                    | (Elem::Int(_), Elem::DataInt { .. }) => self
                        .data_int_compare(pred, a, b)
                        .unwrap_or_else(|| malformed("integer comparison")),
                    (Elem::Bool(x), Elem::Bool(y)) => {
                        int::compare(pred, 1, -(x as i64), -(y as i64)).map(Elem::Bool)
                    }
                    (Elem::Undef(u), _) | (_, Elem::Undef(u)) => Ok(Elem::Undef(u)),
                    (a, b) => fail(
                        ErrorKind::Unsupported,
                        format!("integer comparison of {} with {}", a.kind(), b.kind()),
                    ),
                })
            }
            "arith.select" => {
                let (c, a, b) = (arg(0)?, arg(1)?, arg(2)?);
                let c = if c.shape.is_empty() && !a.shape.is_empty() {
                    Value::splat(c.elems[0], &a.shape)
                } else {
                    c.clone()
                };
                map3(&c, a, b, |c, a, b| self.select(c, a, b))
            }
            "arith.extf" | "arith.truncf" | "tt.fp_to_fp" => {
                let round = self.rounding(op);
                map1(arg(0)?, |e| match e {
                    Elem::Float(v) => Ok(Elem::Float(match round {
                        Some(f) => self.domain.func(f, v),
                        None => v,
                    })),
                    Elem::Undef(_) => Ok(e),
                    other => malformed(format!("converts {}", other.kind())),
                })
            }
            "arith.sitofp" | "arith.uitofp" => map1(arg(0)?, |e| match e {
                Elem::Int(i) if name == "arith.uitofp" => {
                    let bits = op.operand_types.first().map_or(64, int::width);
                    Ok(Elem::Float(self.domain.constant(int::unsigned(i, bits) as f64)))
                }
                Elem::Int(i) => Ok(Elem::Float(self.domain.constant(i as f64))),
                Elem::DataInt { v, lo, .. } => self.data_int_to_float(v, lo, name == "arith.uitofp"),
                Elem::Bool(b) => Ok(Elem::Float(self.domain.constant(b as u8 as f64))),
                Elem::Cond(c) => {
                    let (one, zero) = (self.domain.constant(1.0), self.domain.constant(0.0));
                    Ok(Elem::Float(self.domain.select(c, one, zero)))
                }
                Elem::Undef(u) => Ok(Elem::Undef(u)),
                other => malformed(format!("converts {}", other.kind())),
            }),
            "arith.fptosi" | "arith.fptoui" => map1(arg(0)?, |e| match e {
                Elem::Float(v) => match self.domain.as_number(v) {
                    Some(x) if x.is_finite() => Ok(Elem::Int(int::from_float(
                        x,
                        op.result_types.first().map_or(64, int::width),
                        name == "arith.fptoui",
                    ))),
                    _ => fail(
                        ErrorKind::Unsupported,
                        "float to integer cast of a value that depends on the data",
                    ),
                },
                Elem::Undef(u) => Ok(Elem::Undef(u)),
                other => malformed(format!("converts {}", other.kind())),
            }),
            "arith.extsi" | "arith.extui" | "arith.trunci" | "arith.index_cast"
            | "arith.index_castui" => {
                let to_bool = matches!(op.result_types.first().map(Type::elem), Some(Type::Int(1)));
                let signed = name == "arith.extsi";
                let bits = match op.result_types.first().map(Type::elem) {
                    Some(Type::Int(b)) => Some(*b),
                    _ => None,
                };
                let unsigned = matches!(name, "arith.extui" | "arith.index_castui");
                let src = op.operand_types.first().map_or(64, int::width);
                map1(arg(0)?, |e| match e {
                    Elem::DataInt { v, lo, hi } => self.data_int_cast(v, lo, hi, bits, unsigned),
                    Elem::Int(i) if to_bool => Ok(Elem::Bool(i & 1 == 1)),
                    Elem::Int(i) => Ok(Elem::Int(int::cast(i, src, bits.unwrap_or(64), unsigned))),
                    Elem::Bool(b) if to_bool => Ok(Elem::Bool(b)),
                    Elem::Bool(b) => Ok(Elem::Int(if b && signed { -1 } else { b as i64 })),
                    Elem::Undef(u) => Ok(Elem::Undef(u)),
                    other => fail(ErrorKind::Unsupported, format!("integer cast of {}", other.kind())),
                })
            }
            "tt.splat" => {
                let Some(e) = arg(0)?.single() else {
                    return malformed("splat of a non-scalar");
                };
                Ok(Value::splat(e, &out_shape()))
            }
            "tt.broadcast" => broadcast(arg(0)?, &out_shape()),
            "tt.expand_dims" | "tt.reshape" => {
                if op.attrs.contains_key("allow_reorder") {
                    return fail(
                        ErrorKind::Unsupported,
                        "reshape with allow_reorder has no fixed element order",
                    );
                }
                let a = arg(0)?;
                let shape = out_shape();
                if shape.iter().product::<usize>() != a.elems.len() {
                    return malformed(format!("{:?} cannot become {:?}", a.shape, shape));
                }
                Ok(Value {
                    shape,
                    elems: a.elems.clone(),
                })
            }
            "tt.trans" => {
                let order: Vec<usize> = match op.attr("order") {
                    Some(Attr::Array(v)) => v.iter().map(|&i| i.max(0) as usize).collect(),
                    _ => (0..arg(0)?.shape.len()).rev().collect(),
                };
                transpose(arg(0)?, &order)
            }
            "tt.join" => {
                let (a, b) = (arg(0)?, arg(1)?);
                if a.shape != b.shape {
                    return malformed("join of tensors of different shapes");
                }
                let mut shape = a.shape.clone();
                shape.push(2);
                let elems = a.elems.iter().zip(&b.elems).flat_map(|(x, y)| [*x, *y]).collect();
                Ok(Value { shape, elems })
            }
            "tt.addptr" => map2(arg(0)?, arg(1)?, |p, o| match (p, o) {
                (Elem::Ptr { tensor, offset }, Elem::Int(d)) => Ok(Elem::Ptr {
                    tensor,
                    offset: offset + d,
                }),
                (Elem::Undef(u), _) | (_, Elem::Undef(u)) => Ok(Elem::Undef(u)),
                (Elem::Ptr { tensor, offset }, Elem::DataInt { v, .. }) => Ok(Elem::DataPtr {
                    tensor,
                    offset,
                    idx: v,
                }),
                (Elem::DataPtr { tensor, offset, idx }, Elem::Int(d)) => Ok(Elem::DataPtr {
                    tensor,
                    offset: offset + d,
                    idx,
                }),
                (Elem::DataPtr { tensor, offset, idx }, Elem::DataInt { v, .. }) => {
                    Ok(Elem::DataPtr {
                        tensor,
                        offset,
                        idx: self.domain.binary(Binary::Add, idx, v),
                    })
                }
                (p, o) => malformed(format!("adds {} to {}", o.kind(), p.kind())),
            }),
            "tt.load" => self.load(op, args),
            "tt.store" => {
                self.store(op, args)?;
                Ok(Value::scalar(Elem::Int(0)))
            }
            "tt.dot" => {
                // Triton prints `inputPrecision = tf32` (its default on f32) and leaves
                // `ieee` unprinted; tf32x3 is about f32-accurate and stays exact.
                let tf32 = self.domain.precision() == Precision::Ieee
                    && matches!(op.attr("inputPrecision"), Some(Attr::Str(p)) if p == "tf32");
                self.dot(arg(0)?, arg(1)?, arg(2)?, tf32)
            }
            "tt.extern_elementwise" => self.extern_call(op, args),
            "ub.poison" => {
                let idx = self.undef_loads.len();
                self.undef_loads.push((op.line, op.loc.clone()));
                Ok(Value::splat(Elem::Undef(idx), &out_shape()))
            }
            // `tl.debug_barrier()`: the interpreter runs a program's tensor ops in
            // program order, every lane at once, so the threads it orders never
            // interleave here: a no-op.
            "ttg.barrier" | "gpu.barrier" => Ok(Value::scalar(Elem::Int(0))),
            "tt.assert" | "tt.print" => {
                self.warn_once(format!("{name} at line {} is ignored", op.line));
                Ok(Value::scalar(Elem::Int(0)))
            }
            _ => fail(
                ErrorKind::Unsupported,
                format!(
                    "op `{name}` is not supported by the interpreter (supported: tt, arith, math, scf and cf ops of Triton kernels; see src/exec/ops.rs)"
                ),
            ),
        }
    }

    fn warn_once(&mut self, w: String) {
        if !self.warnings.contains(&w) {
            self.warnings.push(w);
        }
    }

    fn constant(&mut self, op: &Op) -> R<Value<D::V>> {
        let ty = op.result_types.first().cloned().unwrap_or(Type::Int(32));
        let shape: Vec<usize> = ty.shape().iter().map(|&d| d.max(0) as usize).collect();
        let elem_ty = ty.elem().clone();
        let mut make = |s: &Scalar| -> R<Elem<D::V>> {
            Ok(match (s, &elem_ty) {
                (Scalar::Bool(b), _) => Elem::Bool(*b),
                (Scalar::Int(i), Type::Int(1)) => Elem::Bool(*i & 1 == 1),
                (Scalar::Int(i), Type::Float(_)) => Elem::Float(self.domain.constant(*i as f64)),
                (Scalar::Int(i), t) => Elem::Int(int::wrap(*i, int::width(t))),
                (Scalar::Float(x), _) => Elem::Float(self.domain.constant(*x)),
            })
        };
        match op.attr("value") {
            Some(Attr::Scalar(s)) => Ok(Value::splat(make(s)?, &shape)),
            Some(Attr::Int(i)) => Ok(Value::splat(make(&Scalar::Int(*i as i128))?, &shape)),
            Some(Attr::Dense { values, .. }) if values.len() == 1 => {
                Ok(Value::splat(make(&values[0])?, &shape))
            }
            Some(Attr::Dense { values, .. }) if values.len() == shape.iter().product::<usize>() => {
                let elems = values.iter().map(&mut make).collect::<R<Vec<_>>>()?;
                Ok(Value { shape, elems })
            }
            other => malformed(format!("unreadable constant value {other:?}")),
        }
    }

    fn float_unary(&mut self, e: Elem<D::V>, f: Func) -> R<Elem<D::V>> {
        match e {
            Elem::Float(a) => Ok(Elem::Float(self.domain.func(f, a))),
            Elem::Undef(u) => Ok(Elem::Undef(u)),
            Elem::Int(i) if f == Func::Abs => Ok(Elem::Int(i.abs())),
            other => malformed(format!("operand is {}", other.kind())),
        }
    }

    fn float_binary(&mut self, op: Binary, a: Elem<D::V>, b: Elem<D::V>) -> R<Elem<D::V>> {
        match (a, b) {
            (Elem::Float(x), Elem::Float(y)) => Ok(Elem::Float(self.domain.binary(op, x, y))),
            (Elem::Undef(u), _) | (_, Elem::Undef(u)) => Ok(Elem::Undef(u)),
            (a, b) => malformed(format!("operands are {} and {}", a.kind(), b.kind())),
        }
    }

    fn int_binary(&mut self, op: IntOp, bits: u32, a: Elem<D::V>, b: Elem<D::V>) -> R<Elem<D::V>> {
        match (a, b) {
            (Elem::Int(x), Elem::Int(y)) => int::arith(op, bits, x, y).map(Elem::Int),
            (Elem::DataInt { .. }, Elem::Int(_) | Elem::DataInt { .. })
            | (Elem::Int(_), Elem::DataInt { .. }) => self
                .data_int_binary(op, bits, a, b)
                .unwrap_or_else(|| malformed("integer op")),
            (Elem::Bool(x), Elem::Bool(y)) => match op {
                IntOp::And => Ok(Elem::Bool(x && y)),
                IntOp::Or => Ok(Elem::Bool(x || y)),
                IntOp::Xor => Ok(Elem::Bool(x != y)),
                _ => int::arith(op, 1, -(x as i64), -(y as i64)).map(|v| Elem::Bool(v & 1 == 1)),
            },
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

    fn select(&mut self, c: Elem<D::V>, a: Elem<D::V>, b: Elem<D::V>) -> R<Elem<D::V>> {
        match c {
            Elem::Bool(true) => Ok(a),
            Elem::Bool(false) => Ok(b),
            Elem::Undef(u) => Ok(Elem::Undef(u)),
            Elem::Cond(c) => match (a, b) {
                (Elem::Float(x), Elem::Float(y)) => Ok(Elem::Float(self.domain.select(c, x, y))),
                (Elem::Cond(x), Elem::Cond(y)) => Ok(Elem::Cond(self.domain.select(c, x, y))),
                (Elem::Undef(u), _) | (_, Elem::Undef(u)) => Ok(Elem::Undef(u)),
                (x, y) => match self.select_data_int(c, x, y) {
                    Some(r) => r,
                    None => fail(
                    ErrorKind::Unsupported,
                    format!(
                            "data-dependent select between {} and {} (only reals and integers can depend on the data)",
                            x.kind(),
                            y.kind()
                        ),
                    ),
                },
            },
            other => malformed(format!("condition is {}", other.kind())),
        }
    }

    /// Check a pointer lane and return (tensor, flat offset).
    fn address(
        &self,
        p: Elem<D::V>,
        lane: &[usize],
        shape_rank: usize,
        verb: &str,
    ) -> R<(usize, usize)> {
        let Elem::Ptr { tensor, offset } = p else {
            return match p {
                Elem::Undef(u) => {
                    Err(self.undefined_use(u, &format!("the address lane {lane:?} {verb} through")))
                }
                Elem::DataPtr { .. } => fail(
                    ErrorKind::Unsupported,
                    format!(
                        "lane {lane:?} {verb} at an offset that depends on the data (a scatter);                          only loads are split over the index's declared values"
                    ),
                ),
                other => malformed(format!("address is {}", other.kind())),
            };
        };
        let t = &self.inst.tensors[tensor];
        let n = t.numel();
        if offset < 0 || offset as usize >= n {
            let lane = if shape_rank == 0 {
                String::new()
            } else {
                format!("lane {lane:?} ")
            };
            return fail(
                ErrorKind::OutOfBounds,
                format!(
                    "out of bounds: {lane}{verb} {}[{offset}] (flat), but {} has {n} elements (shape {:?})",
                    t.name, t.name, t.shape
                ),
            );
        }
        Ok((tensor, offset as usize))
    }

    fn load(&mut self, op: &Op, args: &[Rc<Value<D::V>>]) -> R<Value<D::V>> {
        let Some(ptrs) = args.first() else {
            return malformed("no pointer operand");
        };
        let mask = args.get(1).map(|m| broadcast_scalar(m, &ptrs.shape));
        let other = args.get(2).map(|o| broadcast_scalar(o, &ptrs.shape));
        let mut elems = Vec::with_capacity(ptrs.elems.len());
        let mut undef_index = None;
        for (i, &p) in ptrs.elems.iter().enumerate() {
            let on = match mask.as_ref().map(|m| m.elems[i]) {
                None | Some(Elem::Bool(true)) => true,
                Some(Elem::Bool(false)) => false,
                Some(Elem::Undef(u)) => return Err(self.undefined_use(u, "a load mask")),
                Some(other) => {
                    return fail(
                        ErrorKind::Unsupported,
                        format!("load mask is {} that depends on the data", other.kind()),
                    )
                }
            };
            if !on {
                match &other {
                    Some(o) => elems.push(o.elems[i]),
                    None => {
                        let e = self.masked_off_lane(op, &mut undef_index);
                        elems.push(e);
                    }
                }
                continue;
            }
            let lane = unravel(i, &ptrs.shape);
            if let Elem::DataPtr {
                tensor,
                offset,
                idx,
            } = p
            {
                let v = self.gather_lane(tensor, offset, idx, &lane)?;
                let dtype = self.inst.tensors[tensor].dtype;
                elems.push(self.loaded(dtype, v));
                continue;
            }
            let (tensor, flat) = self.address(p, &lane, ptrs.shape.len(), "loads")?;
            let decl = &self.inst.tensors[tensor];
            let value = match decl.role {
                Role::In => self.domain.input(tensor, &decl.unravel(flat), flat),
                Role::Out | Role::Inout => match self.memory[tensor].written[flat] {
                    Some((v, _, _)) => v,
                    None if decl.role == Role::Inout => self.domain.input(tensor, &decl.unravel(flat), flat),
                    None => {
                        return fail(
                            ErrorKind::NeverWritten,
                            format!(
                                "lane {lane:?} reads {}{:?}, an element of output `{}` that was never written (declare it role = \"inout\" if the kernel reads its initial value)",
                                decl.name,
                                decl.unravel(flat),
                                decl.name
                            ),
                        )
                    }
                },
            };
            elems.push(self.loaded(decl.dtype, value));
        }
        Ok(Value {
            shape: ptrs.shape.clone(),
            elems,
        })
    }

    fn store(&mut self, op: &Op, args: &[Rc<Value<D::V>>]) -> R<()> {
        let (Some(ptrs), Some(vals)) = (args.first(), args.get(1)) else {
            return malformed("needs a pointer and a value");
        };
        let vals = broadcast_scalar(vals, &ptrs.shape);
        let mask = args.get(2).map(|m| broadcast_scalar(m, &ptrs.shape));
        let site = self.store_sites.len();
        let mut used_site = false;
        for (i, &p) in ptrs.elems.iter().enumerate() {
            match mask.as_ref().map(|m| m.elems[i]) {
                None | Some(Elem::Bool(true)) => {}
                Some(Elem::Bool(false)) => continue,
                Some(Elem::Undef(u)) => return Err(self.undefined_use(u, "a store mask")),
                Some(other) => {
                    return fail(
                        ErrorKind::Unsupported,
                        format!("store mask is {} that depends on the data", other.kind()),
                    )
                }
            }
            let lane = unravel(i, &ptrs.shape);
            let (tensor, flat) = self.address(p, &lane, ptrs.shape.len(), "stores")?;
            let decl = &self.inst.tensors[tensor];
            if decl.role == Role::In {
                return fail(
                    ErrorKind::WriteToInput,
                    format!(
                        "lane {lane:?} writes {}{:?}, but the launch declares `{}` as an input (use role = \"out\" or \"inout\")",
                        decl.name,
                        decl.unravel(flat),
                        decl.name
                    ),
                );
            }
            let value = match vals.elems[i] {
                Elem::Float(v) => v,
                Elem::Int(k) => self.domain.constant(k as f64),
                Elem::DataInt { v, .. } => v,
                Elem::Bool(b) => self.domain.constant(b as u8 as f64),
                Elem::Cond(c) => {
                    let (one, zero) = (self.domain.constant(1.0), self.domain.constant(0.0));
                    self.domain.select(c, one, zero)
                }
                Elem::Undef(u) => return Err(self.undefined_stored(u, tensor, flat, &lane)),
                Elem::Ptr { .. } | Elem::DataPtr { .. } => return malformed("stores a pointer"),
            };
            if let Some((_, _, prev)) = self.memory[tensor].written[flat] {
                if prev != self.program {
                    self.warn_once(format!(
                        "{}{:?} is written by programs {:?} and {:?}; the later write wins",
                        decl.name,
                        decl.unravel(flat),
                        prev,
                        self.program
                    ));
                }
            }
            used_site = true;
            self.memory[tensor].written[flat] = Some((value, site, self.program));
        }
        if used_site {
            self.store_sites.push(StoreSite {
                line: op.line,
                loc: op.loc.clone(),
            });
        }
        Ok(())
    }

    /// The rounding `--precision ieee` gives a float conversion `op`: to f16 or bf16
    /// (f8 and widenings stay exact; the verdict lists f8 as an assumption).
    fn rounding(&self, op: &Op) -> Option<Func> {
        if self.domain.precision() != Precision::Ieee {
            return None;
        }
        match op.result_types.first()?.elem() {
            Type::Float(FloatKind::F16) => Some(Func::RoundF16),
            Type::Float(FloatKind::BF16) => Some(Func::RoundBf16),
            _ => None,
        }
    }

    /// `c + a @ b`; with `tf32`, every operand rounded to tf32 before its products (the
    /// accumulation stays exact).
    fn dot(
        &mut self,
        a: &Value<D::V>,
        b: &Value<D::V>,
        c: &Value<D::V>,
        tf32: bool,
    ) -> R<Value<D::V>> {
        let (ra, rb) = (a.shape.len(), b.shape.len());
        if ra < 2 || ra != rb || c.shape.len() != ra {
            return malformed(format!("dot of shapes {:?} and {:?}", a.shape, b.shape));
        }
        let batch: usize = a.shape[..ra - 2].iter().product();
        let (m, k) = (a.shape[ra - 2], a.shape[ra - 1]);
        let (k2, n) = (b.shape[rb - 2], b.shape[rb - 1]);
        if k != k2 || c.shape[ra - 2] != m || c.shape[ra - 1] != n {
            return malformed(format!(
                "dot of shapes {:?} × {:?} + {:?}",
                a.shape, b.shape, c.shape
            ));
        }
        let mut out = Vec::with_capacity(c.elems.len());
        let mut terms = Vec::with_capacity(k + 1);
        for bt in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    terms.clear();
                    let acc = c.elems[bt * m * n + i * n + j];
                    for kk in 0..k {
                        let x = a.elems[bt * m * k + i * k + kk];
                        let y = b.elems[bt * k * n + kk * n + j];
                        // Undefined operands stay undefined (rounding leaves them).
                        let (x, y) = if tf32 {
                            (
                                self.round_elem(x, Func::RoundTf32),
                                self.round_elem(y, Func::RoundTf32),
                            )
                        } else {
                            (x, y)
                        };
                        let p = self.float_binary(Binary::Mul, x, y)?;
                        terms.push(p);
                    }
                    terms.push(acc);
                    // An undefined operand makes the whole dot product undefined.
                    if let Some(u) = masked::first_undef(&terms) {
                        out.push(Elem::Undef(u));
                        continue;
                    }
                    let mut vals = Vec::with_capacity(terms.len());
                    for t in &terms {
                        match t {
                            Elem::Float(v) => vals.push(*v),
                            other => return malformed(format!("dot operand is {}", other.kind())),
                        }
                    }
                    out.push(Elem::Float(self.domain.sum(&vals)));
                }
            }
        }
        Ok(Value {
            shape: c.shape.clone(),
            elems: out,
        })
    }

    fn round_elem(&mut self, e: Elem<D::V>, f: Func) -> Elem<D::V> {
        match e {
            Elem::Float(v) => Elem::Float(self.domain.func(f, v)),
            other => other,
        }
    }

    fn extern_call(&mut self, op: &Op, args: &[Rc<Value<D::V>>]) -> R<Value<D::V>> {
        let symbol = op.attr("symbol").and_then(Attr::as_str).unwrap_or("");
        let base = symbol.strip_prefix("__nv_").unwrap_or(symbol);
        if let Some(f) = extern_unary(symbol) {
            let a = args.first().ok_or_else(|| Fail {
                kind: ErrorKind::Malformed,
                message: format!("{symbol} needs one operand"),
            })?;
            return map1(a, |e| self.float_unary(e, f));
        }
        let two = || -> R<(&Value<D::V>, &Value<D::V>)> {
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

    fn scf_for(&mut self, op: &Op, env: &mut Env<D::V>) -> Result<Vec<Rc<Value<D::V>>>, ExecError> {
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

    fn scf_if(&mut self, op: &Op, env: &mut Env<D::V>) -> Result<Vec<Rc<Value<D::V>>>, ExecError> {
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

    fn scf_while(
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

    fn call(&mut self, op: &Op, env: &mut Env<D::V>) -> Result<Vec<Rc<Value<D::V>>>, ExecError> {
        let callee = op
            .attr("callee")
            .and_then(Attr::as_str)
            .unwrap_or("")
            .trim_start_matches('@');
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

    /// `tt.reduce` over `axis`: folds the combine region left to right.
    fn reduce(&mut self, op: &Op, env: &mut Env<D::V>) -> Result<Vec<Rc<Value<D::V>>>, ExecError> {
        let inputs = self.operands(op, env)?;
        let axis = op.attr("axis").and_then(Attr::as_int).unwrap_or(0).max(0) as usize;
        let (shape, groups) = self.lanes_along(op, &inputs, axis)?;
        let out_shape: Vec<usize> = shape
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != axis)
            .map(|(_, &d)| d)
            .collect();
        let fast = simple_combine(op);
        // Under --precision ieee an f16/bf16 combine rounds after every step.
        let in_type = match op.result_types.first().map(Type::elem) {
            Some(Type::Float(k @ (FloatKind::F16 | FloatKind::BF16)))
                if self.domain.precision() == Precision::Ieee =>
            {
                Some(*k)
            }
            _ => None,
        };
        let mut outs: Vec<Vec<Elem<D::V>>> = vec![Vec::with_capacity(groups.len()); inputs.len()];
        for lanes in &groups {
            // A reduction over lanes of which any is undefined is undefined.
            let undef = lanes
                .iter()
                .find_map(|&l| masked::first_undef(inputs.iter().map(|v| &v.elems[l])));
            if let Some(u) = undef {
                for o in outs.iter_mut() {
                    o.push(Elem::Undef(u));
                }
                continue;
            }
            if let (Some(b), 1) = (fast, inputs.len()) {
                let vals: Option<Vec<D::V>> = lanes
                    .iter()
                    .map(|&l| match inputs[0].elems[l] {
                        Elem::Float(v) => Some(v),
                        _ => None,
                    })
                    .collect();
                if let Some(vals) = vals {
                    let v = match in_type {
                        Some(kind) => precision::combine_in_type(&mut *self.domain, b, kind, &vals),
                        None => combine_all(&mut *self.domain, b, &vals),
                    };
                    outs[0].push(Elem::Float(v));
                    continue;
                }
            }
            let mut acc: Vec<Rc<Value<D::V>>> = inputs
                .iter()
                .map(|v| Rc::new(Value::scalar(v.elems[lanes[0]])))
                .collect();
            for &l in &lanes[1..] {
                let mut block_args = acc.clone();
                block_args.extend(inputs.iter().map(|v| Rc::new(Value::scalar(v.elems[l]))));
                let Some(region) = op.regions.first() else {
                    return Err(self.at(
                        op,
                        Fail {
                            kind: ErrorKind::Malformed,
                            message: "missing combine region".into(),
                        },
                    ));
                };
                acc = match self.run_region(region, block_args, env, op.line, &op.loc)? {
                    Flow::Yield(v) | Flow::Return(v) => v,
                };
            }
            for (o, a) in outs.iter_mut().zip(&acc) {
                o.push(a.single().unwrap_or(Elem::Int(0)));
            }
        }
        Ok(outs
            .into_iter()
            .map(|elems| {
                Rc::new(Value {
                    shape: out_shape.clone(),
                    elems,
                })
            })
            .collect())
    }

    /// `tt.scan`: inclusive prefix combine along `axis` (reversed if `reverse`).
    fn scan(&mut self, op: &Op, env: &mut Env<D::V>) -> Result<Vec<Rc<Value<D::V>>>, ExecError> {
        let inputs = self.operands(op, env)?;
        let axis = op.attr("axis").and_then(Attr::as_int).unwrap_or(0).max(0) as usize;
        let reverse = matches!(
            op.attr("reverse"),
            Some(Attr::Scalar(Scalar::Bool(true))) | Some(Attr::Unit)
        );
        let (shape, groups) = self.lanes_along(op, &inputs, axis)?;
        let mut outs: Vec<Vec<Elem<D::V>>> = inputs.iter().map(|v| v.elems.clone()).collect();
        let Some(region) = op.regions.first() else {
            return Err(self.at(
                op,
                Fail {
                    kind: ErrorKind::Malformed,
                    message: "missing combine region".into(),
                },
            ));
        };
        for mut lanes in groups {
            if reverse {
                lanes.reverse();
            }
            // From the first undefined lane on, every prefix is undefined.
            let first = lanes
                .iter()
                .position(|&l| masked::first_undef(inputs.iter().map(|v| &v.elems[l])).is_some());
            if let Some(p) = first {
                let u = masked::first_undef(inputs.iter().map(|v| &v.elems[lanes[p]]));
                for o in outs.iter_mut() {
                    for &l in &lanes[p..] {
                        o[l] = Elem::Undef(u.unwrap_or(0));
                    }
                }
                lanes.truncate(p);
                if lanes.is_empty() {
                    continue;
                }
            }
            let mut acc: Vec<Rc<Value<D::V>>> = inputs
                .iter()
                .map(|v| Rc::new(Value::scalar(v.elems[lanes[0]])))
                .collect();
            for &l in &lanes[1..] {
                let mut block_args = acc.clone();
                block_args.extend(inputs.iter().map(|v| Rc::new(Value::scalar(v.elems[l]))));
                acc = match self.run_region(region, block_args, env, op.line, &op.loc)? {
                    Flow::Yield(v) | Flow::Return(v) => v,
                };
                for (o, a) in outs.iter_mut().zip(&acc) {
                    o[l] = a.single().unwrap_or(Elem::Int(0));
                }
            }
        }
        Ok(outs
            .into_iter()
            .map(|elems| {
                Rc::new(Value {
                    shape: shape.clone(),
                    elems,
                })
            })
            .collect())
    }

    /// The flat positions of each line of `inputs[0]` along `axis`.
    #[allow(clippy::type_complexity)]
    fn lanes_along(
        &self,
        op: &Op,
        inputs: &[Rc<Value<D::V>>],
        axis: usize,
    ) -> Result<(Vec<usize>, Vec<Vec<usize>>), ExecError> {
        let Some(first) = inputs.first() else {
            return Err(self.at(
                op,
                Fail {
                    kind: ErrorKind::Malformed,
                    message: "no operands".into(),
                },
            ));
        };
        let shape = first.shape.clone();
        if axis >= shape.len() || shape[axis] == 0 || inputs.iter().any(|v| v.shape != shape) {
            return Err(self.at(
                op,
                Fail {
                    kind: ErrorKind::Malformed,
                    message: format!("axis {axis} of shape {shape:?}"),
                },
            ));
        }
        let st = strides(&shape);
        let mut groups = Vec::new();
        for flat in 0..first.elems.len() {
            if unravel(flat, &shape)[axis] != 0 {
                continue;
            }
            groups.push((0..shape[axis]).map(|k| flat + k * st[axis]).collect());
        }
        Ok((shape, groups))
    }
}

fn lookup<V>(env: &Env<V>, name: &str) -> R<Rc<Value<V>>> {
    env.get(name).cloned().ok_or_else(|| Fail {
        kind: ErrorKind::Malformed,
        message: format!("use of undefined value %{name}"),
    })
}

fn bind_block_args<V>(
    block: &Block,
    args: Vec<Rc<Value<V>>>,
    env: &mut Env<V>,
) -> Result<(), String> {
    if block.args.len() != args.len() {
        return Err(format!(
            "block {} takes {} arguments, given {}",
            block.label.as_deref().unwrap_or("(entry)"),
            block.args.len(),
            args.len()
        ));
    }
    for (a, v) in block.args.iter().zip(args) {
        env.insert(a.name.clone(), v);
    }
    Ok(())
}

fn truth_elem<V>(t: Truth<V>) -> Elem<V> {
    match t {
        Truth::Known(b) => Elem::Bool(b),
        Truth::Unknown(v) => Elem::Cond(v),
    }
}

/// A scalar operand used with a tensor (masks and values of `tt.load`/`tt.store`).
fn broadcast_scalar<V: Copy>(v: &Value<V>, shape: &[usize]) -> Value<V> {
    if v.shape.is_empty() && !shape.is_empty() {
        Value::splat(v.elems[0], shape)
    } else {
        v.clone()
    }
}

fn same_shape<V>(a: &Value<V>, b: &Value<V>) -> R<()> {
    if a.shape != b.shape {
        return malformed(format!(
            "operand shapes {:?} and {:?} differ",
            a.shape, b.shape
        ));
    }
    Ok(())
}

fn map1<V: Copy>(a: &Value<V>, mut f: impl FnMut(Elem<V>) -> R<Elem<V>>) -> R<Value<V>> {
    let elems = a.elems.iter().map(|&x| f(x)).collect::<R<Vec<_>>>()?;
    Ok(Value {
        shape: a.shape.clone(),
        elems,
    })
}

fn map2<V: Copy>(
    a: &Value<V>,
    b: &Value<V>,
    mut f: impl FnMut(Elem<V>, Elem<V>) -> R<Elem<V>>,
) -> R<Value<V>> {
    same_shape(a, b)?;
    let elems = a
        .elems
        .iter()
        .zip(&b.elems)
        .map(|(&x, &y)| f(x, y))
        .collect::<R<Vec<_>>>()?;
    Ok(Value {
        shape: a.shape.clone(),
        elems,
    })
}

fn map3<V: Copy>(
    a: &Value<V>,
    b: &Value<V>,
    c: &Value<V>,
    mut f: impl FnMut(Elem<V>, Elem<V>, Elem<V>) -> R<Elem<V>>,
) -> R<Value<V>> {
    same_shape(a, b)?;
    same_shape(a, c)?;
    let elems = (0..a.elems.len())
        .map(|i| f(a.elems[i], b.elems[i], c.elems[i]))
        .collect::<R<Vec<_>>>()?;
    Ok(Value {
        shape: a.shape.clone(),
        elems,
    })
}

fn broadcast<V: Copy>(a: &Value<V>, shape: &[usize]) -> R<Value<V>> {
    if a.shape.len() != shape.len() || a.shape.iter().zip(shape).any(|(&s, &d)| s != d && s != 1) {
        return malformed(format!("cannot broadcast {:?} to {:?}", a.shape, shape));
    }
    let src_strides = strides(&a.shape);
    let n: usize = shape.iter().product();
    let elems = (0..n)
        .map(|flat| {
            let idx = unravel(flat, shape);
            let src: usize = idx
                .iter()
                .zip(&a.shape)
                .zip(&src_strides)
                .map(|((&i, &s), &st)| if s == 1 { 0 } else { i * st })
                .sum();
            a.elems[src]
        })
        .collect();
    Ok(Value {
        shape: shape.to_vec(),
        elems,
    })
}

fn transpose<V: Copy>(a: &Value<V>, order: &[usize]) -> R<Value<V>> {
    let rank = a.shape.len();
    let mut seen = vec![false; rank];
    if order.len() != rank
        || order
            .iter()
            .any(|&o| o >= rank || std::mem::replace(&mut seen[o], true))
    {
        return malformed(format!("bad permutation {order:?} for rank {rank}"));
    }
    let shape: Vec<usize> = order.iter().map(|&o| a.shape[o]).collect();
    let src_strides = strides(&a.shape);
    let elems = (0..a.elems.len())
        .map(|flat| {
            let idx = unravel(flat, &shape);
            let src: usize = idx
                .iter()
                .zip(order)
                .map(|(&i, &o)| i * src_strides[o])
                .sum();
            a.elems[src]
        })
        .collect();
    Ok(Value { shape, elems })
}

pub(crate) fn unary_func(name: &str) -> Option<Func> {
    Some(match name {
        "math.exp" => Func::Exp,
        "math.exp2" => Func::Exp2,
        "math.log" => Func::Log,
        "math.log2" => Func::Log2,
        "math.sqrt" | "tt.precise_sqrt" => Func::Sqrt,
        "math.rsqrt" => Func::Rsqrt,
        "math.tanh" => Func::Tanh,
        "math.sin" => Func::Sin,
        "math.cos" => Func::Cos,
        "math.erf" => Func::Erf,
        "math.absf" | "math.absi" => Func::Abs,
        "math.floor" => Func::Floor,
        "math.ceil" => Func::Ceil,
        _ => return None,
    })
}

/// The max and min a `tt.clampf` is made of: NaN-propagating with `propagateNan =
/// all`, maxNum/minNum (NaN dropped, so a NaN `x` gives `min(lo, hi)`) with `none`, as
/// Triton's NVIDIA lowering builds them.
pub(crate) fn clamp_ops(op: &Op) -> (Binary, Binary) {
    match op.attr("propagateNan").and_then(Attr::as_str) {
        Some("all") => (Binary::Max, Binary::Min),
        _ => (Binary::MaxNum, Binary::MinNum),
    }
}

pub(crate) fn float_binary(name: &str) -> Option<Binary> {
    Some(match name {
        "arith.addf" => Binary::Add,
        "arith.subf" => Binary::Sub,
        "arith.mulf" => Binary::Mul,
        "arith.divf" | "tt.precise_divf" => Binary::Div,
        // maxnumf (`tl.maximum`'s default) drops a NaN operand, maximumf
        // (`propagate_nan=tl.PropagateNan.ALL`) returns it.
        "arith.maxnumf" => Binary::MaxNum,
        "arith.minnumf" => Binary::MinNum,
        "arith.maximumf" => Binary::Max,
        "arith.minimumf" => Binary::Min,
        _ => return None,
    })
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum IntOp {
    Add,
    Sub,
    Mul,
    DivS,
    DivU,
    RemS,
    RemU,
    CeilDiv,
    FloorDiv,
    And,
    Or,
    Xor,
    Shl,
    ShrS,
    ShrU,
    Max,
    Min,
    MaxU,
    MinU,
    CeilDivU,
}

fn int_binary(name: &str) -> Option<IntOp> {
    Some(match name {
        "arith.addi" => IntOp::Add,
        "arith.subi" => IntOp::Sub,
        "arith.muli" => IntOp::Mul,
        "arith.divsi" => IntOp::DivS,
        "arith.divui" => IntOp::DivU,
        "arith.remsi" => IntOp::RemS,
        "arith.remui" => IntOp::RemU,
        "arith.ceildivsi" => IntOp::CeilDiv,
        "arith.ceildivui" => IntOp::CeilDivU,
        "arith.floordivsi" => IntOp::FloorDiv,
        "arith.andi" => IntOp::And,
        "arith.ori" => IntOp::Or,
        "arith.xori" => IntOp::Xor,
        "arith.shli" => IntOp::Shl,
        "arith.shrsi" => IntOp::ShrS,
        "arith.shrui" => IntOp::ShrU,
        "arith.maxsi" => IntOp::Max,
        "arith.minsi" => IntOp::Min,
        "arith.maxui" => IntOp::MaxU,
        "arith.minui" => IntOp::MinU,
        _ => return None,
    })
}

/// Map a float predicate to a comparison over the reals (ordered and unordered
/// agree there); `Some(None)` for `ord`/`uno`/`true`/`false`, decided without values.
pub(crate) fn float_predicate(pred: &str) -> Option<Option<CmpOp>> {
    let base = pred
        .strip_prefix('o')
        .or_else(|| pred.strip_prefix('u'))
        .unwrap_or(pred);
    Some(match (pred, base) {
        ("ord" | "uno" | "true" | "false", _) => None,
        (_, "eq") => Some(CmpOp::Eq),
        (_, "ne") => Some(CmpOp::Ne),
        (_, "lt") => Some(CmpOp::Lt),
        (_, "le") => Some(CmpOp::Le),
        (_, "gt") => Some(CmpOp::Gt),
        (_, "ge") => Some(CmpOp::Ge),
        _ => return None,
    })
}

/// A combine region that is one float op of its two arguments (`a + b`, `max(a, b)`).
pub(crate) fn simple_combine(op: &Op) -> Option<Binary> {
    let block = op.regions.first()?.blocks.first()?;
    if block.args.len() != 2 || block.ops.len() != 2 {
        return None;
    }
    let (body, ret) = (&block.ops[0], &block.ops[1]);
    let b = float_binary(&body.name)?;
    if !matches!(
        b,
        Binary::Add | Binary::Max | Binary::Min | Binary::MaxNum | Binary::MinNum | Binary::Mul
    ) {
        return None;
    }
    let args: Vec<&str> = block.args.iter().map(|a| a.name.as_str()).collect();
    let operands: Vec<&str> = body.operands.iter().map(|s| s.as_str()).collect();
    let uses_both = operands == args || operands == [args[1], args[0]];
    let returns_it = ret.operands.len() == 1 && body.results.first() == ret.operands.first();
    (uses_both && returns_it).then_some(b)
}

/// `vals` (at least one) folded left to right by a reduction's simple combine `b`; a
/// sum as one n-ary node.
pub(crate) fn combine_all<D: Domain>(domain: &mut D, b: Binary, vals: &[D::V]) -> D::V {
    if b == Binary::Add {
        return domain.sum(vals);
    }
    let mut acc = vals[0];
    for &v in &vals[1..] {
        acc = domain.binary(b, acc, v);
    }
    acc
}

/// The real function a libdevice symbol (`__nv_tanhf`) of one operand computes, if it is
/// one of ours; the bounded and the symbolic interpreters read it alike.
pub(crate) fn extern_unary(symbol: &str) -> Option<Func> {
    let base = symbol.strip_prefix("__nv_").unwrap_or(symbol);
    Some(match base {
        "exp" | "expf" => Func::Exp,
        "exp2" | "exp2f" => Func::Exp2,
        "log" | "logf" => Func::Log,
        "log2" | "log2f" => Func::Log2,
        "sqrt" | "sqrtf" => Func::Sqrt,
        "rsqrt" | "rsqrtf" => Func::Rsqrt,
        "tanh" | "tanhf" => Func::Tanh,
        "sin" | "sinf" => Func::Sin,
        "cos" | "cosf" => Func::Cos,
        "erf" | "erff" => Func::Erf,
        "fabs" | "fabsf" => Func::Abs,
        "floor" | "floorf" => Func::Floor,
        "ceil" | "ceilf" => Func::Ceil,
        _ => return None,
    })
}
