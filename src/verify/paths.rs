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

use super::guards::MaskLane;
use super::sym::{Cond, Poly, Rel, Smt};
use crate::exec::domain::{Binary, Domain, Symbolic, Truth};
use crate::exec::table::{
    combine_all, extern_unary, float_binary, float_predicate, simple_combine, unary_func,
};
use crate::launch::Role;
use crate::term::{TermId, Terms};
use crate::triton_ir::ast::{Attr, Block, Func as IrFunc, Loc, Module, Op, Region, Scalar, Type};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;
use z3::SatResult;

/// Why the symbolic run stopped: a construct it cannot read for all sizes.
#[derive(Clone, Debug)]
pub struct Unsupported {
    pub message: String,
    pub line: u32,
    pub loc: Loc,
    /// Sizes where what could not be proved fails, when Z3 found some (the caller
    /// replays them).
    pub witness: Option<Vec<(String, i64)>>,
}

pub(super) type R<T> = Result<T, Unsupported>;

pub(super) fn unsupported<T>(message: impl Into<String>) -> R<T> {
    Err(Unsupported {
        message: message.into(),
        line: 0,
        loc: Loc::default(),
        witness: None,
    })
}

/// One lane of a runtime value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Lane {
    Int(Poly),
    Bool(Cond),
    Float(TermId),
    /// A comparison of reals (an undecided boolean of the term domain).
    FBool(TermId),
    /// An integer chosen by the data (`tl.where(x < 0, -1, 1)`): the real it is, and
    /// the least value it can take. Only converted to float or stored (see
    /// `exec/ops/select.rs` for the bounded interpreter's fuller support).
    DataInt(TermId, i128),
    Ptr {
        tensor: usize,
        off: Poly,
    },
    /// A masked-off lane loaded without `other=`.
    Undef,
}

#[derive(Clone, Debug)]
pub(super) struct Val {
    pub(super) shape: Vec<usize>,
    pub(super) lanes: Vec<Lane>,
}

impl Val {
    pub(super) fn scalar(l: Lane) -> Val {
        Val {
            shape: vec![],
            lanes: vec![l],
        }
    }
    fn splat(l: Lane, shape: &[usize]) -> Val {
        Val {
            shape: shape.to_vec(),
            lanes: vec![l; shape.iter().product()],
        }
    }
}

/// A tensor as the launch declares it, with its shape over the sizes.
#[derive(Clone, Debug)]
pub struct TensorSym {
    pub name: String,
    pub shape: Vec<Poly>,
    pub role: Role,
}

impl TensorSym {
    pub fn numel(&self) -> Poly {
        self.shape.iter().fold(Poly::constant(1), |a, d| a.mul(d))
    }
}

/// A load or store lane.
#[derive(Clone, Debug)]
pub struct Access {
    pub tensor: usize,
    pub off: Poly,
    pub line: u32,
    pub loc: Loc,
    /// The stored value (stores only).
    pub value: Option<TermId>,
    /// The tensor index the offset decomposes into, proved in bounds on the path;
    /// `None` when it is not (see [`Path::failures`]).
    pub index: Option<Vec<Poly>>,
    /// For a store inside loops over sizes: the loops' iteration variables (bound like
    /// the program ids) and the conditions under which this lane is stored.
    pub vars: Vec<String>,
    pub guard: Vec<Cond>,
}

/// An access the path cannot prove in bounds.
#[derive(Clone, Debug)]
pub struct Failure {
    pub message: String,
    pub line: u32,
    pub loc: Loc,
    /// Sizes (from a Z3 model) where the access leaves its tensor, if Z3 found some.
    pub witness: Option<Vec<(String, i64)>>,
}

/// One path through the program.
#[derive(Clone, Debug, Default)]
pub struct Path {
    /// The choices that define it (beyond the base constraints).
    pub cond: Vec<Cond>,
    pub loads: Vec<Access>,
    pub stores: Vec<Access>,
    /// Integer results that leave their width for some sizes, with the size bounds
    /// under which they do not (the proof holds where none does).
    pub wraps: Vec<super::overflow::Wrap>,
    pub failures: Vec<Failure>,
}

/// What the run needs besides the module.
pub struct Setup<'a> {
    /// The size names (Z3 models are read back over them).
    pub sizes: &'a [String],
    pub tensors: &'a [TensorSym],
    /// Each kernel parameter's value (pointers, integers, reals), by name.
    pub args: &'a HashMap<String, ArgSym>,
    /// The base constraints: sizes positive, program ids within the grid, and any
    /// candidate constraint being tried.
    pub base: &'a [Cond],
    pub pids: [Poly; 3],
    pub grid: [Poly; 3],
    pub max_paths: usize,
    /// The work the step may still do (the whole unbounded step shares one).
    pub work: &'a super::work::Work,
    /// The formula's reductions, which loop summaries are matched against.
    pub templates: &'a [super::at_index::Template],
    pub input_shapes: &'a std::collections::BTreeMap<String, Vec<Poly>>,
    /// Undecided mask lanes become guards in values instead of forks
    /// ([`super::guards`]).
    pub lazy_masks: bool,
}

/// A kernel parameter's symbolic value.
#[derive(Clone, Debug)]
pub enum ArgSym {
    Tensor(usize),
    Int(Poly),
    Real(f64),
    Scalar(String),
}

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

pub(super) type Env = HashMap<String, Rc<Val>>;

/// A Z3 solver that counts its scopes, so a path's can be unwound whatever it left
/// open (its `push`/`pop` shadow the solver's own).
pub(super) struct PathSolver<'ctx> {
    solver: z3::Solver<'ctx>,
    depth: std::cell::Cell<u32>,
}

