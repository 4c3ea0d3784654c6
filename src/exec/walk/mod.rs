//! The one TTIR interpreter's walk of a function, shared by the bounded run
//! (`exec::ops::Interp`) and the all-sizes run (`verify::run::Run`): regions and their
//! blocks, terminators, `cf.br`/`cf.cond_br`, `scf.if`, `scf.for`, `tt.reduce`, `tt.call`
//! (the callee run inline), `tt.load`/`tt.store`, and every value op (`value.rs`).
//! [`Control`] is what the walk needs of a run: the hooks where the two runs genuinely
//! differ. Memory (the bounded run reads and writes concrete buffers, the all-sizes run
//! symbolic tensors under guards); which side of a branch runs (the bounded run picks
//! one, or forks on the data and merges; the all-sizes run decides the condition on its
//! path, forking the whole program where both sides are feasible); a loop trip (the
//! bounded run counts; the all-sizes run unrolls a trip count the path fixes and
//! replaces any other loop by a proved summary); lanes and integers (machine integers,
//! or polynomials over the sizes with width obligations).
//!
//! Invariant: every op kind is routed here and nowhere else (`exec::shape` only tells
//! the lane moves apart, `exec::precision` which ops compute a float); a run's hooks
//! see one op of the kind they are named for, and the walk binds every result they
//! return.

use crate::exec::error::ErrorKind;
use crate::exec::shape;
use crate::exec::table::{callee, op_kind, IntOp, OpKind, MAX_NESTING};
use crate::exec::values::{self, Values};
use crate::triton_ir::ast::{Attr, Block, Func, Loc, Module, Op, Region};
use rustc_hash::FxHashMap;
use std::rc::Rc;

mod scan;
mod value;

/// The values in scope, by SSA name.
pub(crate) type Env<T> = FxHashMap<String, Rc<T>>;

/// How a region ended.
pub(crate) enum Flow<T> {
    /// `scf.yield`, `tt.reduce.return`, `tt.scan.return`, `scf.condition`, or falling
    /// off the end.
    Yield(Vec<Rc<T>>),
    /// `tt.return`.
    Return(Vec<Rc<T>>),
}

/// Which side of an `scf.if` runs.
pub(crate) enum Side<F> {
    /// The condition is decided on this run: the then-region or the else-region.
    Taken(bool),
    /// The condition depends on the data: both sides run and merge (`Control::fork_if`).
    Fork(F),
}

/// Where a `cf.cond_br` goes.
pub(crate) enum Jump<T> {
    /// To successor `k`.
    To(usize),
    /// Both successors ran to the end of the region (a fork on the data).
    Ended(Flow<T>),
}

/// What the next trip of an `scf.for` is.
pub(crate) enum Trip {
    Run,
    Done,
    /// The run cannot count the trips: the whole loop is `Control::loop_summary`.
    Summarise,
}

/// The lower bound, upper bound and step of an `scf.for`.
pub(crate) type Bounds<N> = (N, N, N);

