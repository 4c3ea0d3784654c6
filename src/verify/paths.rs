//! One Triton program run with symbolic sizes and program ids, once per path.
//!
//! Lanes stay concrete (a block's width is a constexpr folded into the IR), integers are
//! [`Poly`]s over the sizes and `pid_x/y/z`, and reals are terms, built through the same
//! [`Symbolic`] domain the bounded interpreter uses, so both read every float op alike.
//! A loaded element is an atom named by its tensor and flat offset (`x@(N*pid_x + 3)`);
//! [`super`] later names it by its index. Whenever a condition on integers (a mask lane,
//! a select, a branch) is not decided by the path so far, Z3 says whether each side is
//! feasible, and a feasible pair forks the run: [`explore`] re-runs the program once per
//! sequence of such choices (depth first). Each path records its condition, every
//! load and store lane it performed, and the integers that may leave their width on it
//! ([`super::overflow`]).
//!
//! Invariant: a path's records hold for every size and program id satisfying its
//! condition; the paths' conditions are disjoint and together cover every (size,
//! program id) the base constraints allow. Anything this interpreter cannot read
//! symbolically is an [`Unsupported`] error, never a guess.

use super::lane::{bcast, truth, unsupported, Env, Flow, Lane, Val, R};
use super::run::{PathSolver, Run};
use super::summary::trip_count;

pub use super::lane::{atom_name, small_witness, Unsupported};
pub use super::records::{Access, ArgSym, Failure, Path, Setup, TensorSym};
use super::sym::{Cond, Poly, Rel, Smt};
use crate::exec::domain::{Domain, Symbolic};
use crate::exec::table::{
    axis, callee, extern_round_to_int, extern_unary, float_predicate, literal, op_kind, IntOp,
    Literal, OpKind, MAX_NESTING,
};
use crate::exec::{ints, shape, values};
use crate::term::{Func, Terms};
use crate::triton_ir::ast::{Attr, Block, Func as IrFunc, Module, Op, Region, Type};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// Runs the program once per path; `Err` when a construct is unsupported or the paths
/// exceed `max_paths`.
pub fn explore(
    module: &Module,
    setup: &Setup,
    smt: &Smt,
    terms: &mut Terms,
    tensor_names: Vec<std::sync::Arc<str>>,
) -> R<Vec<Path>> {
    let Some(func) = module.entry() else {
        return unsupported("the module has no tt.func");
    };
    let mut trail: Vec<bool> = Vec::new();
    let mut paths = Vec::new();
    // One solver for every path (asserting the base costs milliseconds), each path in
    // its own scope, unwound to the base before the next.
    let mut solver = Some(PathSolver::new(smt.ctx));
    for c in setup.base {
        solver.as_ref().expect("set").assert(&smt.cond(c));
    }
    loop {
        let solver_here = solver.take().expect("returned by the previous path");
        solver_here.push();
        let mut run = Run {
            module,
            setup,
            smt,
            solver: solver_here,
            domain: Symbolic {
                terms,
                tensor_names: tensor_names.clone(),
                precision: Default::default(),
            },
            trail: std::mem::take(&mut trail),
            pos: 0,
            memo: HashMap::new(),
            path: Path::default(),
            depth: 0,
            atoms: Default::default(),
            partials: HashMap::new(),
            loops: Vec::new(),
            loop_count: 0,
            probing: false,
            guards: HashMap::new(),
            guard_terms: HashMap::new(),
            failed_lane_groups: Default::default(),
            resolved_lane_groups: Default::default(),
            known_cache: HashMap::new(),
            classes: None,
            assumed: Vec::new(),
            lane_known: None,
            mentions_memo: Default::default(),
            suspect: None,
            record_suspects: true,
            proved_domains: Default::default(),
            store_guard: None,
            at_memo: HashMap::new(),
            decided: HashMap::new(),
            store_pinned: BTreeMap::new(),
        };
        let mut args = Vec::new();
        for a in &func.args {
            let lane = match setup.args.get(&a.name) {
                Some(ArgSym::Tensor(t)) => Lane::Ptr {
                    tensor: *t,
                    off: Poly::default(),
                },
                Some(ArgSym::Int(p)) if a.ty == Type::Int(1) => {
                    match p.as_const().and_then(crate::exec::table::flag_value) {
                        Some(b) => Lane::Bool(Cond::Const(b)),
                        None => {
                            return unsupported(format!(
                                "bool parameter `{}` is not bound to true, false, 0 or 1",
                                a.name
                            ))
                        }
                    }
                }
                Some(ArgSym::Int(p)) => Lane::Int(p.clone()),
                Some(ArgSym::Real(v)) => match &a.ty {
                    Type::Float(k) => {
                        Lane::Float(run.domain.constant(crate::exec::typed_value(*k, *v)))
                    }
                    _ => return unsupported(format!("parameter `{}` is not a float", a.name)),
                },
                Some(ArgSym::Scalar(s)) => Lane::Float(run.domain.terms.param(s)),
                None => return unsupported(format!("parameter `{}` is not bound", a.name)),
            };
            args.push(Rc::new(Val::scalar(lane)));
        }
        if let Err(e) = run.run_func(func, args) {
            // An access already shown to leave its tensor at some sizes is the finding,
            // whatever stopped the run after it.
            if let Some(f) = run.path.failures.iter().find(|f| f.witness.is_some()) {
                return Err(Unsupported {
                    message: f.message.clone(),
                    line: f.line,
                    loc: f.loc.clone(),
                    witness: f.witness.clone(),
                });
            }
            return Err(e);
        }
        trail = std::mem::take(&mut run.trail);
        let Run {
            solver: used, path, ..
        } = run;
        used.unwind();
        solver = Some(used);
        paths.push(path);
        if setup
            .work
            .step(1)
            .and(setup.work.z3(solver.as_ref().expect("set")))
            .is_err()
        {
            let after = format!("after {} mask/branch cases", paths.len());
            return unsupported(setup.work.reason(&after));
        }
        if paths.len() > setup.max_paths {
            return unsupported(format!(
                "more than {} mask/branch cases; the blocks are too wide for this prover",
                setup.max_paths
            ));
        }
        // Depth first: flip the last `true` choice, drop the choices after it.
        while trail.last() == Some(&false) {
            trail.pop();
        }
        match trail.last_mut() {
            Some(last) => *last = false,
            None => return Ok(paths),
        }
    }
}

