//! The state of one all-sizes run along one path ([`Run`]), its solver scopes
//! ([`PathSolver`]) and the questions every part of the run asks the path: `decide`
//! (forking where both sides are feasible), `holds`, `pinned`.
//!
//! Invariant: the path's condition only grows while a program runs; `decide` asserts
//! the side taken, so later questions are asked under it.

use super::lane::{unsupported, Lane, R};
use super::mask::MaskLane;
use super::mask::{conjuncts, Classes};
use super::records::{Path, Setup};
use super::summary::DomainKey;
use super::summary::{LoopCtx, Partial};
use super::sym::{Cond, Poly, Rel, Smt};
use crate::exec::domain::{Binary, Domain, Symbolic, Truth};
use crate::exec::table::IntOp;
use crate::exec::values::Kind;
use crate::term::{CmpOp, TermId};
use crate::triton_ir::ast::Module;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use z3::SatResult;

/// The input atoms of a template's summand at its holes, and its reduced extent, by
/// the template's key (its node's text, which also names its atoms) and the pinned
/// sizes; `None` where it is not read at the holes. See `Run::match_template`.
pub(super) type Placeholders =
    HashMap<String, HashMap<BTreeMap<Arc<str>, i128>, Option<Placeholder>>>;
pub(super) type Placeholder = (Vec<(String, Vec<Poly>)>, Poly);

/// A Z3 solver that counts its scopes, so a path's can be unwound whatever it left
/// open (its `push`/`pop` shadow the solver's own).
pub(super) struct PathSolver<'ctx> {
    solver: z3::Solver<'ctx>,
    depth: std::cell::Cell<u32>,
}

impl<'ctx> PathSolver<'ctx> {
    pub(super) fn new(ctx: &'ctx z3::Context) -> Self {
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
    pub(super) fn unwind(&self) {
        self.pop(self.depth.get());
    }
}

impl<'ctx> std::ops::Deref for PathSolver<'ctx> {
    type Target = z3::Solver<'ctx>;
    fn deref(&self) -> &z3::Solver<'ctx> {
        &self.solver
    }
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
    pub(super) depth: u32,
    /// Every input element atom made so far, with its index.
    pub(super) atoms: super::at_index::AtomIndex,
    /// The loop results not yet matched to a reduction (atoms standing for them).
    pub(super) partials: HashMap<TermId, Partial>,
    /// The loops over sizes being run, innermost last.
    pub(super) loops: Vec<LoopCtx>,
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
    pub(super) classes: Option<Classes>,
    /// The conjuncts of the lane mask asserted for the load or store lane at hand.
    pub(super) assumed: Vec<Cond>,
    /// Conditions settled for the lanes of the mask being read (see `mask_lanes`);
    /// `None` outside it.
    pub(super) lane_known: Option<HashMap<Cond, Option<bool>>>,
    /// Whether a term mentions a guard, and a partial (see `Run::guarded_lane`).
    pub(super) mentions_memo: rustc_hash::FxHashMap<TermId, (bool, bool)>,
    /// The guard atoms each term mentions (see `Run::guards_in`), and the empty set.
    pub(super) guards_memo: rustc_hash::FxHashMap<TermId, std::rc::Rc<[TermId]>>,
    pub(super) no_guards: std::rc::Rc<[TermId]>,
    /// Guard substitutions made so far, by assignment (see `Run::substitute`), and
    /// how many nodes they hold.
    pub(super) subst_memo: HashMap<Vec<(TermId, bool)>, rustc_hash::FxHashMap<TermId, TermId>>,
    pub(super) subst_memo_nodes: usize,
    /// Each term's first input atoms (see `summary::bind_holes`).
    pub(super) first_atoms: super::summary::FirstAtoms,
    /// Sizes where a loop or block adds a summand the formula lacks (see
    /// `Run::match_template`), kept for the failure it leads to; not recorded while
    /// `record_suspects` is off (a guessed grouping).
    pub(super) suspect: Option<Vec<(String, i64)>>,
    pub(super) record_suspects: bool,
    /// Reduction domains proved outside loops (see `Run::domain_is_extent`).
    pub(super) proved_domains: std::collections::HashSet<DomainKey>,
    /// The mask condition of the store lane being resolved (assumed on the solver).
    pub(super) store_guard: Option<Cond>,
    /// Formula terms at an index, for the lanes of one store under one guard (cleared
    /// with the store's resolution memo).
    pub(super) at_memo: super::at_index::AtMemo,
    /// Templates' summands at their holes, read once per pinned sizes (`resolve`).
    pub(super) placeholders: Placeholders,
    /// Summand pairs (common factors divided out) decided so far, and whether equal:
    /// equality of two terms holds or not whatever the path.
    pub(super) decided: HashMap<(TermId, TermId), bool>,
    /// The sizes the path fixes, read at the store being resolved (before any lane's
    /// mask is assumed, so it holds for every lane): loop summaries read the formula
    /// there.
    pub(super) store_pinned: BTreeMap<Arc<str>, i128>,
    /// The `cf.cond_br`s the path took (see `paths::MAX_BRANCHES`).
    pub(super) branches: u32,
    /// The path's Philox bit vectors (`super::bits`).
    pub(super) bits: super::bits::Bits,
    /// Whether a mask lane was left open as a guard (lazy masks), where a forking run
    /// would have decided it, forking if both sides are feasible.
    pub(super) opened_guard: bool,
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
        self.assumed = conjuncts(c);
    }

    pub(super) fn unassume_lane(&mut self) {
        self.assumed.clear();
        self.solver.pop(1);
    }
}