/// What one run needs to be walked. `E` (from [`Values`]) is an error before it is tied
/// to an op; `X` is the walk's error.
pub(crate) trait Control<'m>: Values {
    /// A tensor value: a shape and its lanes.
    type T;
    /// The counter of an `scf.for`.
    type Count: Clone;
    /// A condition on the data an `scf.if` forks on.
    type Fork;
    /// The walk's error (tied to an op).
    type X;

    fn module(&self) -> &'m Module;
    fn tensor(&self, shape: Vec<usize>, lanes: Vec<Self::L>) -> Self::T;
    fn lanes(t: &Self::T) -> (&[usize], &[Self::L]);
    /// The nesting of regions and calls being run.
    fn nesting(&mut self) -> &mut u32;

    /// `e`, raised by op `op`, as the walk's error.
    fn at(&self, op: &Op, e: Self::E) -> Self::X;
    /// `x`, raised while running op `op` (its regions included).
    fn within(&self, _op: &Op, x: Self::X) -> Self::X {
        x
    }
    /// `e`, raised by a region run for the op at `line` (`loc`).
    fn at_line(&self, line: u32, loc: &Loc, e: Self::E) -> Self::X;

    /// Counts one op run (the bounded run's limit).
    fn count(&mut self, _op: &Op) -> Result<(), Self::X> {
        Ok(())
    }
    /// Whether a region may have several blocks (`cf.br` between them).
    fn follows_branches(&self) -> bool;
    /// Ops of a kind this run does not read: an error naming the op, or `None`.
    fn refuses(&self, _op: &Op, _kind: Option<OpKind>) -> Option<Self::X> {
        None
    }

    /// `f` on every lane of `a`.
    fn map1<F>(&mut self, a: &Self::T, f: F) -> Result<Self::T, Self::E>
    where
        F: FnMut(&mut Self, &Self::L) -> Result<Self::L, Self::E>;
    /// `f` on the lanes of `a` and `b` pairwise (shapes as the run reads them).
    fn map2<F>(&mut self, a: &Self::T, b: &Self::T, f: F) -> Result<Self::T, Self::E>
    where
        F: FnMut(&mut Self, &Self::L, &Self::L) -> Result<Self::L, Self::E>;
    fn map3<F>(&mut self, a: &Self::T, b: &Self::T, c: &Self::T, f: F) -> Result<Self::T, Self::E>
    where
        F: FnMut(&mut Self, &Self::L, &Self::L, &Self::L) -> Result<Self::L, Self::E>;
    /// An error of an op's meaning (`exec::values`, `exec::shape`) as the run reports it
    /// (the all-sizes run names the op; the bounded run names it in `at`).
    fn meaning(&self, _op: &Op, e: Self::E) -> Self::E {
        e
    }
    /// The value of op `op` in its result type (the bounded run's `--precision ieee`).
    fn in_type(&mut self, _op: &Op, v: Self::T) -> Self::T {
        v
    }
    /// Obligation: the integer lanes of `v`, which the run keeps exact, fit `bits`
    /// (`what` names the operation).
    fn fits(&mut self, _op: &Op, _v: &Self::T, _bits: u32, _what: &str) -> Result<(), Self::E> {
        Ok(())
    }

    /// An integer lane, a program id, a grid size.
    fn int_lane(&mut self, n: i128) -> Self::L;
    fn int_const(&self, l: &Self::L) -> Option<i64>;
    fn program_id(&self, axis: usize) -> Self::L;
    fn num_programs(&self, axis: usize) -> Self::L;
    /// The integer ops: `math.absi`, `arith.addi` ... (`exec::ints`), `arith.cmpi` on
    /// operands of `bits`, integer casts, and conversions between integers of `bits`
    /// and floats.
    fn int_abs(&mut self, bits: u32, a: &Self::L) -> Result<Self::L, Self::E>;
    fn int_op(
        &mut self,
        op: &Op,
        io: IntOp,
        bits: u32,
        a: &Self::L,
        b: &Self::L,
    ) -> Result<Self::L, Self::E>;
    fn int_compare(
        &mut self,
        op: &Op,
        pred: &str,
        bits: u32,
        a: &Self::L,
        b: &Self::L,
    ) -> Result<Self::L, Self::E>;
    fn int_cast(
        &mut self,
        op: &Op,
        signed: bool,
        zero_extend: bool,
        a: &Self::L,
    ) -> Result<Self::L, Self::E>;
    fn int_to_float(
        &mut self,
        op: &Op,
        bits: u32,
        unsigned: bool,
        a: &Self::L,
    ) -> Result<Self::L, Self::E>;
    fn float_to_int(
        &mut self,
        op: &Op,
        bits: u32,
        unsigned: bool,
        a: &Self::L,
    ) -> Result<Self::L, Self::E>;
    /// `ub.poison`: a value the program never defines.
    fn poison(&mut self, op: &Op) -> Result<Self::T, Self::E>;
    fn load(&mut self, op: &Op, args: &[Rc<Self::T>]) -> Result<Self::T, Self::X>;
    fn store(&mut self, op: &Op, args: &[Rc<Self::T>]) -> Result<(), Self::X>;
    /// `tt.atomic_rmw` and `tt.atomic_cas`: memory updated lane by lane, the old values
    /// returned.
    fn atomic_rmw(&mut self, op: &Op, args: &[Rc<Self::T>]) -> Result<Self::T, Self::X>;

    /// Which side of `scf.if` `op` runs on condition `cond`.
    fn if_side(&mut self, op: &Op, cond: Option<&Self::T>) -> Result<Side<Self::Fork>, Self::X>;
    /// `scf.if` `op` on a condition on the data: both sides run and merge.
    fn fork_if(
        &mut self,
        op: &Op,
        c: Self::Fork,
        env: &mut Env<Self::T>,
    ) -> Result<Vec<Rc<Self::T>>, Self::X>;
    /// Where `cf.cond_br` `op` (on `cond`) in `region` goes.
    fn cond_br(
        &mut self,
        region: &Region,
        op: &Op,
        cond: Option<&Self::T>,
        env: &mut Env<Self::T>,
        line: u32,
        loc: &Loc,
    ) -> Result<Jump<Self::T>, Self::X>;

    /// The lower bound, upper bound and step of `scf.for` `op`.
    fn loop_bounds(
        &mut self,
        op: &Op,
        args: &[Rc<Self::T>],
    ) -> Result<Bounds<Self::Count>, Self::X>;
    /// Whether the trip at counter `iv` runs, `trips` trips having run.
    fn trip(
        &mut self,
        op: &Op,
        iv: &Self::Count,
        hi: &Self::Count,
        step: &Self::Count,
        trips: u32,
    ) -> Result<Trip, Self::X>;
    /// The counter after the trip at `iv`.
    fn next_count(
        &mut self,
        op: &Op,
        iv: &Self::Count,
        step: &Self::Count,
    ) -> Result<Self::Count, Self::X>;
    fn counter(&self, iv: &Self::Count) -> Self::T;
    /// The results of `scf.for` `op` from the trip at `iv` on, the trips not counted.
    #[allow(clippy::too_many_arguments)]
    fn loop_summary(
        &mut self,
        op: &Op,
        body: &Region,
        iv: Self::Count,
        hi: Self::Count,
        step: Self::Count,
        carried: Vec<Rc<Self::T>>,
        env: &mut Env<Self::T>,
    ) -> Result<Vec<Rc<Self::T>>, Self::X>;

    /// `scf.while` (the all-sizes run refuses it).
    fn scf_while(&mut self, op: &Op, env: &mut Env<Self::T>) -> Result<Vec<Rc<Self::T>>, Self::X>;
}