impl<'ctx> PathSolver<'ctx> {
    fn new(ctx: &'ctx z3::Context) -> Self {
        PathSolver {
            solver: z3::Solver::new(ctx),
            depth: std::cell::Cell::new(0),
        }
    }
    pub(super) fn push(&self) {
        self.depth.set(self.depth.get() + 1);
        self.solver.push();
    }
    pub(super) fn pop(&self, n: u32) {
        let n = n.min(self.depth.get());
        self.depth.set(self.depth.get() - n);
        self.solver.pop(n);
    }
    /// Back to the assertions made outside every scope.
    fn unwind(&self) {
        self.pop(self.depth.get());
    }
}

impl<'ctx> std::ops::Deref for PathSolver<'ctx> {
    type Target = z3::Solver<'ctx>;
    fn deref(&self) -> &z3::Solver<'ctx> {
        &self.solver
    }
}

pub(super) enum Flow {
    Yield(Vec<Rc<Val>>),
    Return(Vec<Rc<Val>>),
}

pub(super) struct Run<'a, 'ctx, 't> {
    pub(super) module: &'a Module,
    pub(super) setup: &'a Setup<'a>,
    pub(super) smt: &'a Smt<'ctx>,
    pub(super) solver: PathSolver<'ctx>,
    pub(super) domain: Symbolic<'t>,
    /// The choices of the path being run (depth first; see [`explore`]).
    pub(super) trail: Vec<bool>,
    pub(super) pos: usize,
    pub(super) memo: HashMap<Cond, bool>,
    pub(super) path: Path,
    pub(super) depth: usize,
    /// Every input element atom made so far, with its index.
    pub(super) atoms: super::at_index::AtomIndex,
    /// The loop results not yet matched to a reduction (atoms standing for them).
    pub(super) partials: HashMap<TermId, super::loops::Partial>,
    /// The loops over sizes being run, innermost last.
    pub(super) loops: Vec<super::loops::LoopCtx>,
    pub(super) loop_count: usize,
    /// Finding a loop's induction steps: loads and stores are not recorded.
    pub(super) probing: bool,
    /// Lazy masks: each guard atom's condition, and the atom of each condition.
    pub(super) guards: HashMap<TermId, Cond>,
    pub(super) guard_terms: HashMap<Cond, TermId>,
    /// Groups of guarded lanes already tried as a reduction and failed: the guess is not
    /// retried for the next store lane (a failure only keeps the lanes as they are).
    pub(super) failed_lane_groups: std::collections::HashSet<(Binary, Vec<TermId>)>,
    /// Groups of guarded lanes proved to be a reduction outside any loop, by the mask
    /// of the store being resolved: the next column of the same row reuses the proof
    /// (path conditions only grow, so a proof stays valid under the same store mask).
    pub(super) resolved_lane_groups: HashMap<(Binary, Vec<TermId>, Option<Cond>), TermId>,
    /// What the solver knows of a condition outside loops, by the store mask assumed:
    /// cleared whenever the path gains a condition (the mask lanes of the next store
    /// ask about the same conditions again).
    pub(super) known_cache: HashMap<(Cond, Option<Cond>), Option<bool>>,
    /// Which symbols the path's constraints (base and choices) link, outside loops
    /// (see `super::guards::Classes`); rebuilt after the path gains a condition.
    pub(super) classes: Option<super::guards::Classes>,
    /// The conjuncts of the lane mask asserted for the load or store lane at hand.
    pub(super) assumed: Vec<Cond>,
    /// Conditions settled for the lanes of the mask being read (see `mask_lanes`);
    /// `None` outside it.
    pub(super) lane_known: Option<HashMap<Cond, Option<bool>>>,
    /// Whether a term mentions a guard, and a partial (see `Run::guarded_lane`).
    pub(super) mentions_memo: rustc_hash::FxHashMap<TermId, (bool, bool)>,
    /// Sizes where a loop or block adds a summand the formula lacks (see
    /// `Run::match_template`), kept for the failure it leads to; not recorded while
    /// `record_suspects` is off (a guessed grouping).
    pub(super) suspect: Option<Vec<(String, i64)>>,
    pub(super) record_suspects: bool,
    /// Reduction domains proved outside loops (see `Run::domain_is_extent`).
    pub(super) proved_domains: std::collections::HashSet<super::extent::DomainKey>,
    /// The mask condition of the store lane being resolved (assumed on the solver).
    pub(super) store_guard: Option<Cond>,
    /// Formula terms at an index, for the lanes of one store under one guard (cleared
    /// with the store's resolution memo).
    pub(super) at_memo: super::at_index::AtMemo,
    /// Summand pairs (common factors divided out) decided so far, and whether equal:
    /// equality of two terms holds or not whatever the path.
    pub(super) decided: HashMap<(TermId, TermId), bool>,
    /// The sizes the path fixes, read at the store being resolved (before any lane's
    /// mask is assumed, so it holds for every lane): loop summaries read the formula
    /// there.
    pub(super) store_pinned: BTreeMap<Arc<str>, i128>,
}