/// The all-sizes run's integers (see `exec::ints`): polynomials over the sizes, exact
/// (the ops that can wrap are obligations, `super::overflow`), and conditions over them
/// that the path decides, forking where both sides are feasible.
impl crate::exec::ints::Ints for Run<'_, '_, '_> {
    type I = Poly;
    type C = Cond;
    type E = super::lane::Unsupported;
    fn fail(&self, _kind: crate::exec::ErrorKind, message: String) -> Self::E {
        super::lane::Unsupported {
            message,
            line: 0,
            loc: Default::default(),
            witness: None,
        }
    }
    fn int(&mut self, n: i128) -> Poly {
        Poly::constant(n)
    }
    fn as_const(&self, a: &Poly) -> Option<i128> {
        a.as_const()
    }
    fn ring(&mut self, op: IntOp, _bits: u32, a: &Poly, b: &Poly) -> Poly {
        match op {
            IntOp::Add => a.add(b),
            IntOp::Sub => a.sub(b),
            IntOp::Mul => a.mul(b),
            IntOp::Max => a.max_with(b),
            _ => a.min_with(b),
        }
    }
    fn floor_div(&mut self, a: &Poly, b: &Poly) -> Poly {
        a.floor_div(b)
    }
    fn modulo(&mut self, a: &Poly, b: &Poly) -> Poly {
        a.modulo(b)
    }
    fn narrow(&mut self, a: &Poly, _bits: u32) -> Poly {
        a.clone()
    }
    fn nonneg(&mut self, a: &Poly) -> bool {
        self.holds(&Cond::cmp(Rel::Le, &Poly::default(), a))
    }
    fn positive(&mut self, a: &Poly) -> bool {
        self.holds(&Cond::cmp(Rel::Lt, &Poly::default(), a))
    }
    fn rel(&mut self, op: CmpOp, a: &Poly, b: &Poly) -> Cond {
        match op {
            CmpOp::Lt => Cond::cmp(Rel::Lt, a, b),
            CmpOp::Le => Cond::cmp(Rel::Le, a, b),
            CmpOp::Gt => Cond::cmp(Rel::Lt, b, a),
            CmpOp::Ge => Cond::cmp(Rel::Le, b, a),
            CmpOp::Eq => Cond::cmp(Rel::Eq, a, b),
            CmpOp::Ne => Cond::cmp(Rel::Ne, a, b),
        }
    }
    fn truth(&mut self, b: bool) -> Cond {
        Cond::Const(b)
    }
    fn cond_const(&self, c: &Cond) -> Option<bool> {
        c.as_const()
    }
    fn and(&mut self, a: &Cond, b: &Cond) -> Cond {
        Cond::and(a.clone(), b.clone())
    }
    fn or(&mut self, a: &Cond, b: &Cond) -> Cond {
        Cond::or(a.clone(), b.clone())
    }
    fn not(&mut self, a: &Cond) -> Cond {
        a.clone().not()
    }
    fn decide(&mut self, c: &Cond) -> R<bool> {
        Run::decide(self, c)
    }
}