impl Run<'_, '_, '_> {
    fn run_func(&mut self, func: &IrFunc, args: Vec<Rc<Val>>) -> R<Vec<Rc<Val>>> {
        let mut env = Env::new();
        match self.run_region(&func.body, args, &mut env)? {
            Flow::Return(v) | Flow::Yield(v) => Ok(v),
        }
    }

    pub(super) fn run_region(
        &mut self,
        region: &Region,
        args: Vec<Rc<Val>>,
        env: &mut Env,
    ) -> R<Flow> {
        if self.depth > MAX_NESTING as usize {
            return unsupported(format!("call/region nesting deeper than {MAX_NESTING}"));
        }
        let Some(block) = region.blocks.first() else {
            return Ok(Flow::Yield(Vec::new()));
        };
        if region.blocks.len() > 1 {
            return unsupported("unstructured control flow (several blocks)");
        }
        self.depth += 1;
        let r = self.run_block(block, args, env);
        self.depth -= 1;
        r
    }

    fn run_block(&mut self, block: &Block, args: Vec<Rc<Val>>, env: &mut Env) -> R<Flow> {
        if block.args.len() != args.len() {
            return unsupported("block argument count mismatch");
        }
        for (a, v) in block.args.iter().zip(args) {
            env.insert(a.name.clone(), v);
        }
        for op in &block.ops {
            let at = |mut e: Unsupported| {
                if e.line == 0 {
                    e.line = op.line;
                    e.loc = op.loc.clone();
                }
                e
            };
            match op_kind(&op.name) {
                Some(OpKind::Yield | OpKind::ReduceReturn) => {
                    return Ok(Flow::Yield(self.operands(op, env).map_err(at)?))
                }
                Some(OpKind::Return) => {
                    return Ok(Flow::Return(self.operands(op, env).map_err(at)?))
                }
                _ => {}
            }
            let results = self.op(op, env).map_err(at)?;
            for (name, v) in op.results.iter().zip(results) {
                env.insert(name.clone(), v);
            }
        }
        Ok(Flow::Yield(Vec::new()))
    }

    fn operands(&self, op: &Op, env: &Env) -> R<Vec<Rc<Val>>> {
        op.operands
            .iter()
            .map(|n| match env.get(n) {
                Some(v) => Ok(v.clone()),
                None => unsupported(format!("use of undefined value {n}")),
            })
            .collect()
    }

    fn op(&mut self, op: &Op, env: &mut Env) -> R<Vec<Rc<Val>>> {
        match op_kind(&op.name) {
            Some(OpKind::If) => return self.scf_if(op, env),
            Some(OpKind::For) => return self.scf_for(op, env),
            Some(OpKind::Reduce) => return self.reduce(op, env),
            Some(OpKind::Split) => {
                let v = self.operands(op, env)?;
                let v = v.first().map(|v| (&v.shape[..], &v.lanes[..]));
                match shape::split(v.map_or(&[][..], |v| v.0), v.map_or(&[][..], |v| v.1)) {
                    Ok(h) => {
                        return Ok(h
                            .map(|(shape, lanes)| Rc::new(Val { shape, lanes }))
                            .to_vec())
                    }
                    Err(m) => return unsupported(m),
                }
            }
            Some(OpKind::Call) => {
                let Some(callee) = callee(op) else {
                    return unsupported("tt.call without a callee");
                };
                let Some(f) = self.module.func(callee) else {
                    return unsupported(format!("call of unknown function @{callee}"));
                };
                let args = self.operands(op, env)?;
                self.depth += 1;
                let r = self.run_func(f, args);
                self.depth -= 1;
                return r;
            }
            _ => {}
        }
        let args = self.operands(op, env)?;
        let v = self.simple(op, &args)?;
        Ok(vec![Rc::new(v)])
    }

    fn simple(&mut self, op: &Op, args: &[Rc<Val>]) -> R<Val> {
        let name = op.name.as_str();
        let arg = |i: usize| -> R<&Val> {
            match args.get(i) {
                Some(v) => Ok(v),
                None => unsupported(format!("{name}: missing operand {i}")),
            }
        };
        let bits = op.result_types.first().map_or(64, super::overflow::width);
        let not_read = || unsupported(format!("op {name} is not read for all sizes yet"));
        let Some(kind) = op_kind(name) else {
            return not_read();
        };
        if shape::is_lane_move(kind) {
            let ins: Vec<_> = args.iter().map(|v| (&v.shape[..], &v.lanes[..])).collect();
            return match shape::lane_move(kind, op, &ins) {
                Ok((shape, lanes)) => Ok(Val { shape, lanes }),
                Err((_, message)) => unsupported(format!("{name}: {message}")),
            };
        }
        let libdevice = match (kind, op.attr("symbol").and_then(Attr::as_str)) {
            (OpKind::Extern, Some(sym)) => extern_unary(sym),
            (OpKind::Unary(f), _) => Some(f),
            _ => None,
        };
        if let Some(f) = libdevice {
            let v = self.map1(arg(0)?, |r, l| match l {
                Lane::Float(x) => Ok(Lane::Float(r.domain.func(f, x))),
                // `math.absi`
                Lane::Int(p) if f == Func::Abs => Ok(Lane::Int(ints::abs(r, bits, &p))),
                _ => unsupported(format!("{name} of a non-float")),
            })?;
            if v.lanes.iter().any(|l| matches!(l, Lane::Int(_))) {
                self.fits_width(&v, bits, &format!("i{bits} index arithmetic"), op)?;
            }
            return Ok(v);
        }
        match kind {
            OpKind::Binary(b) => self.map2(arg(0)?, arg(1)?, |r, x, y| {
                values::float_binary(r, b, &x, &y).map_err(named(name))
            }),
            OpKind::Int(io) => {
                let v = self.map2(arg(0)?, arg(1)?, |r, x, y| match (x, y) {
                    (Lane::Int(a), Lane::Int(b)) => ints::binary(r, io, bits, &a, &b)
                        .map(Lane::Int)
                        .map_err(named(name)),
                    (Lane::Bool(a), Lane::Bool(b)) => ints::logic(r, io, &a, &b)
                        .map(Lane::Bool)
                        .map_err(named(name)),
                    (Lane::FBool(a), Lane::FBool(b)) => {
                        let t = match io {
                            IntOp::And => r.domain.and(a, b),
                            IntOp::Or => r.domain.or(a, b),
                            _ => return unsupported("xor of data-dependent conditions"),
                        };
                        Ok(truth(t))
                    }
                    (Lane::Bool(c), Lane::FBool(f)) | (Lane::FBool(f), Lane::Bool(c)) => {
                        // Decide the integer side on this path.
                        let b = r.decide(&c)?;
                        Ok(match (io, b) {
                            (IntOp::And, true) | (IntOp::Or, false) => Lane::FBool(f),
                            (IntOp::And, false) => Lane::Bool(Cond::Const(false)),
                            (IntOp::Or, true) => Lane::Bool(Cond::Const(true)),
                            _ => return unsupported("xor of data-dependent conditions"),
                        })
                    }
                    _ => unsupported(format!("{name} of non-integers")),
                })?;
                if ints::can_wrap(io) {
                    self.fits_width(&v, bits, &format!("i{bits} index arithmetic"), op)?;
                }
                Ok(v)
            }
            OpKind::IntCast {
                signed,
                zero_extend,
            } => {
                // Exact where the value fits the target (a narrowing is an obligation).
                let src = op.operand_types.first().map_or(64, super::overflow::width);
                let v = self.map1(arg(0)?, |r, l| match l {
                    Lane::Int(p) if bits == 1 => Ok(Lane::Bool(ints::to_bool(r, &p))),
                    Lane::Int(p) => ints::cast(r, src, bits, zero_extend, &p)
                        .map(Lane::Int)
                        .map_err(named(name)),
                    Lane::Bool(c) if bits > 1 => ints::from_bool(r, &c, signed).map(Lane::Int),
                    l @ (Lane::Bool(_) | Lane::FBool(_)) => Ok(l),
                    _ => unsupported(format!("{name} of a non-integer")),
                })?;
                if bits < src {
                    self.fits_width(&v, bits, &format!("cast to i{bits}"), op)?;
                }
                Ok(v)
            }
            OpKind::Constant => self.constant(op),
            OpKind::ProgramId | OpKind::NumPrograms => {
                let axis = match axis(op) {
                    Ok(a) => a,
                    Err(m) => return unsupported(m),
                };
                let v = if kind == OpKind::ProgramId {
                    self.setup.pids[axis].clone()
                } else {
                    self.setup.grid[axis].clone()
                };
                Ok(Val::scalar(Lane::Int(v)))
            }
            OpKind::MakeRange => {
                let lanes: Vec<Lane> = shape::make_range(op)
                    .map(|i| Lane::Int(Poly::constant(i as i128)))
                    .collect();
                Ok(Val {
                    shape: vec![lanes.len()],
                    lanes,
                })
            }
            OpKind::NegF => self.map1(arg(0)?, |r, l| match l {
                Lane::Float(x) => Ok(Lane::Float(r.domain.neg(x))),
                _ => unsupported("negf of a non-float"),
            }),
            OpKind::Fma => self.map3(arg(0)?, arg(1)?, arg(2)?, |r, a, b, c| {
                values::fma(r, &a, &b, &c).map_err(named(name))
            }),
            OpKind::CmpI => {
                let pred = op.attr("predicate").and_then(Attr::as_str).unwrap_or("");
                let pred = pred.to_string();
                let bits = op.operand_types.first().map_or(64, super::overflow::width);
                self.map2(arg(0)?, arg(1)?, |r, x, y| match (x, y) {
                    (Lane::Int(a), Lane::Int(b)) => ints::compare(r, &pred, bits, &a, &b)
                        .map(Lane::Bool)
                        .map_err(named(name)),
                    (Lane::Bool(a), Lane::Bool(b)) => ints::compare_conds(r, &pred, &a, &b)
                        .map(Lane::Bool)
                        .map_err(named(name)),
                    _ => unsupported("cmpi of non-integers"),
                })
            }
            OpKind::CmpF => {
                let pred = op.attr("predicate").and_then(Attr::as_str).unwrap_or("");
                if float_predicate(pred).is_none() {
                    return unsupported(format!("cmpf predicate {pred}"));
                }
                // IEEE's ordered and unordered predicates, as the bounded run reads them.
                self.map2(arg(0)?, arg(1)?, |r, x, y| match (x, y) {
                    (Lane::Float(a), Lane::Float(b)) => match r.domain.cmpf(pred, a, b) {
                        Some(t) => Ok(truth(t)),
                        None => unsupported(format!("cmpf predicate {pred}")),
                    },
                    _ => unsupported("cmpf of non-floats"),
                })
            }
            OpKind::Select => self.map3(arg(0)?, arg(1)?, arg(2)?, |r, c, a, b| {
                values::select(r, &c, &a, &b)
            }),
            OpKind::Bitcast => self.map1(arg(0)?, |r, l| {
                values::bitcast(r, op, &l).map_err(named(name))
            }),
            OpKind::Extern
                if op
                    .attr("symbol")
                    .and_then(Attr::as_str)
                    .is_some_and(extern_round_to_int) =>
            {
                self.map1(arg(0)?, |r, l| {
                    values::round_to_int(r, &l).map_err(named(name))
                })
            }
            OpKind::FloatCast => self.map1(arg(0)?, |r, l| {
                values::float_cast(r, op, &l).map_err(named(name))
            }),
            OpKind::IntToFloat { unsigned } => {
                let src = op.operand_types.first().map_or(64, super::overflow::width);
                self.map1(arg(0)?, |r, l| match l {
                    Lane::Int(p) => {
                        let p = ints::as_converted(r, src, unsigned, &p).map_err(named(name))?;
                        Ok(Lane::Float(match p.as_const().or_else(|| r.pinned(&p)) {
                            Some(c) => r.domain.constant(c as f64),
                            None => super::at_index::real_of(r.domain.terms, &p),
                        }))
                    }
                    Lane::Bool(c) => {
                        let x = ints::from_bool(r, &c, !unsigned)?;
                        let x = x.as_const().expect("from_bool is a constant");
                        Ok(Lane::Float(r.domain.constant(x as f64)))
                    }
                    Lane::DataInt(v, lo) if lo >= 0 || !unsigned => Ok(Lane::Float(v)),
                    _ => unsupported(format!("{name} of a non-integer")),
                })
            }
            OpKind::FloatToInt { unsigned } => self.map1(arg(0)?, |r, l| match l {
                Lane::Float(t)
                    if r.domain.as_number(t).is_none() && r.domain.int_range(t).is_some() =>
                {
                    values::data_float_to_int(r, t, bits, unsigned, name).map_err(named(name))
                }
                Lane::Float(t) => {
                    let x = r.domain.as_number(t);
                    ints::from_float(r, x, bits, unsigned)
                        .map(Lane::Int)
                        .map_err(named(name))
                }
                _ => unsupported(format!("{name} of a non-float")),
            }),
            OpKind::AddPtr => self.map2(arg(0)?, arg(1)?, |r, p, o| {
                values::add_ptr(r, &p, &o).map_err(named(name))
            }),
            OpKind::Load => self.load(op, args),
            OpKind::Store => {
                self.store(op, args)?;
                Ok(Val::scalar(Lane::Int(Poly::default())))
            }
            OpKind::Dot => {
                // tf32 inputs are read as exact (Precision::Real), as the bounded run
                // reads them without `--precision ieee`.
                let (a, b, c) = (arg(0)?, arg(1)?, arg(2)?);
                let (shape, lanes) = values::dot(
                    self,
                    (&a.shape, &a.lanes),
                    (&b.shape, &b.lanes),
                    (&c.shape, &c.lanes),
                    false,
                )
                .map_err(named(name))?;
                Ok(Val { shape, lanes })
            }
            OpKind::Debug => Ok(Val::scalar(values::debug(self, op))),
            _ => not_read(),
        }
    }

    fn constant(&mut self, op: &Op) -> R<Val> {
        let (shape, values) = match literal(op) {
            Ok(c) => c,
            Err(m) => return unsupported(m),
        };
        let mut lanes: Vec<Lane> = values
            .iter()
            .map(|l| match *l {
                Literal::Bool(b) => Lane::Bool(Cond::Const(b)),
                Literal::Int(i) => Lane::Int(Poly::constant(i)),
                Literal::Float(x) => Lane::Float(self.domain.constant(x)),
            })
            .collect();
        if lanes.len() == 1 {
            return Ok(Val::splat(lanes.remove(0), &shape));
        }
        Ok(Val { shape, lanes })
    }

    fn scf_if(&mut self, op: &Op, env: &mut Env) -> R<Vec<Rc<Val>>> {
        let args = self.operands(op, env)?;
        let c = match args.first().map(|v| &v.lanes[..]) {
            Some([Lane::Bool(c)]) => c.clone(),
            _ => return unsupported("scf.if on a data-dependent or non-scalar condition"),
        };
        let taken = self.decide(&c)?;
        let region = if taken {
            op.regions.first()
        } else {
            op.regions.get(1)
        };
        match region {
            Some(r) => match self.run_region(r, Vec::new(), env)? {
                Flow::Yield(v) => Ok(v),
                Flow::Return(_) => unsupported("return inside scf.if"),
            },
            None => Ok(Vec::new()),
        }
    }

    fn scf_for(&mut self, op: &Op, env: &mut Env) -> R<Vec<Rc<Val>>> {
        let args = self.operands(op, env)?;
        let int = |v: &Rc<Val>| match &v.lanes[..] {
            [Lane::Int(p)] => Ok(p.clone()),
            _ => unsupported("scf.for bound is not an integer"),
        };
        let (lo, hi, step) = (int(&args[0])?, int(&args[1])?, int(&args[2])?);
        let Some(step_c) = step.as_const().filter(|s| *s > 0) else {
            return unsupported("scf.for with a size-dependent step");
        };
        let mut carried: Vec<Rc<Val>> = args[3..].to_vec();
        let Some(body) = op.regions.first() else {
            return unsupported("scf.for without a body");
        };
        // A trip count the path does not fix: every trip at once (see `super::loops`).
        let count = trip_count(&lo, &hi, step_c);
        if count.as_const().is_none() && self.pinned(&count).is_none() {
            self.counter_fits(&lo, &hi, step_c, op);
            return self.loop_over_sizes(body, lo, hi, step_c, carried, env);
        }
        let bits = op.operand_types.first().map_or(64, super::overflow::width);
        let mut iv = lo;
        let mut trips = 0;
        loop {
            let go = Cond::cmp(Rel::Lt, &iv, &hi);
            if go.as_const().is_none() && !self.holds(&go) && !self.holds(&go.clone().not()) {
                if trips > 0 {
                    return unsupported(
                        "a loop whose first trips are fixed and the rest depend on the sizes",
                    );
                }
                self.counter_fits(&iv, &hi, step_c, op);
                return self.loop_over_sizes(body, iv, hi, step_c, carried, env);
            }
            if !self.decide(&go)? {
                break;
            }
            trips += 1;
            if trips > 4096 {
                return unsupported("a loop of more than 4096 trips");
            }
            let mut block_args = vec![Rc::new(Val::scalar(Lane::Int(iv.clone())))];
            block_args.extend(carried.iter().cloned());
            carried = match self.run_region(body, block_args, env)? {
                Flow::Yield(v) => v,
                Flow::Return(_) => return unsupported("return inside scf.for"),
            };
            iv = iv.add(&Poly::constant(step_c));
            let next = Val::scalar(Lane::Int(iv.clone()));
            self.fits_width(&next, bits, &format!("i{bits} loop counter"), op)?;
        }
        Ok(carried)
    }

    /// `tt.reduce` (its meaning is `exec::values::reduce`): the combine region run on
    /// scalars.
    fn reduce(&mut self, op: &Op, env: &mut Env) -> R<Vec<Rc<Val>>> {
        let inputs = self.operands(op, env)?;
        let axis = op.attr("axis").and_then(Attr::as_int).unwrap_or(0).max(0) as usize;
        let ins: Vec<_> = inputs
            .iter()
            .map(|v| (&v.shape[..], &v.lanes[..]))
            .collect();
        let outs = values::reduce(self, op, &ins, axis, named(&op.name), |r, args| {
            let Some(region) = op.regions.first() else {
                return unsupported("reduce without a combine region");
            };
            let args = args.into_iter().map(|l| Rc::new(Val::scalar(l))).collect();
            Ok(match r.run_region(region, args, env)? {
                Flow::Yield(v) | Flow::Return(v) => v.iter().map(|a| a.lanes[0].clone()).collect(),
            })
        })?;
        Ok(outs
            .into_iter()
            .map(|(shape, lanes)| Rc::new(Val { shape, lanes }))
            .collect())
    }

    fn map1(&mut self, a: &Val, mut f: impl FnMut(&mut Self, Lane) -> R<Lane>) -> R<Val> {
        let mut lanes = Vec::with_capacity(a.lanes.len());
        for l in &a.lanes {
            lanes.push(if *l == Lane::Undef {
                Lane::Undef
            } else {
                f(self, l.clone())?
            });
        }
        Ok(Val {
            shape: a.shape.clone(),
            lanes,
        })
    }

    fn map3(
        &mut self,
        a: &Val,
        b: &Val,
        c: &Val,
        mut f: impl FnMut(&mut Self, Lane, Lane, Lane) -> R<Lane>,
    ) -> R<Val> {
        let shape = [a, b, c]
            .iter()
            .map(|v| &v.shape)
            .find(|s| !s.is_empty())
            .cloned()
            .unwrap_or_default();
        let (a, b, c) = (bcast(a, &shape)?, bcast(b, &shape)?, bcast(c, &shape)?);
        let mut lanes = Vec::with_capacity(a.lanes.len());
        for ((x, y), z) in a.lanes.into_iter().zip(b.lanes).zip(c.lanes) {
            lanes.push(f(self, x, y, z)?);
        }
        Ok(Val { shape, lanes })
    }

    fn map2(
        &mut self,
        a: &Val,
        b: &Val,
        mut f: impl FnMut(&mut Self, Lane, Lane) -> R<Lane>,
    ) -> R<Val> {
        let shape = if a.shape.is_empty() {
            b.shape.clone()
        } else {
            a.shape.clone()
        };
        let (a, b) = (bcast(a, &shape)?, bcast(b, &shape)?);
        let mut lanes = Vec::with_capacity(a.lanes.len());
        for (x, y) in a.lanes.into_iter().zip(b.lanes) {
            lanes.push(match (&x, &y) {
                (Lane::Undef, _) | (_, Lane::Undef) => Lane::Undef,
                _ => f(self, x, y)?,
            });
        }
        Ok(Val { shape, lanes })
    }
}

/// An error of an op's meaning (`exec::ints`) as this run reports it: under the op's name.
fn named(name: &str) -> impl Fn(Unsupported) -> Unsupported + '_ {
    move |mut e| {
        e.message = format!("{name}: {}", e.message);
        e
    }
}