fn malformed<'m, C: Control<'m>>(c: &C, message: impl Into<String>) -> C::E {
    c.fail(ErrorKind::Malformed, message.into())
}

/// The values named by `names`.
pub(crate) fn lookup<'m, C: Control<'m>>(
    c: &C,
    names: &[String],
    env: &Env<C::T>,
) -> Result<Vec<Rc<C::T>>, C::E> {
    names
        .iter()
        .map(|n| {
            env.get(n)
                .cloned()
                .ok_or_else(|| malformed(c, format!("use of undefined value %{n}")))
        })
        .collect()
}

/// The operands of `op`.
pub(crate) fn operands<'m, C: Control<'m>>(
    c: &C,
    op: &Op,
    env: &Env<C::T>,
) -> Result<Vec<Rc<C::T>>, C::X> {
    lookup(c, &op.operands, env).map_err(|e| c.at(op, e))
}

/// Run function `func` on `args` in a fresh scope, for the op at `line` (`loc`).
pub(crate) fn func<'m, C: Control<'m>>(
    c: &mut C,
    func: &Func,
    args: Vec<Rc<C::T>>,
    line: u32,
    loc: &Loc,
) -> Result<Vec<Rc<C::T>>, C::X> {
    if args.len() != func.args.len() {
        let m = format!(
            "@{} takes {} arguments, given {}",
            func.name,
            func.args.len(),
            args.len()
        );
        return Err(c.at_line(line, loc, malformed(c, m)));
    }
    let mut env = Env::default();
    // The parser lists the parameters as the entry block's arguments (as MLIR does)
    // unless the entry block has a label; bind them either way.
    let entry_takes_args = func.body.blocks.first().is_some_and(|b| !b.args.is_empty());
    for (a, v) in func.args.iter().zip(&args) {
        env.insert(a.name.clone(), v.clone());
    }
    let block_args = if entry_takes_args { args } else { Vec::new() };
    match region(c, &func.body, block_args, &mut env, line, loc)? {
        Flow::Return(v) | Flow::Yield(v) => Ok(v),
    }
}

