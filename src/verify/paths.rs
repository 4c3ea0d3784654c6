//! One Triton program run with symbolic sizes and program ids, once per path, through
//! the one TTIR interpreter (`exec::walk`): this file is the all-sizes run's
//! [`Control`] hooks and [`explore`], which re-runs the program per path.
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

use super::lane::{bcast, truth, unsupported, Env, Lane, Val, R};
use super::run::{PathSolver, Run};
use super::summary::trip_count;

pub use super::lane::{atom_name, small_witness, Unsupported};
pub use super::records::{Access, ArgSym, Failure, Path, Setup, Stall, TensorSym};
use super::sym::{Cond, Poly, Rel, Smt};
use crate::exec::domain::{Domain, Symbolic};
use crate::exec::ints;
use crate::exec::table::{extern_round_to_int, extern_unary, IntOp, OpKind};
use crate::exec::walk::{self, Control, Jump, Side, Trip};
use crate::term::Terms;
use crate::triton_ir::ast::{Attr, Loc, Module, Op, Region, Type};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// Most `cf.cond_br`s one path may take.
const MAX_BRANCHES: u32 = 1024;

/// Runs the program once per path; `Err` when a construct is unsupported or the paths
/// exceed `max_paths`. `forks_alike` is set when a lazy run fails on its first path
/// without leaving any mask lane open: a forking run under the same constraints
/// follows that path choice for choice and fails the same way (see
/// `super::run`'s candidate loop, which then skips it). `stalled` is set when a lazy
/// run's first path stops at a loop summary no template takes, with no failed access
/// (`super::stall`: the forking run under the same candidate may stop there sooner).
pub fn explore(
    module: &Module,
    setup: &Setup,
    smt: &Smt,
    terms: &mut Terms,
    tensor_names: Vec<std::sync::Arc<str>>,
    forks_alike: &mut bool,
    stalled: &mut Option<Stall>,
) -> R<Vec<Path>> {
    *forks_alike = false;
    *stalled = None;
    let Some(func) = module.entry() else {
        return unsupported("the module has no tt.func");
    };
    let mut trail: Vec<bool> = Vec::new();
    let mut paths = Vec::new();
    let z3_start = setup.work.spent().1;
    // A forking attempt's units at its last path's end, and its cheapest path so far
    // (`Work::fork_projected`).
    let (mut units_before, mut cheapest) = (z3_start, u64::MAX);
    // One solver for every path (asserting the base costs milliseconds), each path in
    // its own scope, unwound to the base before the next.
    let wrapping = Rc::new(super::bits::wrapping(module));
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
            guards_memo: Default::default(),
            no_guards: std::rc::Rc::from([]),
            subst_memo: Default::default(),
            subst_memo_nodes: 0,
            first_atoms: Default::default(),
            suspect: None,
            record_suspects: true,
            proved_domains: Default::default(),
            store_guard: None,
            at_memo: HashMap::new(),
            placeholders: HashMap::new(),
            decided: HashMap::new(),
            store_pinned: BTreeMap::new(),
            branches: 0,
            bits: super::bits::Bits::new(wrapping.clone()),
            opened_guard: false,
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
        if let Err(e) = walk::func(&mut run, func, args, func.line, &func.loc) {
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
            *forks_alike =
                setup.lazy_masks && paths.is_empty() && !run.opened_guard && e.witness.is_none();
            if setup.lazy_masks
                && paths.is_empty()
                && e.message == super::loops::NOT_A_RUNNING_OP
                && run.path.failures.is_empty()
            {
                *stalled = Some(Stall {
                    line: e.line,
                    loc: e.loc.clone(),
                    cond: run.path.cond.clone(),
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
        if !setup.lazy_masks && setup.work.fork_spent(z3_start) {
            return unsupported(format!(
                "forking on mask lanes spent its {} Z3 resource units after {} cases",
                setup.work.limits.fork_z3_work,
                paths.len()
            ));
        }
        if !setup.lazy_masks {
            let units = setup.work.spent().1;
            cheapest = cheapest.min(units.saturating_sub(units_before));
            units_before = units;
            // Each `true` choice is a fork whose `false` side is still to run.
            let pending = trail.iter().filter(|&&b| b).count() as u64;
            if setup.work.fork_projected(z3_start, cheapest, pending) {
                return unsupported(format!(
                    "forking on mask lanes would spend more than its {} Z3 resource units \
                     (cases run: {}, at least {pending} left)",
                    setup.work.limits.fork_z3_work,
                    paths.len()
                ));
            }
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

/// The all-sizes run's hooks of the one walk (`exec::walk`): a branch or a trip
/// condition is decided on the path (forking the program where both sides are
/// feasible), a loop whose trips the path does not fix is one proved summary
/// (`super::loops`), and memory is read and written symbolically (`super::memory`).
impl<'a> Control<'a> for Run<'a, '_, '_> {
    type T = Val;
    type Count = Poly;
    type Fork = std::convert::Infallible;
    type X = Unsupported;

    fn module(&self) -> &'a Module {
        self.module
    }
    fn tensor(&self, shape: Vec<usize>, lanes: Vec<Lane>) -> Val {
        Val { shape, lanes }
    }
    fn lanes(t: &Val) -> (&[usize], &[Lane]) {
        (&t.shape, &t.lanes)
    }
    fn nesting(&mut self) -> &mut u32 {
        &mut self.depth
    }
    fn at(&self, op: &Op, e: Unsupported) -> Unsupported {
        within(op, e)
    }
    fn within(&self, op: &Op, e: Unsupported) -> Unsupported {
        within(op, e)
    }
    /// A region's error is tied to the op whose region it is (`within`).
    fn at_line(&self, _: u32, _: &Loc, e: Unsupported) -> Unsupported {
        e
    }
    /// Branches between blocks (an early `return` of an ignored row) are followed, the
    /// condition decided on the path.
    fn follows_branches(&self) -> bool {
        true
    }
    /// The ops this run does not read: loops other than `scf.for`, poison, barriers,
    /// and libdevice calls of several operands.
    fn refuses(&self, op: &Op, kind: Option<OpKind>) -> Option<Unsupported> {
        use OpKind::*;
        let reads = match kind {
            Some(Extern) => (op.attr("symbol").and_then(Attr::as_str))
                .is_some_and(|s| extern_unary(s).is_some() || extern_round_to_int(s)),
            None | Some(While | Condition | Poison | Barrier) => false,
            Some(_) => true,
        };
        (!reads).then(|| within(op, not_read_yet(&op.name)))
    }

    /// Lanes masked off stay so (the op never sees them).
    fn map1<F>(&mut self, a: &Val, mut f: F) -> R<Val>
    where
        F: FnMut(&mut Self, &Lane) -> R<Lane>,
    {
        let mut lanes = Vec::with_capacity(a.lanes.len());
        for l in &a.lanes {
            lanes.push(if *l == Lane::Undef {
                Lane::Undef
            } else {
                f(self, l)?
            });
        }
        Ok(Val {
            shape: a.shape.clone(),
            lanes,
        })
    }
    /// Operands broadcast to the first one's shape (a scalar to the other's).
    fn map2<F>(&mut self, a: &Val, b: &Val, mut f: F) -> R<Val>
    where
        F: FnMut(&mut Self, &Lane, &Lane) -> R<Lane>,
    {
        let shape = if a.shape.is_empty() {
            b.shape.clone()
        } else {
            a.shape.clone()
        };
        let (a, b) = (bcast(a, &shape)?, bcast(b, &shape)?);
        let mut lanes = Vec::with_capacity(a.lanes.len());
        for (x, y) in a.lanes.iter().zip(&b.lanes) {
            lanes.push(match (x, y) {
                (Lane::Undef, _) | (_, Lane::Undef) => Lane::Undef,
                _ => f(self, x, y)?,
            });
        }
        Ok(Val { shape, lanes })
    }
    fn map3<F>(&mut self, a: &Val, b: &Val, c: &Val, mut f: F) -> R<Val>
    where
        F: FnMut(&mut Self, &Lane, &Lane, &Lane) -> R<Lane>,
    {
        let shape = [a, b, c]
            .iter()
            .map(|v| &v.shape)
            .find(|s| !s.is_empty())
            .cloned()
            .unwrap_or_default();
        let (a, b, c) = (bcast(a, &shape)?, bcast(b, &shape)?, bcast(c, &shape)?);
        let mut lanes = Vec::with_capacity(a.lanes.len());
        for ((x, y), z) in a.lanes.iter().zip(&b.lanes).zip(&c.lanes) {
            lanes.push(f(self, x, y, z)?);
        }
        Ok(Val { shape, lanes })
    }
    fn meaning(&self, op: &Op, e: Unsupported) -> Unsupported {
        named(&op.name)(e)
    }
    fn fits(&mut self, op: &Op, v: &Val, bits: u32, what: &str) -> R<()> {
        self.fits_width(v, bits, what, op)
    }

    fn int_lane(&mut self, n: i128) -> Lane {
        Lane::Int(Poly::constant(n))
    }
    fn int_const(&self, l: &Lane) -> Option<i64> {
        match l {
            Lane::Int(p) => p.as_const().and_then(|c| i64::try_from(c).ok()),
            _ => None,
        }
    }
    fn program_id(&self, axis: usize) -> Lane {
        Lane::Int(self.setup.pids[axis].clone())
    }
    fn num_programs(&self, axis: usize) -> Lane {
        Lane::Int(self.setup.grid[axis].clone())
    }
    fn int_abs(&mut self, bits: u32, a: &Lane) -> R<Lane> {
        match a {
            Lane::Int(p) => Ok(Lane::Int(ints::abs(self, bits, p))),
            _ => unsupported("math.absi of a non-integer"),
        }
    }
    fn int_op(&mut self, op: &Op, io: IntOp, bits: u32, x: &Lane, y: &Lane) -> R<Lane> {
        let name = op.name.as_str();
        if let Some(r) = self.bits_op(op, io, bits, x, y) {
            return r.map_err(named(name));
        }
        match (x, y) {
            (Lane::Int(a), Lane::Int(b)) => ints::binary(self, io, bits, a, b)
                .map(Lane::Int)
                .map_err(named(name)),
            (Lane::Bool(a), Lane::Bool(b)) => ints::logic(self, io, a, b)
                .map(Lane::Bool)
                .map_err(named(name)),
            (Lane::FBool(a), Lane::FBool(b)) => {
                let t = match io {
                    IntOp::And => self.domain.and(*a, *b),
                    IntOp::Or => self.domain.or(*a, *b),
                    _ => return unsupported("xor of data-dependent conditions"),
                };
                Ok(truth(t))
            }
            (Lane::Bool(c), Lane::FBool(f)) | (Lane::FBool(f), Lane::Bool(c)) => {
                // Decide the integer side on this path.
                let b = self.decide(c)?;
                Ok(match (io, b) {
                    (IntOp::And, true) | (IntOp::Or, false) => Lane::FBool(*f),
                    (IntOp::And, false) => Lane::Bool(Cond::Const(false)),
                    (IntOp::Or, true) => Lane::Bool(Cond::Const(true)),
                    _ => return unsupported("xor of data-dependent conditions"),
                })
            }
            _ => unsupported(format!("{name} of non-integers")),
        }
    }
    fn int_compare(&mut self, op: &Op, pred: &str, bits: u32, x: &Lane, y: &Lane) -> R<Lane> {
        match (x, y) {
            (Lane::Int(a), Lane::Int(b)) => ints::compare(self, pred, bits, a, b)
                .map(Lane::Bool)
                .map_err(named(&op.name)),
            (Lane::Bool(a), Lane::Bool(b)) => ints::compare_conds(self, pred, a, b)
                .map(Lane::Bool)
                .map_err(named(&op.name)),
            (Lane::Bits(_), _) | (_, Lane::Bits(_)) => self.bits_compare(pred, bits, x, y),
            _ => unsupported("cmpi of non-integers"),
        }
    }
    /// Exact where the value fits the target (the walk makes a narrowing an obligation).
    fn int_cast(&mut self, op: &Op, signed: bool, zero_extend: bool, l: &Lane) -> R<Lane> {
        let name = op.name.as_str();
        let bits = op.result_types.first().map_or(64, super::overflow::width);
        let src = op.operand_types.first().map_or(64, super::overflow::width);
        let wraps = self.bits.wraps(op);
        match l {
            Lane::Bits(b) => Ok(self.bits_cast(*b, bits, zero_extend)),
            Lane::Int(p) if wraps && bits > 1 && p.as_const().is_none() => {
                let b = self.bits.leaf(src, p);
                Ok(self.bits_cast(b, bits, zero_extend))
            }
            Lane::Int(p) if bits == 1 => Ok(Lane::Bool(ints::to_bool(self, p))),
            Lane::Int(p) => ints::cast(self, src, bits, zero_extend, p)
                .map(Lane::Int)
                .map_err(named(name)),
            Lane::Bool(c) if bits > 1 => ints::from_bool(self, c, signed).map(Lane::Int),
            l @ (Lane::Bool(_) | Lane::FBool(_)) => Ok(l.clone()),
            // An integer chosen by the data (`llrint` of a clamped float): kept where its
            // range fits the target, as the bounded run keeps it.
            Lane::DataInt(v, lo) if bits > 1 && !(zero_extend && *lo < 0) => {
                let b = bits.min(64);
                let (min, max) = (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1);
                match self.domain.int_range(*v) {
                    Some((a, z)) if a >= min && z <= max => Ok(l.clone()),
                    _ => unsupported(format!("{name} of a data integer that may not fit")),
                }
            }
            _ => unsupported(format!("{name} of a non-integer")),
        }
    }
    fn int_to_float(&mut self, op: &Op, src: u32, unsigned: bool, l: &Lane) -> R<Lane> {
        let name = op.name.as_str();
        match l {
            Lane::Int(p) => {
                let p = ints::as_converted(self, src, unsigned, p).map_err(named(name))?;
                Ok(Lane::Float(
                    match p.as_const().or_else(|| self.pinned(&p)) {
                        Some(c) => self.domain.constant(c as f64),
                        None => super::at_index::real_of(self.domain.terms, &p),
                    },
                ))
            }
            Lane::Bool(c) => {
                let x = ints::from_bool(self, c, !unsigned)?;
                let x = x.as_const().expect("from_bool is a constant");
                Ok(Lane::Float(self.domain.constant(x as f64)))
            }
            Lane::DataInt(v, lo) if *lo >= 0 || !unsigned => Ok(Lane::Float(*v)),
            Lane::Bits(b) => self.rand_to_float(op, src, unsigned, *b),
            _ => unsupported(format!("{name} of a non-integer")),
        }
    }
    fn float_to_int(&mut self, op: &Op, bits: u32, unsigned: bool, l: &Lane) -> R<Lane> {
        match l {
            // An integer-valued float of the data (`fptosi(floor(x))`).
            Lane::Float(t)
                if self.domain.as_number(*t).is_none() && self.domain.int_range(*t).is_some() =>
            {
                crate::exec::values::data_float_to_int(self, *t, bits, unsigned, &op.name)
                    .map_err(named(&op.name))
            }
            Lane::Float(t) => {
                let x = self.domain.as_number(*t);
                ints::from_float(self, x, bits, unsigned)
                    .map(Lane::Int)
                    .map_err(named(&op.name))
            }
            _ => unsupported(format!("{} of a non-float", op.name)),
        }
    }
    fn poison(&mut self, op: &Op) -> R<Val> {
        Err(not_read_yet(&op.name))
    }
    fn load(&mut self, op: &Op, args: &[Rc<Val>]) -> R<Val> {
        Run::load(self, op, args)
    }
    fn store(&mut self, op: &Op, args: &[Rc<Val>]) -> R<()> {
        Run::store(self, op, args)
    }
    /// A float atomic add is an accumulating store (`super::atomics`).
    fn atomic_rmw(&mut self, op: &Op, args: &[Rc<Val>]) -> R<Val> {
        self.atomic_update(op, args)
    }

    fn if_side(&mut self, _: &Op, cond: Option<&Val>) -> R<Side<Self::Fork>> {
        match cond.map(|v| &v.lanes[..]) {
            Some([Lane::Bool(c)]) => Ok(Side::Taken(self.decide(&c.clone())?)),
            _ => unsupported("scf.if on a data-dependent or non-scalar condition"),
        }
    }
    fn fork_if(&mut self, _: &Op, c: Self::Fork, _: &mut Env) -> R<Vec<Rc<Val>>> {
        match c {}
    }
    fn cond_br(
        &mut self,
        _: &Region,
        op: &Op,
        cond: Option<&Val>,
        _: &mut Env,
        _: u32,
        _: &Loc,
    ) -> R<Jump<Val>> {
        // A branch back to an earlier block (a loop of blocks) is bounded by a count.
        self.branches += 1;
        if self.branches > MAX_BRANCHES {
            return unsupported(format!(
                "more than {MAX_BRANCHES} branches between blocks on one path"
            ));
        }
        match cond.map(|v| &v.lanes[..]) {
            Some([Lane::Bool(c)]) => Ok(Jump::To(if self.decide(c)? { 0 } else { 1 })),
            _ => Err(within(op, data_branch())),
        }
    }

    fn loop_bounds(&mut self, _: &Op, args: &[Rc<Val>]) -> R<(Poly, Poly, Poly)> {
        let int = |i: usize| match args.get(i).map(|v| &v.lanes[..]) {
            Some([Lane::Int(p)]) => Ok(p.clone()),
            _ => unsupported("scf.for bound is not an integer"),
        };
        let (lo, hi, step) = (int(0)?, int(1)?, int(2)?);
        // A step over the sizes (a persistent loop's `num_programs` on a grid that
        // grows with the sizes) is read only where the path fixes every trip (`trip`).
        let positive = match step.as_const() {
            Some(s) => s > 0,
            None => self.holds(&Cond::cmp(Rel::Lt, &Poly::default(), &step)),
        };
        if !positive {
            return unsupported("scf.for with a step not shown positive");
        }
        Ok((lo, hi, step))
    }
    /// A trip count the path fixes is unrolled (at most 4096 trips); any other loop is
    /// every trip at once (see `super::loops`).
    fn trip(&mut self, op: &Op, iv: &Poly, hi: &Poly, step: &Poly, trips: u32) -> R<Trip> {
        let Some(step) = step.as_const() else {
            let go = Cond::cmp(Rel::Lt, iv, hi);
            return match (self.holds(&go), self.holds(&go.clone().not())) {
                (true, _) if trips + 1 > 4096 => unsupported("a loop of more than 4096 trips"),
                (true, _) => Ok(Trip::Run),
                (_, true) => Ok(Trip::Done),
                _ => unsupported(
                    "scf.for with a size-dependent step whose trips the path does not fix",
                ),
            };
        };
        if trips == 0 {
            let count = trip_count(iv, hi, step);
            if count.as_const().is_none() && self.pinned(&count).is_none() {
                self.counter_fits(iv, hi, step, op);
                return Ok(Trip::Summarise);
            }
        }
        let go = Cond::cmp(Rel::Lt, iv, hi);
        if go.as_const().is_none() && !self.holds(&go) && !self.holds(&go.clone().not()) {
            if trips > 0 {
                return unsupported(
                    "a loop whose first trips are fixed and the rest depend on the sizes",
                );
            }
            self.counter_fits(iv, hi, step, op);
            return Ok(Trip::Summarise);
        }
        if !self.decide(&go)? {
            return Ok(Trip::Done);
        }
        if trips + 1 > 4096 {
            return unsupported("a loop of more than 4096 trips");
        }
        Ok(Trip::Run)
    }
    fn next_count(&mut self, op: &Op, iv: &Poly, step: &Poly) -> R<Poly> {
        let bits = op.operand_types.first().map_or(64, super::overflow::width);
        let next = iv.add(step);
        let v = Val::scalar(Lane::Int(next.clone()));
        self.fits_width(&v, bits, &format!("i{bits} loop counter"), op)?;
        Ok(next)
    }
    fn counter(&self, iv: &Poly) -> Val {
        Val::scalar(Lane::Int(iv.clone()))
    }
    fn loop_summary(
        &mut self,
        op: &Op,
        body: &Region,
        iv: Poly,
        hi: Poly,
        step: Poly,
        carried: Vec<Rc<Val>>,
        env: &mut Env,
    ) -> R<Vec<Rc<Val>>> {
        let step = step
            .as_const()
            .expect("`trip` summarises constant steps only");
        self.loop_over_sizes(op, body, iv, hi, step, carried, env)
    }

    fn scf_while(&mut self, op: &Op, _: &mut Env) -> R<Vec<Rc<Val>>> {
        Err(not_read_yet(&op.name))
    }
}

/// An error of an op's meaning (`exec::ints`) as this run reports it: under the op's name.
fn named(name: &str) -> impl Fn(Unsupported) -> Unsupported + '_ {
    move |mut e| {
        e.message = format!("{name}: {}", e.message);
        e
    }
}

fn data_branch() -> Unsupported {
    Unsupported {
        message: "a branch on the data between blocks".into(),
        line: 0,
        loc: Loc::default(),
        witness: None,
    }
}

fn not_read_yet(name: &str) -> Unsupported {
    Unsupported {
        message: format!("op {name} is not read for all sizes yet"),
        line: 0,
        loc: Loc::default(),
        witness: None,
    }
}

/// `e` tied to `op` unless an op inside it is already named.
fn within(op: &Op, mut e: Unsupported) -> Unsupported {
    if e.line == 0 {
        e.line = op.line;
        e.loc = op.loc.clone();
    }
    e
}