/// The all-sizes run's lanes (see `exec::values`): integers and pointer offsets are
/// polynomials over the sizes, conditions on them are decided on the path or kept as
/// guards, and the reals are terms.
impl<'t> crate::exec::values::Values for Run<'_, '_, 't> {
    type D = Symbolic<'t>;
    type L = Lane;
    type I = Poly;
    type E = super::lane::Unsupported;
    fn floats(&mut self) -> &mut Symbolic<'t> {
        &mut self.domain
    }
    fn kind(&self, l: &Lane) -> Kind<TermId, Poly> {
        match l {
            Lane::Float(t) => Kind::Float(*t),
            Lane::FBool(t) => Kind::DataCond(*t),
            Lane::Bool(c) => match c.as_const() {
                Some(b) => Kind::Known(b),
                None => Kind::Other,
            },
            Lane::Int(p) => Kind::Int(p.clone()),
            Lane::Ptr { tensor, off } => Kind::Ptr {
                tensor: *tensor,
                offset: off.clone(),
            },
            Lane::Undef => Kind::Undef,
            Lane::DataInt(..) | Lane::Bits(_) => Kind::Other,
        }
    }
    fn float(&self, v: TermId) -> Lane {
        Lane::Float(v)
    }
    fn truth(&self, t: Truth<TermId>) -> Lane {
        super::lane::truth(t)
    }
    fn ptr(&self, tensor: usize, off: Poly) -> Lane {
        Lane::Ptr { tensor, off }
    }
    fn add_offset(&mut self, a: &Poly, b: &Poly) -> Poly {
        a.add(b)
    }
    fn unit(&self) -> Lane {
        Lane::Int(Poly::default())
    }
    fn fail(&self, _kind: crate::exec::ErrorKind, message: String) -> Self::E {
        crate::exec::ints::Ints::fail(self, _kind, message)
    }
    /// The all-sizes run proves values; what a debug op prints changes none.
    fn warn(&mut self, _: String) {}
    fn select_other(&mut self, c: &Lane, a: &Lane, b: &Lane) -> R<Lane> {
        if let Lane::Bits(k) = c {
            return self.bits_select(*k, a, b);
        }
        let Lane::Bool(k) = c else {
            return unsupported("select on a non-boolean");
        };
        Ok(match self.mask_lane(k)? {
            MaskLane::On => a.clone(),
            MaskLane::Off => b.clone(),
            MaskLane::Guard(k) => match (a, b) {
                (Lane::Float(x), Lane::Float(y)) => {
                    let g = self.guard(&k);
                    Lane::Float(self.domain.terms.select(g, *x, *y))
                }
                // Integers and pointers still fork.
                _ => {
                    if self.decide(&k)? {
                        a.clone()
                    } else {
                        b.clone()
                    }
                }
            },
        })
    }
    fn select_on_data(&mut self, c: TermId, a: &Lane, b: &Lane) -> Option<R<Lane>> {
        let ((x, xlo), (y, ylo)) = (self.data_int(a)?, self.data_int(b)?);
        Some(Ok(Lane::DataInt(self.domain.select(c, x, y), xlo.min(ylo))))
    }
    fn add_ptr_data(&mut self, _: &Lane, _: &Lane) -> Option<R<Lane>> {
        None
    }
    fn int(&mut self, n: i128) -> Lane {
        Lane::Int(Poly::constant(n))
    }
    fn int_value(&self, i: &Poly) -> Option<i128> {
        i.as_const()
    }
    fn data_int(&mut self, v: TermId, lo: i64, _hi: i64) -> Option<Lane> {
        Some(Lane::DataInt(v, lo as i128))
    }
}