/// Run `region` from its entry block, `args` bound to the block's arguments, for the
/// op at `line` (`loc`).
pub(crate) fn region<'m, C: Control<'m>>(
    c: &mut C,
    region: &Region,
    args: Vec<Rc<C::T>>,
    env: &mut Env<C::T>,
    line: u32,
    loc: &Loc,
) -> Result<Flow<C::T>, C::X> {
    if *c.nesting() > MAX_NESTING {
        let m = format!("call/region nesting deeper than {MAX_NESTING}");
        return Err(c.at_line(line, loc, c.fail(ErrorKind::Limit, m)));
    }
    let Some(block) = region.blocks.first() else {
        return Ok(Flow::Yield(Vec::new()));
    };
    if region.blocks.len() > 1 && !c.follows_branches() {
        let m = "unstructured control flow (several blocks)".to_string();
        return Err(c.at_line(line, loc, c.fail(ErrorKind::Unsupported, m)));
    }
    from(c, region, block, args, env, line, loc)
}

/// Run `region` from `block` (its arguments bound to `args`) to the region's end.
pub(crate) fn from<'m, 'r, C: Control<'m>>(
    c: &mut C,
    region: &'r Region,
    mut block: &'r Block,
    mut args: Vec<Rc<C::T>>,
    env: &mut Env<C::T>,
    line: u32,
    loc: &Loc,
) -> Result<Flow<C::T>, C::X> {
    *c.nesting() += 1;
    let result = loop {
        match run_block(c, region, block, args, env, line, loc) {
            Ok(Ok(flow)) => break Ok(flow),
            Ok(Err((next, next_args))) => {
                block = next;
                args = next_args;
            }
            Err(x) => break Err(x),
        }
    };
    *c.nesting() -= 1;
    result
}

type Next<'r, T> = Result<Flow<T>, (&'r Block, Vec<Rc<T>>)>;

/// Run `block` to its terminator: how the region ends, or the block it jumps to.
fn run_block<'m, 'r, C: Control<'m>>(
    c: &mut C,
    region: &'r Region,
    block: &'r Block,
    args: Vec<Rc<C::T>>,
    env: &mut Env<C::T>,
    line: u32,
    loc: &Loc,
) -> Result<Next<'r, C::T>, C::X> {
    if block.args.len() != args.len() {
        let m = format!(
            "block {} takes {} arguments, given {}",
            block.label.as_deref().unwrap_or("(entry)"),
            block.args.len(),
            args.len()
        );
        return Err(c.at_line(line, loc, malformed(c, m)));
    }
    for (a, v) in block.args.iter().zip(args) {
        env.insert(a.name.clone(), v);
    }
    for op in &block.ops {
        c.count(op)?;
        let kind = op_kind(&op.name);
        if let Some(x) = c.refuses(op, kind) {
            return Err(x);
        }
        match kind {
            Some(OpKind::Yield | OpKind::ReduceReturn | OpKind::ScanReturn | OpKind::Condition) => {
                return Ok(Ok(Flow::Yield(operands(c, op, env)?)))
            }
            Some(OpKind::Return) => return Ok(Ok(Flow::Return(operands(c, op, env)?))),
            Some(OpKind::Br | OpKind::CondBr) => {
                let target = if kind == Some(OpKind::Br) {
                    0
                } else {
                    let cond = operands(c, op, env)?;
                    match c.cond_br(region, op, cond.first().map(|v| &**v), env, line, loc)? {
                        Jump::To(k) => k,
                        Jump::Ended(flow) => return Ok(Ok(flow)),
                    }
                };
                let Some(succ) = op.successors.get(target) else {
                    return Err(c.at(op, malformed(c, "missing branch target")));
                };
                let Some(dest) = region
                    .blocks
                    .iter()
                    .find(|b| b.label.as_deref() == Some(succ.label.as_str()))
                else {
                    return Err(c.at(op, malformed(c, format!("no block ^{}", succ.label))));
                };
                let vals = lookup(c, &succ.args, env).map_err(|e| c.at(op, e))?;
                return Ok(Err((dest, vals)));
            }
            _ => {
                let results = run_op(c, op, kind, env).map_err(|x| c.within(op, x))?;
                if results.len() < op.results.len() {
                    let m = format!(
                        "produced {} values for {} results",
                        results.len(),
                        op.results.len()
                    );
                    return Err(c.at(op, malformed(c, m)));
                }
                for (name, v) in op.results.iter().zip(results) {
                    env.insert(name.clone(), v);
                }
            }
        }
    }
    Ok(Ok(Flow::Yield(Vec::new())))
}