impl Run<'_, '_, '_> {
    /// The value of `c` on this path, forking when both are feasible.
    pub(super) fn decide(&mut self, c: &Cond) -> R<bool> {
        if let Some(b) = c.as_const() {
            return Ok(b);
        }
        if let Some(&b) = self.memo.get(c) {
            return Ok(b);
        }
        let z = self.smt.cond(c);
        let can = |s: &z3::Solver, x: &z3::ast::Bool| {
            s.push();
            s.assert(x);
            let r = s.check() != SatResult::Unsat;
            s.pop(1);
            r
        };
        let (t, f) = (can(&self.solver, &z), can(&self.solver, &z.not()));
        let b = match (t, f) {
            (true, false) => true,
            (false, true) => false,
            (false, false) => return unsupported("an infeasible path (Z3 found no sizes)"),
            (true, true) => {
                let b = match self.trail.get(self.pos) {
                    Some(&b) => b,
                    None => {
                        self.trail.push(true);
                        true
                    }
                };
                self.pos += 1;
                self.path
                    .cond
                    .push(if b { c.clone() } else { c.clone().not() });
                b
            }
        };
        self.solver.assert(&if b { z } else { z.not() });
        self.known_cache.clear();
        self.classes = None;
        self.memo.insert(c.clone(), b);
        Ok(b)
    }

    /// The one value `p` has on this path, if the path fixes it (a row length the
    /// masks pinned, read as a float by a mean).
    pub(super) fn pinned(&self, p: &Poly) -> Option<i128> {
        if self.solver.check() != SatResult::Sat {
            return None;
        }
        let v = self
            .solver
            .get_model()?
            .eval(&self.smt.int(p), true)?
            .as_i64()? as i128;
        self.holds(&Cond::cmp(Rel::Eq, p, &Poly::constant(v)))
            .then_some(v)
    }

    /// Whether `c` holds on every continuation of this path.
    pub(super) fn holds(&self, c: &Cond) -> bool {
        self.assumed.contains(c) || self.smt.holds(&self.solver, c)
    }

    /// Whether the base constraints make symbol `s` non-negative (sizes are at least
    /// one, program ids at least zero).
    pub(super) fn nonneg_sym(&self, s: &str) -> bool {
        self.setup.pids.iter().any(|p| p.as_sym() == Some(s))
            || self.setup.sizes.iter().any(|z| z == s)
    }

    /// Asserts a lane's mask condition in a new solver scope (undone by
    /// [`Self::unassume_lane`]); its conjuncts then hold without a query.
    pub(super) fn assume_lane(&mut self, c: &Cond) {
        self.solver.push();
        self.solver.assert(&self.smt.cond(c));
        self.assumed = super::guards::conjuncts(c);
    }

    pub(super) fn unassume_lane(&mut self) {
        self.assumed.clear();
        self.solver.pop(1);
    }

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
        if self.depth > 64 {
            return unsupported("call/region nesting deeper than 64");
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
            match op.name.as_str() {
                "scf.yield" | "tt.reduce.return" => {
                    return Ok(Flow::Yield(self.operands(op, env).map_err(at)?))
                }
                "tt.return" => return Ok(Flow::Return(self.operands(op, env).map_err(at)?)),
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
        match op.name.as_str() {
            "scf.if" => return self.scf_if(op, env),
            "scf.for" => return self.scf_for(op, env),
            "tt.reduce" => return self.reduce(op, env),
            "tt.call" => {
                let callee = match op.attr("callee") {
                    Some(Attr::Str(s)) => s.trim_start_matches('@').to_string(),
                    Some(Attr::Other(s)) => s.trim_start_matches('@').to_string(),
                    _ => return unsupported("tt.call without a callee"),
                };
                let Some(f) = self.module.func(&callee) else {
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
        let out_shape = || -> Vec<usize> {
            op.result_types
                .first()
                .map(|t| t.shape().iter().map(|&d| d.max(0) as usize).collect())
                .unwrap_or_default()
        };
        let bits = op.result_types.first().map_or(64, super::overflow::width);
        let libdevice = match (name, op.attr("symbol").and_then(Attr::as_str)) {
            ("tt.extern_elementwise", Some(sym)) => extern_unary(sym),
            _ => None,
        };
        if let Some(f) = unary_func(name).or(libdevice) {
            return self.map1(arg(0)?, |r, l| match l {
                Lane::Float(x) => Ok(Lane::Float(r.domain.func(f, x))),
                _ => unsupported(format!("{name} of a non-float")),
            });
        }
        if let Some(b) = float_binary(name) {
            return self.map2(arg(0)?, arg(1)?, |r, x, y| match (x, y) {
                (Lane::Float(x), Lane::Float(y)) => Ok(Lane::Float(r.domain.binary(b, x, y))),
                (Lane::Undef, _) | (_, Lane::Undef) => Ok(Lane::Undef),
                _ => unsupported(format!("{name} of non-floats")),
            });
        }
        match name {
            "arith.addi" | "arith.subi" | "arith.muli" | "arith.maxsi" | "arith.minsi" => {
                let v = self.map2(arg(0)?, arg(1)?, |_, x, y| match (x, y) {
                    (Lane::Int(a), Lane::Int(b)) => Ok(Lane::Int(match name {
                        "arith.addi" => a.add(&b),
                        "arith.subi" => a.sub(&b),
                        "arith.muli" => a.mul(&b),
                        "arith.maxsi" => a.max_with(&b),
                        _ => a.min_with(&b),
                    })),
                    _ => unsupported(format!("{name} of non-integers")),
                })?;
                if matches!(name, "arith.addi" | "arith.subi" | "arith.muli") {
                    self.fits_width(&v, bits, &format!("i{bits} index arithmetic"), op)?;
                }
                Ok(v)
            }
            "arith.divsi" | "arith.divui" | "arith.floordivsi" | "arith.remsi" | "arith.remui"
            | "arith.ceildivsi" | "arith.ceildivui" => {
                self.map2(arg(0)?, arg(1)?, |r, x, y| match (x, y) {
                    (Lane::Int(a), Lane::Int(b)) => {
                        // Truncating and floor division agree for a >= 0, b > 0.
                        let zero = Poly::default();
                        if !r.holds(&Cond::cmp(Rel::Le, &zero, &a))
                            || !r.holds(&Cond::cmp(Rel::Lt, &zero, &b))
                        {
                            return unsupported(format!(
                                "{name} of an operand that may be negative"
                            ));
                        }
                        Ok(Lane::Int(match name {
                            "arith.remsi" | "arith.remui" => a.modulo(&b),
                            "arith.ceildivsi" | "arith.ceildivui" => {
                                a.add(&b).sub(&Poly::constant(1)).floor_div(&b)
                            }
                            _ => a.floor_div(&b),
                        }))
                    }
                    _ => unsupported(format!("{name} of non-integers")),
                })
            }
            "arith.andi" | "arith.ori" | "arith.xori" => {
                self.map2(arg(0)?, arg(1)?, |r, x, y| match (x, y) {
                    (Lane::Bool(a), Lane::Bool(b)) => Ok(Lane::Bool(match name {
                        "arith.andi" => Cond::and(a, b),
                        "arith.ori" => Cond::or(a, b),
                        _ => Cond::or(Cond::and(a.clone(), b.clone().not()), Cond::and(a.not(), b)),
                    })),
                    (Lane::FBool(a), Lane::FBool(b)) => {
                        let t = match name {
                            "arith.andi" => r.domain.and(a, b),
                            "arith.ori" => r.domain.or(a, b),
                            _ => return unsupported("xor of data-dependent conditions"),
                        };
                        Ok(truth(t))
                    }
                    (Lane::Bool(c), Lane::FBool(f)) | (Lane::FBool(f), Lane::Bool(c)) => {
                        // Decide the integer side on this path.
                        let b = r.decide(&c)?;
                        Ok(match (name, b) {
                            ("arith.andi", true) | ("arith.ori", false) => Lane::FBool(f),
                            ("arith.andi", false) => Lane::Bool(Cond::Const(false)),
                            ("arith.ori", true) => Lane::Bool(Cond::Const(true)),
                            _ => return unsupported("xor of data-dependent conditions"),
                        })
                    }
                    _ => unsupported(format!("{name} of non-booleans (bitwise integer ops)")),
                })
            }
            "arith.extsi" | "arith.extui" | "arith.trunci" | "arith.index_cast"
            | "arith.index_castui" => {
                // Exact where the value fits the target (a narrowing is an obligation)
                // and a zero extension reads a non-negative value.
                let src = op.operand_types.first().map_or(64, super::overflow::width);
                let zero_extend = matches!(name, "arith.extui" | "arith.index_castui");
                let v = self.map1(arg(0)?, |r, l| match l {
                    Lane::Int(p) => {
                        let nonneg = Cond::cmp(Rel::Le, &Poly::default(), &p);
                        if zero_extend && bits > src && !r.holds(&nonneg) {
                            return unsupported(format!(
                                "{name} of a value that may be negative (zero extension)"
                            ));
                        }
                        Ok(Lane::Int(p))
                    }
                    l @ (Lane::Bool(_) | Lane::FBool(_)) => Ok(l),
                    _ => unsupported(format!("{name} of a non-integer")),
                })?;
                if bits < src {
                    self.fits_width(&v, bits, &format!("cast to i{bits}"), op)?;
                }
                Ok(v)
            }
            "arith.constant" => self.constant(op),
            "tt.get_program_id" | "tt.get_num_programs" => {
                let axis = op.attr("axis").and_then(Attr::as_int).unwrap_or(0);
                if !(0..3).contains(&axis) {
                    return unsupported(format!("axis {axis}"));
                }
                let v = if name == "tt.get_program_id" {
                    self.setup.pids[axis as usize].clone()
                } else {
                    self.setup.grid[axis as usize].clone()
                };
                Ok(Val::scalar(Lane::Int(v)))
            }
            "tt.make_range" => {
                let start = op.attr("start").and_then(Attr::as_int).unwrap_or(0);
                let end = op.attr("end").and_then(Attr::as_int).unwrap_or(0);
                let lanes: Vec<Lane> = (start..end)
                    .map(|i| Lane::Int(Poly::constant(i as i128)))
                    .collect();
                Ok(Val {
                    shape: vec![lanes.len()],
                    lanes,
                })
            }
            "arith.negf" => self.map1(arg(0)?, |r, l| match l {
                Lane::Float(x) => Ok(Lane::Float(r.domain.neg(x))),
                _ => unsupported("negf of a non-float"),
            }),
            "math.fma" => {
                let (a, b, c) = (arg(0)?, arg(1)?, arg(2)?);
                let ab = self.map2(a, b, |r, x, y| match (x, y) {
                    (Lane::Float(x), Lane::Float(y)) => {
                        Ok(Lane::Float(r.domain.binary(Binary::Mul, x, y)))
                    }
                    _ => unsupported("fma of non-floats"),
                })?;
                self.map2(&ab, c, |r, x, y| match (x, y) {
                    (Lane::Float(x), Lane::Float(y)) => {
                        Ok(Lane::Float(r.domain.binary(Binary::Add, x, y)))
                    }
                    _ => unsupported("fma of non-floats"),
                })
            }
            "arith.cmpi" => {
                let pred = op.attr("predicate").and_then(Attr::as_str).unwrap_or("");
                let pred = pred.to_string();
                self.map2(arg(0)?, arg(1)?, |r, x, y| {
                    let (a, b) = match (x, y) {
                        (Lane::Int(a), Lane::Int(b)) => (a, b),
                        _ => return unsupported("cmpi of non-integers"),
                    };
                    if pred.starts_with('u') {
                        let zero = Poly::default();
                        if !r.holds(&Cond::cmp(Rel::Le, &zero, &a))
                            || !r.holds(&Cond::cmp(Rel::Le, &zero, &b))
                        {
                            return unsupported(
                                "unsigned comparison of values that may be negative",
                            );
                        }
                    }
                    Ok(Lane::Bool(match pred.as_str() {
                        "slt" | "ult" => Cond::cmp(Rel::Lt, &a, &b),
                        "sle" | "ule" => Cond::cmp(Rel::Le, &a, &b),
                        "sgt" | "ugt" => Cond::cmp(Rel::Lt, &b, &a),
                        "sge" | "uge" => Cond::cmp(Rel::Le, &b, &a),
                        "eq" => Cond::cmp(Rel::Eq, &a, &b),
                        "ne" => Cond::cmp(Rel::Ne, &a, &b),
                        p => return unsupported(format!("cmpi predicate {p}")),
                    }))
                })
            }
            "arith.cmpf" => {
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
            "arith.select" => {
                let (c, a, b) = (arg(0)?, arg(1)?, arg(2)?);
                let shape = if a.shape.is_empty() {
                    c.shape.clone()
                } else {
                    a.shape.clone()
                };
                let (c, a, b) = (bcast(c, &shape)?, bcast(a, &shape)?, bcast(b, &shape)?);
                let mut lanes = Vec::with_capacity(a.lanes.len());
                for i in 0..a.lanes.len() {
                    let l = match &c.lanes[i] {
                        Lane::Bool(k) => match self.mask_lane(k)? {
                            MaskLane::On => a.lanes[i].clone(),
                            MaskLane::Off => b.lanes[i].clone(),
                            MaskLane::Guard(k) => match (&a.lanes[i], &b.lanes[i]) {
                                (Lane::Float(x), Lane::Float(y)) => {
                                    let g = self.guard(&k);
                                    Lane::Float(self.domain.terms.select(g, *x, *y))
                                }
                                // Integers and pointers still fork.
                                _ => {
                                    if self.decide(&k)? {
                                        a.lanes[i].clone()
                                    } else {
                                        b.lanes[i].clone()
                                    }
                                }
                            },
                        },
                        Lane::FBool(k) => match (&a.lanes[i], &b.lanes[i]) {
                            (Lane::Float(x), Lane::Float(y)) => {
                                Lane::Float(self.domain.select(*k, *x, *y))
                            }
                            (x, y) => match (self.data_int(x), self.data_int(y)) {
                                (Some((x, xlo)), Some((y, ylo))) => {
                                    Lane::DataInt(self.domain.select(*k, x, y), xlo.min(ylo))
                                }
                                _ => return unsupported("data-dependent select of non-floats"),
                            },
                        },
                        _ => return unsupported("select on a non-boolean"),
                    };
                    lanes.push(l);
                }
                Ok(Val { shape, lanes })
            }
            "arith.extf" | "arith.truncf" | "tt.fp_to_fp" => self.map1(arg(0)?, |_, l| match l {
                l @ (Lane::Float(_) | Lane::Undef) => Ok(l),
                _ => unsupported(format!("{name} of a non-float")),
            }),
            "arith.sitofp" | "arith.uitofp" => self.map1(arg(0)?, |r, l| match l {
                Lane::Int(p) => match p.as_const().or_else(|| r.pinned(&p)) {
                    Some(c) => Ok(Lane::Float(r.domain.constant(c as f64))),
                    None => Ok(Lane::Float(super::at_index::real_of(r.domain.terms, &p))),
                },
                Lane::Bool(c) => {
                    let b = r.decide(&c)?;
                    Ok(Lane::Float(r.domain.constant(if b { 1.0 } else { 0.0 })))
                }
                Lane::DataInt(v, lo) if lo >= 0 || name == "arith.sitofp" => Ok(Lane::Float(v)),
                _ => unsupported(format!("{name} of a non-integer")),
            }),
            "tt.splat" => {
                let a = arg(0)?;
                if a.lanes.len() != 1 {
                    return unsupported("splat of a non-scalar");
                }
                Ok(Val::splat(a.lanes[0].clone(), &out_shape()))
            }
            "tt.broadcast" => bcast(arg(0)?, &out_shape()),
            "tt.expand_dims" | "tt.reshape" => {
                if op.attrs.contains_key("allow_reorder") {
                    return unsupported("reshape with allow_reorder");
                }
                let a = arg(0)?;
                let shape = out_shape();
                if shape.iter().product::<usize>() != a.lanes.len() {
                    return unsupported("reshape changes the element count");
                }
                Ok(Val {
                    shape,
                    lanes: a.lanes.clone(),
                })
            }
            "tt.trans" => {
                let a = arg(0)?;
                let order: Vec<usize> = match op.attr("order") {
                    Some(Attr::Array(v)) => v.iter().map(|&i| i.max(0) as usize).collect(),
                    _ => (0..a.shape.len()).rev().collect(),
                };
                transpose(a, &order)
            }
            "tt.addptr" => self.map2(arg(0)?, arg(1)?, |_, p, o| match (p, o) {
                (Lane::Ptr { tensor, off }, Lane::Int(d)) => Ok(Lane::Ptr {
                    tensor,
                    off: off.add(&d),
                }),
                _ => unsupported("addptr of a non-pointer or non-integer"),
            }),
            "tt.load" => self.load(op, args),
            "tt.store" => {
                self.store(op, args)?;
                Ok(Val::scalar(Lane::Int(Poly::default())))
            }
            "tt.dot" => {
                if matches!(op.attr("inputPrecision"), Some(Attr::Str(p)) if p == "tf32") {
                    // Read as exact (Precision::Real), as the bounded run does.
                }
                self.dot(arg(0)?, arg(1)?, arg(2)?)
            }
            "tt.assert" | "tt.print" => Ok(Val::scalar(Lane::Int(Poly::default()))),
            other => unsupported(format!("op {other} is not read for all sizes yet")),
        }
    }

    /// The row-major index of flat offset `off` in `tensor`, each coordinate proved
    /// within its axis on this path (so the access is in bounds). Otherwise records a
    /// failure, with sizes where the access leaves the tensor when Z3 finds them.
    fn index_of(&mut self, tensor: usize, off: &Poly, op: &Op) -> Option<Vec<Poly>> {
        let t = &self.setup.tensors[tensor];
        let zero = Poly::default();
        // A lower bound that the form shows (sizes and program ids are non-negative in
        // the base) needs no query.
        let within = |run: &Self, x: &Poly, d: &Poly| {
            (x.nonneg_over(&|s| run.nonneg_sym(s)) || run.holds(&Cond::cmp(Rel::Le, &zero, x)))
                && run.holds(&Cond::cmp(Rel::Lt, x, d))
        };
        let mut rest = off.clone();
        let mut idx = Vec::with_capacity(t.shape.len());
        let mut ok = true;
        for (k, d) in t.shape.iter().enumerate().rev() {
            if k == 0 {
                ok &= within(self, &rest, d);
                idx.push(rest.clone());
                break;
            }
            // A size the path pins (`N == 8`) divides as its value.
            let split = match rest.split_by(d) {
                Some((q, r)) if within(self, &r, d) => Some((q, r)),
                _ => self
                    .pinned(d)
                    .and_then(|c| rest.split_by(&Poly::constant(c)))
                    .filter(|(_, r)| within(self, r, d)),
            };
            match split {
                Some((q, r)) => {
                    idx.push(r);
                    rest = q;
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if t.shape.is_empty() {
            ok = off.as_const() == Some(0);
        }
        if ok {
            idx.reverse();
            return Some(idx);
        }
        // In bounds after all (an index we cannot name), or a real escape?
        let numel = t.numel();
        let inside = Cond::and(
            Cond::cmp(Rel::Le, &zero, off),
            Cond::cmp(Rel::Lt, off, &numel),
        );
        self.solver.push();
        self.solver.assert(&self.smt.cond(&inside).not());
        let witness = small_witness(&self.solver, self.smt, self.setup.sizes);
        let escapes = witness.is_some();
        self.solver.pop(1);
        let message = if escapes {
            format!("`{}` at offset {off} may lie outside the tensor", t.name)
        } else {
            format!(
                "`{}` at offset {off} does not decompose into an index",
                t.name
            )
        };
        self.path.failures.push(Failure {
            message,
            line: op.line,
            loc: op.loc.clone(),
            witness,
        });
        None
    }

    /// Ends the run once an access is shown to leave its tensor at some sizes: that is
    /// the finding ([`explore`] reports it), and the rest of the path adds nothing.
    fn stop_if_escaped(&self, index: &Option<Vec<Poly>>) -> R<()> {
        if index.is_none()
            && self
                .path
                .failures
                .last()
                .is_some_and(|f| f.witness.is_some())
        {
            return unsupported("an access leaves its tensor");
        }
        Ok(())
    }

    fn constant(&mut self, op: &Op) -> R<Val> {
        let ty = op.result_types.first().cloned().unwrap_or(Type::Int(32));
        let shape: Vec<usize> = ty.shape().iter().map(|&d| d.max(0) as usize).collect();
        let elem_ty = ty.elem().clone();
        let mut make = |s: &Scalar| -> Lane {
            match (s, &elem_ty) {
                (Scalar::Bool(b), _) => Lane::Bool(Cond::Const(*b)),
                (Scalar::Int(i), Type::Int(1)) => Lane::Bool(Cond::Const(*i & 1 == 1)),
                (Scalar::Int(i), Type::Float(_)) => Lane::Float(self.domain.constant(*i as f64)),
                (Scalar::Int(i), _) => Lane::Int(Poly::constant(*i)),
                (Scalar::Float(x), _) => Lane::Float(self.domain.constant(*x)),
            }
        };
        match op.attr("value") {
            Some(Attr::Scalar(s)) => Ok(Val::splat(make(s), &shape)),
            Some(Attr::Int(i)) => Ok(Val::splat(make(&Scalar::Int(*i as i128)), &shape)),
            Some(Attr::Dense { values, .. }) if values.len() == 1 => {
                Ok(Val::splat(make(&values[0]), &shape))
            }
            Some(Attr::Dense { values, .. }) if values.len() == shape.iter().product::<usize>() => {
                let lanes = values.iter().map(&mut make).collect();
                Ok(Val { shape, lanes })
            }
            other => unsupported(format!("unreadable constant {other:?}")),
        }
    }

    fn mask_lanes(&mut self, mask: Option<&Rc<Val>>, shape: &[usize]) -> R<Vec<MaskLane>> {
        let n: usize = shape.iter().product();
        let Some(m) = mask else {
            return Ok(vec![MaskLane::On; n]);
        };
        let m = bcast(m, shape)?;
        let mut on = Vec::with_capacity(n);
        // The solver's context is the same for every lane of one mask: conditions
        // settled for one lane (a tile row's, a K column's) hold for the others.
        self.lane_known = Some(HashMap::new());
        for l in &m.lanes {
            let lane = match l {
                Lane::Bool(c) => self.mask_lane(c),
                _ => unsupported("a mask that depends on the data"),
            };
            match lane {
                Ok(lane) => on.push(lane),
                Err(e) => {
                    self.lane_known = None;
                    return Err(e);
                }
            }
        }
        self.lane_known = None;
        Ok(on)
    }

    fn load(&mut self, op: &Op, args: &[Rc<Val>]) -> R<Val> {
        let Some(ptrs) = args.first() else {
            return unsupported("load without a pointer");
        };
        let on = self.mask_lanes(args.get(1), &ptrs.shape)?;
        let other = match args.get(2) {
            Some(o) => Some(bcast(o, &ptrs.shape)?),
            None => None,
        };
        let mut lanes = Vec::with_capacity(on.len());
        for (i, p) in ptrs.lanes.iter().enumerate() {
            let other_lane = || match &other {
                Some(o) => o.lanes[i].clone(),
                None => Lane::Undef,
            };
            let guard = match &on[i] {
                MaskLane::Off => {
                    lanes.push(other_lane());
                    continue;
                }
                MaskLane::On => None,
                MaskLane::Guard(c) => Some(c.clone()),
            };
            let Lane::Ptr { tensor, off } = p else {
                return unsupported("load through a non-pointer");
            };
            if self.probing {
                lanes.push(Lane::Float(
                    self.domain.terms.param(&format!("probe@{off}")),
                ));
                continue;
            }
            let t = &self.setup.tensors[*tensor];
            if t.role != Role::In {
                return unsupported(format!(
                    "a load from `{}`, which the kernel writes (memory is not modelled for all sizes yet)",
                    t.name
                ));
            }
            let name = t.name.clone();
            // A guarded lane is read only where its mask holds.
            if let Some(c) = &guard {
                self.assume_lane(c);
            }
            let index = self.index_of(*tensor, off, op);
            if guard.is_some() {
                self.unassume_lane();
            }
            self.stop_if_escaped(&index)?;
            let atom = match &index {
                Some(idx) => {
                    super::at_index::input_atom(self.domain.terms, &mut self.atoms, &name, idx)
                }
                None => self.domain.terms.param(&format!("{name}@({off})")),
            };
            self.path.loads.push(Access {
                tensor: *tensor,
                off: off.clone(),
                line: op.line,
                loc: op.loc.clone(),
                value: None,
                index,
                vars: Vec::new(),
                guard: guard.iter().cloned().collect(),
            });
            lanes.push(match guard {
                None => Lane::Float(atom),
                Some(c) => match other_lane() {
                    Lane::Float(o) => {
                        let g = self.guard(&c);
                        Lane::Float(self.domain.terms.select(g, atom, o))
                    }
                    _ => return unsupported("a lazily masked load without a float other="),
                },
            });
        }
        Ok(Val {
            shape: ptrs.shape.clone(),
            lanes,
        })
    }

    /// An integer lane with a known value, or a data-dependent one, as (real, least value).
    /// An integer over sizes or iterations (a loop's index picked by the data, as in a
    /// running argmax) is its real [`super::at_index::real_of`], least value 0 where the
    /// path proves it non-negative (else unbounded below).
    pub(super) fn data_int(&mut self, l: &Lane) -> Option<(TermId, i128)> {
        match l {
            Lane::Int(p) => match p.as_const().or_else(|| self.pinned(p)) {
                Some(c) => Some((self.domain.constant(c as f64), c)),
                None => {
                    let lo = if self.holds(&Cond::cmp(Rel::Le, &Poly::default(), p)) {
                        0
                    } else {
                        i128::MIN
                    };
                    Some((super::at_index::real_of(self.domain.terms, p), lo))
                }
            },
            Lane::DataInt(v, lo) => Some((*v, *lo)),
            _ => None,
        }
    }

    fn store(&mut self, op: &Op, args: &[Rc<Val>]) -> R<()> {
        let (Some(ptrs), Some(vals)) = (args.first(), args.get(1)) else {
            return unsupported("store without pointer or value");
        };
        if self.probing {
            return Ok(());
        }
        let vals = bcast(vals, &ptrs.shape)?;
        let on = self.mask_lanes(args.get(2), &ptrs.shape)?;
        // Guarded lanes are matched like partials (a reduction within one block).
        self.store_pinned = if self.partials.is_empty() && self.guards.is_empty() {
            BTreeMap::new()
        } else {
            self.setup
                .sizes
                .iter()
                .filter_map(|s| Some((Arc::from(s.as_str()), self.pinned(&Poly::sym(s))?)))
                .collect()
        };
        // Resolutions are claims under the solver's context, which is the same for
        // consecutive lanes with one guard; so they share a memo.
        let mut memo: (Option<Cond>, HashMap<TermId, TermId>) = (None, HashMap::new());
        self.at_memo.clear();
        for (i, p) in ptrs.lanes.iter().enumerate() {
            let lane_guard = match &on[i] {
                MaskLane::Off => continue,
                MaskLane::On => None,
                MaskLane::Guard(c) => Some(c.clone()),
            };
            let Lane::Ptr { tensor, off } = p else {
                return unsupported("store through a non-pointer");
            };
            // A guarded lane is written (and its value read) only where its mask holds.
            if let Some(c) = &lane_guard {
                self.assume_lane(c);
            }
            self.store_guard = lane_guard.clone();
            if memo.0 != lane_guard {
                memo = (lane_guard.clone(), HashMap::new());
                self.at_memo.clear();
            }
            let value = match &vals.lanes[i] {
                Lane::Float(v) | Lane::DataInt(v, _) => {
                    let v = self.settle_known_guards(*v);
                    self.resolve(v, &mut memo.1).and_then(|v| self.settle(v))
                }
                Lane::Undef => unsupported("a masked-off lane (loaded without other=) is stored"),
                _ => unsupported("a store of a non-float value"),
            };
            let index = value.is_ok().then(|| self.index_of(*tensor, off, op));
            self.store_guard = None;
            if lane_guard.is_some() {
                self.unassume_lane();
            }
            let (value, index) = (value?, index.flatten());
            self.stop_if_escaped(&index)?;
            let (vars, mut guard) = self.loop_guard();
            guard.extend(lane_guard);
            self.path.stores.push(Access {
                tensor: *tensor,
                off: off.clone(),
                line: op.line,
                loc: op.loc.clone(),
                value: Some(value),
                index,
                vars,
                guard,
            });
        }
        Ok(())
    }

    fn dot(&mut self, a: &Val, b: &Val, c: &Val) -> R<Val> {
        if a.shape.len() != 2 || b.shape.len() != 2 || c.shape.len() != 2 {
            return unsupported("a batched or non-2-D dot");
        }
        let (m, k, n) = (a.shape[0], a.shape[1], b.shape[1]);
        if b.shape[0] != k || c.shape != [m, n] {
            return unsupported("dot shapes do not match");
        }
        let mut lanes = Vec::with_capacity(m * n);
        for i in 0..m {
            for j in 0..n {
                let mut vals = Vec::with_capacity(k + 1);
                for q in 0..k {
                    match (&a.lanes[i * k + q], &b.lanes[q * n + j]) {
                        (Lane::Float(x), Lane::Float(y)) => {
                            vals.push(self.domain.binary(Binary::Mul, *x, *y))
                        }
                        _ => return unsupported("dot of undefined or non-float lanes"),
                    }
                }
                match &c.lanes[i * n + j] {
                    Lane::Float(acc) => vals.push(*acc),
                    _ => return unsupported("dot accumulator is not a float"),
                }
                lanes.push(Lane::Float(self.domain.sum(&vals)));
            }
        }
        Ok(Val {
            shape: vec![m, n],
            lanes,
        })
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
        let count = super::loops::trip_count(&lo, &hi, step_c);
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

    fn reduce(&mut self, op: &Op, env: &mut Env) -> R<Vec<Rc<Val>>> {
        let inputs = self.operands(op, env)?;
        let axis = op.attr("axis").and_then(Attr::as_int).unwrap_or(0).max(0) as usize;
        let Some(first) = inputs.first() else {
            return unsupported("reduce without operands");
        };
        let shape = first.shape.clone();
        if axis >= shape.len() {
            return unsupported("reduce axis out of range");
        }
        let out_shape: Vec<usize> = shape
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != axis)
            .map(|(_, &d)| d)
            .collect();
        let inner: usize = shape[axis + 1..].iter().product();
        let n = shape[axis];
        let outer: usize = shape[..axis].iter().product();
        let fast = simple_combine(op);
        let mut outs: Vec<Vec<Lane>> = vec![Vec::new(); inputs.len()];
        for o in 0..outer {
            for i in 0..inner {
                let lanes: Vec<usize> = (0..n).map(|k| (o * n + k) * inner + i).collect();
                if lanes
                    .iter()
                    .any(|&l| inputs.iter().any(|v| v.lanes[l] == Lane::Undef))
                {
                    for out in outs.iter_mut() {
                        out.push(Lane::Undef);
                    }
                    continue;
                }
                if let (Some(b), 1) = (fast, inputs.len()) {
                    let vals: Option<Vec<TermId>> = lanes
                        .iter()
                        .map(|&l| match inputs[0].lanes[l] {
                            Lane::Float(v) => Some(v),
                            _ => None,
                        })
                        .collect();
                    if let Some(vals) = vals {
                        outs[0].push(Lane::Float(combine_all(&mut self.domain, b, &vals)));
                        continue;
                    }
                }
                let Some(region) = op.regions.first() else {
                    return unsupported("reduce without a combine region");
                };
                let mut acc: Vec<Rc<Val>> = inputs
                    .iter()
                    .map(|v| Rc::new(Val::scalar(v.lanes[lanes[0]].clone())))
                    .collect();
                for &l in &lanes[1..] {
                    let mut block_args = acc.clone();
                    block_args.extend(
                        inputs
                            .iter()
                            .map(|v| Rc::new(Val::scalar(v.lanes[l].clone()))),
                    );
                    acc = match self.run_region(region, block_args, env)? {
                        Flow::Yield(v) | Flow::Return(v) => v,
                    };
                }
                for (out, a) in outs.iter_mut().zip(&acc) {
                    out.push(a.lanes[0].clone());
                }
            }
        }
        Ok(outs
            .into_iter()
            .map(|lanes| {
                Rc::new(Val {
                    shape: out_shape.clone(),
                    lanes,
                })
            })
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

pub(super) fn truth(t: Truth<TermId>) -> Lane {
    match t {
        Truth::Known(b) => Lane::Bool(Cond::Const(b)),
        Truth::Unknown(v) => Lane::FBool(v),
    }
}

/// `a` broadcast (equal rank, unit axes stretched; a scalar splatted) to `shape`.
fn bcast(a: &Val, shape: &[usize]) -> R<Val> {
    if a.shape == shape {
        return Ok(a.clone());
    }
    if a.lanes.len() == 1 {
        return Ok(Val::splat(a.lanes[0].clone(), shape));
    }
    if a.shape.len() != shape.len() {
        return unsupported(format!("cannot broadcast {:?} to {:?}", a.shape, shape));
    }
    let n: usize = shape.iter().product();
    let mut lanes = Vec::with_capacity(n);
    for flat in 0..n {
        let mut rem = flat;
        let mut src = 0;
        let mut stride = 1;
        for k in (0..shape.len()).rev() {
            let i = rem % shape[k];
            rem /= shape[k];
            let d = a.shape[k];
            if d != 1 && d != shape[k] {
                return unsupported(format!("cannot broadcast {:?} to {:?}", a.shape, shape));
            }
            src += if d == 1 { 0 } else { i * stride };
            stride *= d;
        }
        lanes.push(a.lanes[src].clone());
    }
    Ok(Val {
        shape: shape.to_vec(),
        lanes,
    })
}

fn transpose(a: &Val, order: &[usize]) -> R<Val> {
    if order.len() != a.shape.len() {
        return unsupported("transpose order of the wrong rank");
    }
    let shape: Vec<usize> = order.iter().map(|&k| a.shape[k]).collect();
    let mut in_strides = vec![1usize; a.shape.len()];
    for k in (0..a.shape.len().saturating_sub(1)).rev() {
        in_strides[k] = in_strides[k + 1] * a.shape[k + 1];
    }
    let n: usize = shape.iter().product();
    let mut lanes = Vec::with_capacity(n);
    for flat in 0..n {
        let mut rem = flat;
        let mut src = 0;
        for k in (0..shape.len()).rev() {
            let i = rem % shape[k];
            rem /= shape[k];
            src += i * in_strides[order[k]];
        }
        lanes.push(a.lanes[src].clone());
    }
    Ok(Val { shape, lanes })
}

/// Sizes satisfying `solver`'s assertions, small ones first (every size at most 16,
/// then 1024, then any): a witness a person can replay. `None` when Z3 finds none.
pub fn small_witness<'ctx>(
    solver: &z3::Solver<'ctx>,
    smt: &Smt<'ctx>,
    sizes: &[String],
) -> Option<Vec<(String, i64)>> {
    for cap in [Some(16), Some(1024), None] {
        solver.push();
        if let Some(cap) = cap {
            for s in sizes {
                let c = Cond::cmp(Rel::Le, &Poly::sym(s), &Poly::constant(cap));
                solver.assert(&smt.cond(&c));
            }
        }
        let found = (solver.check() == SatResult::Sat)
            .then(|| solver.get_model())
            .flatten()
            .map(|m| {
                sizes
                    .iter()
                    .filter_map(|s| {
                        let v = m.eval(&z3::ast::Int::new_const(smt.ctx, s.as_str()), true)?;
                        Some((s.clone(), v.as_i64()?))
                    })
                    .collect()
            });
        solver.pop(1);
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The name of the real-valued atom for element `idx` of tensor `name`; the formula
/// side names its inputs the same way ([`super::at_index`]).
pub fn atom_name(name: &str, idx: &[Poly]) -> String {
    let parts: Vec<String> = idx.iter().map(|p| p.to_string()).collect();
    format!("{name}[{}]", parts.join(", "))
}