/// One op that is not a terminator: its results.
fn run_op<'m, C: Control<'m>>(
    c: &mut C,
    op: &Op,
    kind: Option<OpKind>,
    env: &mut Env<C::T>,
) -> Result<Vec<Rc<C::T>>, C::X> {
    match kind {
        Some(OpKind::If) => return scf_if(c, op, env),
        Some(OpKind::For) => return scf_for(c, op, env),
        Some(OpKind::While) => return c.scf_while(op, env),
        Some(OpKind::Reduce) => return reduce(c, op, env),
        Some(OpKind::Scan) => return scan::scan(c, op, env),
        Some(OpKind::Call) => return call(c, op, env),
        _ => {}
    }
    let args = operands(c, op, env)?;
    let out = match kind {
        // `tt.split`: the two halves along a last axis of 2, the op's two results.
        Some(OpKind::Split) => {
            let (shape, lanes) = args.first().map_or((&[][..], &[][..]), |v| C::lanes(v));
            let halves = shape::split(shape, lanes)
                .map_err(|m| c.at(op, c.fail(ErrorKind::Malformed, m)))?;
            return Ok(halves
                .map(|(shape, lanes)| Rc::new(c.tensor(shape, lanes)))
                .to_vec());
        }
        Some(OpKind::Load) => c.load(op, &args)?,
        Some(OpKind::AtomicRmw | OpKind::AtomicCas) => c.atomic_rmw(op, &args)?,
        Some(OpKind::Store) => {
            c.store(op, &args)?;
            let unit = c.unit();
            c.tensor(Vec::new(), vec![unit])
        }
        _ => {
            let v = value::value_op(c, op, kind, &args).map_err(|e| c.at(op, e))?;
            c.in_type(op, v)
        }
    };
    Ok(vec![Rc::new(out)])
}

/// `tt.call`: the callee run inline on the operands.
fn call<'m, C: Control<'m>>(
    c: &mut C,
    op: &Op,
    env: &mut Env<C::T>,
) -> Result<Vec<Rc<C::T>>, C::X> {
    let name = callee(op).unwrap_or("");
    let Some(f) = c.module().func(name) else {
        return Err(c.at(op, malformed(c, format!("no function @{name}"))));
    };
    let args = operands(c, op, env)?;
    func(c, f, args, op.line, &op.loc)
}

/// `scf.if`: the side the run takes, or both merged.
fn scf_if<'m, C: Control<'m>>(
    c: &mut C,
    op: &Op,
    env: &mut Env<C::T>,
) -> Result<Vec<Rc<C::T>>, C::X> {
    let args = operands(c, op, env)?;
    let taken = match c.if_side(op, args.first().map(|v| &**v))? {
        Side::Taken(b) => b,
        Side::Fork(k) => return c.fork_if(op, k, env),
    };
    let side = if taken {
        op.regions.first()
    } else {
        op.regions.get(1)
    };
    let Some(r) = side else {
        return Ok(Vec::new());
    };
    match region(c, r, Vec::new(), env, op.line, &op.loc)? {
        Flow::Yield(v) => Ok(v),
        Flow::Return(_) => Err(c.at(
            op,
            c.fail(ErrorKind::Unsupported, "return inside an if".into()),
        )),
    }
}

/// `scf.for`: the trips the run counts, then (the all-sizes run) a summary of the rest.
fn scf_for<'m, C: Control<'m>>(
    c: &mut C,
    op: &Op,
    env: &mut Env<C::T>,
) -> Result<Vec<Rc<C::T>>, C::X> {
    let args = operands(c, op, env)?;
    let (lo, hi, step) = c.loop_bounds(op, &args)?;
    let Some(body) = op.regions.first() else {
        return Err(c.at(op, malformed(c, "missing body")));
    };
    let mut carried: Vec<Rc<C::T>> = args.get(3..).unwrap_or_default().to_vec();
    let mut iv = lo;
    let mut trips = 0;
    loop {
        match c.trip(op, &iv, &hi, &step, trips)? {
            Trip::Run => {}
            Trip::Done => return Ok(carried),
            Trip::Summarise => return c.loop_summary(op, body, iv, hi, step, carried, env),
        }
        trips += 1;
        let mut block_args = Vec::with_capacity(carried.len() + 1);
        block_args.push(Rc::new(c.counter(&iv)));
        block_args.extend(carried.iter().cloned());
        carried = match region(c, body, block_args, env, op.line, &op.loc)? {
            Flow::Yield(v) => v,
            Flow::Return(_) => {
                let m = "return inside a loop".to_string();
                return Err(c.at(op, c.fail(ErrorKind::Unsupported, m)));
            }
        };
        iv = c.next_count(op, &iv, &step)?;
    }
}

/// The combine region of `tt.reduce`/`tt.scan` `op` run on the scalar lanes `args`:
/// one lane per result.
fn combine_lanes<'m, C: Control<'m>>(
    c: &mut C,
    op: &Op,
    combine: &Region,
    args: Vec<C::L>,
    env: &mut Env<C::T>,
) -> Result<Vec<C::L>, C::X> {
    let args = args
        .into_iter()
        .map(|l| Rc::new(c.tensor(Vec::new(), vec![l])))
        .collect();
    Ok(match region(c, combine, args, env, op.line, &op.loc)? {
        Flow::Yield(v) | Flow::Return(v) => v
            .iter()
            .map(|a| match C::lanes(a).1 {
                [l] => l.clone(),
                _ => c.unit(),
            })
            .collect(),
    })
}

/// An error of `tt.reduce`: of its meaning, or of its combine region.
enum ReduceError<E, X> {
    Op(E),
    Walk(X),
}

/// `tt.reduce` over its `axis` (its meaning is `exec::values::reduce`): the combine
/// region run on scalars.
fn reduce<'m, C: Control<'m>>(
    c: &mut C,
    op: &Op,
    env: &mut Env<C::T>,
) -> Result<Vec<Rc<C::T>>, C::X> {
    let inputs = operands(c, op, env)?;
    let axis = op.attr("axis").and_then(Attr::as_int).unwrap_or(0).max(0) as usize;
    let ins: Vec<_> = inputs.iter().map(|v| C::lanes(v)).collect();
    let outs = values::reduce(c, op, &ins, axis, ReduceError::Op, |c, args| {
        let Some(combine) = op.regions.first() else {
            return Err(ReduceError::Op(malformed(c, "missing combine region")));
        };
        combine_lanes(c, op, combine, args, env).map_err(ReduceError::Walk)
    });
    match outs {
        Ok(outs) => Ok(outs
            .into_iter()
            .map(|(shape, lanes)| Rc::new(c.tensor(shape, lanes)))
            .collect()),
        Err(ReduceError::Op(e)) => Err(c.at(op, c.meaning(op, e))),
        Err(ReduceError::Walk(x)) => Err(x),
    }
}
