//! Synth: lifts a [`Spec`](crate::spec::Spec) to a tensor [`Formula`], proved equal by
//! `decide` (`lift` drives it over a kernel's outputs; `prove` is the bounded proof).
//!
//! Architecture invariant: a formula is returned only after every output element of
//! the candidate, instantiated at the same instance into the same `Terms`, is proved
//! `Equal` to the kernel's term by [`crate::decide`]. Where the search stalls, the
//! stalled sub-term is reported instead.
//!
//! The search is top-down over the list of element terms of one output tensor, using
//! the terms' root operators (see [`Synth::build`]): constants, scalars, inputs (with
//! transposes and NumPy broadcasting, matched exactly by instantiation), a term list
//! constant along an axis (a broadcast of a keepdim value), the same root operator for
//! every element (split child-wise; n-ary operands aligned across elements by their role,
//! see [`Synth::align_roles`]), n-ary `+`/`max`/`min` whose operands range over one axis
//! (a reduction; `Σ_j A[i,j]·B[j,d]`: `A @ B`), slices of inputs (`x[:, H:]`, bounds as
//! size expressions) and concatenations where the elements' input tensors change along an
//! axis. A 0-d result is broadcast to the output's shape. Afterwards `c · sum(a, axis)`
//! with `c = 1/n` reads as `mean(a, axis)` ([`meanify`]) and [`tidy`] makes it read like a
//! textbook. The search is bounded by counts of work ([`Options`]), never by time, so
//! a lift gives the same result on every machine.

use crate::formula::{BinaryOp, Formula, ReduceOp, ShapeEnv, UnaryOp};
use crate::prove::{instance, Instances};
use crate::term::{Node, TermId, Terms};
use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

mod causal;
mod enumerate;
mod gathers;
mod interleave;
mod layout;
mod leaves;
mod lift;
mod online;
mod order;
mod philox;
mod readable;
mod report;
mod scans;
mod structured;
mod windows;

pub use lift::{lift, lift_spec, lift_with, Lift, Lifted, Timings};
pub use readable::{meanify, tidy};

/// Built lists: `(shape, elements)` to the formula found (or the stalled term).
type Memo = rustc_hash::FxHashMap<(Vec<usize>, Vec<TermId>), Result<Formula, TermId>>;

/// The most operands an n-ary node may have for the split by input order (a stencil's
/// few taps); wider nodes are reductions, ordered there.
const MAX_ORDERED_SPLIT: usize = 16;

/// How hard synthesis tries: counts of work, the same on every machine.
#[derive(Clone, Debug)]
pub struct Options {
    /// Build steps of the search for one output, every pass together (a stall naming
    /// the sub-term after); the last stage (the whole output normalised) and a causal
    /// output's completion get as many again.
    pub steps: usize,
    /// Candidate formulas the enumerating fallback may form for one output, every
    /// stall together.
    pub enumerated: usize,
    /// Candidate formulas one stall may form.
    pub enumerated_per_stall: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            // Five passes of `BUDGET` steps; the suite's lifts take at most a few
            // thousand.
            steps: 100_000,
            enumerated: 15_000_000,
            enumerated_per_stall: 2_000_000,
        }
    }
}

/// The stages of the search for one output's formula whose elements are `elems`; each
/// stage runs only if those before it failed. `online`: normalise factor by factor
/// first, as for a long online recurrence. `Err`: the stalled sub-term.
fn synthesize(
    s: &mut Synth,
    opts: &Options,
    name: &str,
    shape: &[usize],
    elems: &[TermId],
    online: bool,
) -> Result<Formula, TermId> {
    let start = Instant::now();
    // A long online recurrence (a running sum rescaled at every step) is what
    // top-down cannot lift: it would descend every step before stalling. Its
    // elements are normalised factor by factor first (the recurrence folds to its
    // closed form); top-down runs where that fails.
    let online = online
        || elems
            .first()
            .is_some_and(|&e| online::long_recurrence(s.terms, e));
    let mut built = Err(elems[0]);
    if online {
        if let Some(f) = enumerate::whole_output(s, shape, elems, true) {
            built = Ok(f);
        }
        tracing::debug!("synth {}: online, by factor {:?}", name, start.elapsed());
    }
    if built.is_err() {
        s.restart();
        built = s.build(shape, elems);
        tracing::debug!(
            "synth {}: first pass {:?} ({})",
            name,
            start.elapsed(),
            if built.is_ok() { "lifted" } else { "stalled" }
        );
    }
    // Where top-down stalls, each stage below runs only if those before it failed:
    // (1) the whole output normalised factor by factor (merges online rescalings
    // and keeps the max subtraction), unless tried first; (2) top-down again,
    // normalising the stalled sub-terms only, then (3) enumerating there too; (4)
    // the whole output normalised at once, with a budget of its own.
    if built.is_err() && !online {
        s.restart();
        if let Some(f) = enumerate::whole_output(s, shape, elems, true) {
            built = Ok(f);
        }
        tracing::debug!("synth {}: by factor {:?}", name, start.elapsed());
    }
    if built.is_err() && !s.timed_out {
        s.fallback.enable(opts);
        for enumerate in [false, true] {
            s.fallback.enumerate = enumerate;
            s.restart();
            built = s.build(shape, elems);
            tracing::debug!(
                "synth {}: enumerate={enumerate} {:?}",
                name,
                start.elapsed()
            );
            if built.is_ok() || s.timed_out {
                break;
            }
        }
    }
    if built.is_err() {
        s.renew(opts);
        s.restart();
        if let Some(f) = enumerate::whole_output(s, shape, elems, false) {
            built = Ok(f);
        }
        tracing::debug!(
            "synth {}: whole output normalised {:?}",
            name,
            start.elapsed()
        );
    }
    built
}

/// [`crate::prove::prove`] with the failure in words (the path tests and benchmarks
/// call; deciding code matches on [`crate::prove::Failure`] instead).
pub fn prove(
    terms: &mut Terms,
    env: &ShapeEnv,
    f: &Formula,
    shape: &[usize],
    elems: &[TermId],
) -> Result<(), String> {
    crate::prove::prove(terms, env, f, shape, elems).map_err(|e| e.to_string())
}

fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for a in (0..shape.len()).rev() {
        let d = shape[a].max(1);
        idx[a] = flat % d;
        flat /= d;
    }
    idx
}

fn ravel(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (i, d)| acc * d + i)
}

/// A term as the term printer writes it, or a summary when that would be too long
/// (terms are DAGs; printed as trees they can be exponentially large).
pub(crate) fn show(terms: &Terms, t: TermId) -> String {
    const LIMIT: u64 = 4000;
    fn tree_size(terms: &Terms, t: TermId, memo: &mut HashMap<TermId, u64>) -> u64 {
        if let Some(&n) = memo.get(&t) {
            return n;
        }
        let mut n = 1u64;
        for c in terms.children(t) {
            n = n.saturating_add(tree_size(terms, c, memo));
        }
        memo.insert(t, n);
        n
    }
    let n = tree_size(terms, t, &mut HashMap::new());
    if n <= LIMIT {
        return terms.display(t).to_string();
    }
    let leaves = input_leaves(terms, t);
    let tensors: BTreeSet<&str> = leaves.iter().map(|&(n, _)| n).collect();
    let names: Vec<&str> = tensors.into_iter().collect();
    format!(
        "<a term of {n} nodes as a tree, over {} element(s) of {}, too large to print>",
        leaves.len(),
        names.join(", ")
    )
}

/// The proved formula of each output lifted so far, by its element terms (with its
/// shape): a later output that reads one (layer norm's `y` reads `mean` and `rstd`)
/// reuses it rather than synthesising it again.
/// Fx-hashed: every build looks its list up here.
type Known = rustc_hash::FxHashMap<Vec<TermId>, (Vec<usize>, Formula)>;

/// What an operand is, independent of the element (see [`Synth::role_key`]).
type Role = (u64, std::rc::Rc<str>);

/// Most `build` steps of one pass.
const BUDGET: usize = 20_000;

struct Synth<'a> {
    terms: &'a mut Terms,
    env: &'a ShapeEnv,
    known: &'a Known,
    memo: Memo,
    budget: usize,
    fallback: enumerate::Fallback,
    /// Build steps left to this output's search (see [`Options::steps`]).
    steps_left: usize,
    /// Build steps taken, for the debug log.
    steps_taken: usize,
    /// Set once `steps_left` ran out: every later build stalls.
    timed_out: bool,
    /// [`Synth::role_key`] of each term asked (a function of the term: its tensor mask
    /// is memoised too).
    roles: rustc_hash::FxHashMap<TermId, Role>,
    /// [`layout::form`] of each term asked, two levels down.
    forms: rustc_hash::FxHashMap<TermId, u64>,
    /// [`layout::form`] one level down, of the children `forms` met.
    child_forms: rustc_hash::FxHashMap<TermId, u64>,
    /// Input tensors below each term, as a bit set over `tensor_ids`.
    tensor_masks: rustc_hash::FxHashMap<TermId, u64>,
    tensor_ids: Vec<String>,
    leaf_sets: leaves::LeafSets,
    /// Candidates already instantiated (inputs, transposes, slices, products).
    instances: Instances,
    /// The operands of each n-ary term reduced so far, in [`Synth::order_operands`]'s
    /// order (a function of the term alone).
    operand_orders: rustc_hash::FxHashMap<TermId, Vec<TermId>>,
    /// Building the parts of a concatenation cut by form (which are not cut by form
    /// again).
    in_form_cut: bool,
    /// Per axis of the output being lifted: extent 1 at this instance, though a size
    /// (`B = 1`). Such an axis is not where a reduction keeps its dimension, so a
    /// keepdim reduction over it is tried after the new last axis.
    unit_size_axes: Vec<bool>,
    /// The seeds, offsets and thresholds a random mask may be keyed by (`philox`).
    streams: philox::Streams,
}

impl<'a> Synth<'a> {
    fn new(terms: &'a mut Terms, env: &'a ShapeEnv, known: &'a Known, opts: &Options) -> Synth<'a> {
        Synth {
            terms,
            env,
            known,
            memo: Default::default(),
            budget: BUDGET,
            fallback: enumerate::Fallback::new(),
            steps_left: opts.steps,
            steps_taken: 0,
            timed_out: false,
            roles: Default::default(),
            forms: Default::default(),
            child_forms: Default::default(),
            tensor_masks: Default::default(),
            tensor_ids: Vec::new(),
            leaf_sets: Default::default(),
            instances: Instances::new(),
            operand_orders: Default::default(),
            in_form_cut: false,
            unit_size_axes: Vec::new(),
            streams: Default::default(),
        }
    }

    /// A new pass: nothing memoised (the fallback changes what a stall gives) and the
    /// whole step budget.
    /// A fresh attempt: the step budget renewed, failures forgotten (they depend on the
    /// budget and the work left); built sub-lists kept, each matched its list exactly.
    fn restart(&mut self) {
        self.memo.retain(|_, r| r.is_ok());
        self.budget = BUDGET;
    }

    /// The whole work limit again, for a stage that gets its own ([`Options::steps`]).
    fn renew(&mut self, opts: &Options) {
        self.steps_left = opts.steps;
        self.timed_out = false;
    }

    /// Whether `f`, broadcast to `shape`, has exactly the terms `list`.
    fn matches(&mut self, f: &Formula, shape: &[usize], list: &[TermId]) -> bool {
        let Ok(fs) = f.shape(self.env) else {
            return false;
        };
        if fs.len() > shape.len() {
            return false;
        }
        let off = shape.len() - fs.len();
        for (k, &d) in fs.iter().enumerate() {
            if d != 1 && d != shape[off + k] {
                return false;
            }
        }
        // Instantiating writes no input the formula does not name: an element reading
        // one is refused before every element is instantiated (a matmul's candidates
        // `k @ k.T`, `q @ q.T` against scores `q @ k.T`: 2,304 dot products each).
        let reads = self.tensor_mask(list[0]);
        let unnamed = (0..self.tensor_ids.len().min(63))
            .any(|k| reads >> k & 1 == 1 && !f.reads(&self.tensor_ids[k]));
        if unnamed {
            return false;
        }
        let Ok(elems) = instance(self.terms, self.env, f, &mut self.instances) else {
            return false;
        };
        for (p, &want) in list.iter().enumerate() {
            let idx = unravel(p, shape);
            let fidx: Vec<usize> = fs
                .iter()
                .enumerate()
                .map(|(k, &d)| if d == 1 { 0 } else { idx[off + k] })
                .collect();
            if elems[ravel(&fidx, &fs)] != want {
                return false;
            }
        }
        true
    }

    /// A formula of a shape broadcastable to `shape` whose elements are `list`
    /// (row-major over `shape`); `Err(t)`: the term `t` could not be decomposed.
    fn build(&mut self, shape: &[usize], list: &[TermId]) -> Result<Formula, TermId> {
        let key = (shape.to_vec(), list.to_vec());
        if let Some(r) = self.memo.get(&key) {
            return r.clone();
        }
        if let Some(f) = self.reuse(shape, list) {
            self.memo.insert(key, Ok(f.clone()));
            return Ok(f);
        }
        if self.steps_left == 0 {
            self.timed_out = true;
        }
        let r = if self.budget == 0 || self.timed_out {
            Err(list[0])
        } else {
            self.budget -= 1;
            self.steps_left -= 1;
            self.steps_taken += 1;
            match self.build_uncached(shape, list) {
                Ok(f) => Ok(f),
                Err(e) => self
                    .concat(shape, list, false)
                    .or_else(|| self.interleave(shape, list))
                    .or_else(|| self.scan(shape, list))
                    .or_else(|| self.recurrence(shape, list))
                    .or_else(|| self.triangle(shape, list))
                    .or_else(|| self.window(shape, list))
                    .or_else(|| self.random_mask(shape, list))
                    .ok_or(e),
            }
        };
        // Where top-down gives up: normalise, or enumerate (see `enumerate`); last, a
        // concatenation where the elements' form changes.
        let r = r
            .or_else(|t| enumerate::stalled(self, shape, list).ok_or(t))
            .or_else(|t| {
                let structural = self.budget > 0 && !self.timed_out;
                structural
                    .then(|| self.concat(shape, list, true))
                    .flatten()
                    .ok_or(t)
            });
        self.memo.insert(key, r.clone());
        r
    }

    /// The formula of an output lifted before whose elements are `list`, with unit
    /// axes inserted where `shape` has them and the output does not.
    fn reuse(&self, shape: &[usize], list: &[TermId]) -> Option<Formula> {
        let (kshape, f) = self.known.get(list)?;
        if kshape == shape {
            return Some(f.clone());
        }
        let squeezed: Vec<usize> = shape.iter().copied().filter(|&d| d != 1).collect();
        if kshape.contains(&1) || *kshape != squeezed {
            return None;
        }
        let mut f = f.clone();
        for (axis, _) in shape.iter().enumerate().filter(|(_, &d)| d == 1) {
            f = f.with_unit_axis(axis, self.env)?;
        }
        (f.shape(self.env).ok()? == shape).then_some(f)
    }

    fn build_uncached(&mut self, shape: &[usize], list: &[TermId]) -> Result<Formula, TermId> {
        let t0 = list[0];
        // Independent of the index: a 0-d value, broadcast. With one axis longer than 1
        // (one row), else a keepdim value: a row's sum is the same for every element, and
        // its operands, `x[0, k]`, are no 1-d formula.
        if list.len() > 1 && list.iter().all(|&t| t == t0) {
            let scalar = self.build(&[], &[t0]);
            if scalar.is_err() && shape.iter().filter(|&&d| d > 1).count() == 1 {
                return self.build(&vec![1; shape.len()], &[t0]).or(scalar);
            }
            return scalar;
        }
        // Constant along an axis: a keepdim value broadcast along it.
        for a in 0..shape.len() {
            if shape[a] > 1 && constant_along(shape, list, a) {
                let mut s2 = shape.to_vec();
                s2[a] = 1;
                let l2: Vec<TermId> = (0..list.len())
                    .filter(|&p| unravel(p, shape)[a] == 0)
                    .map(|p| list[p])
                    .collect();
                return self.build(&s2, &l2);
            }
        }
        let node = self.terms.node(t0).clone();
        match node {
            Node::Const(c) if list.len() == 1 => Ok(Formula::Const(c)),
            Node::Param(p) if list.len() == 1 => Ok(Formula::Scalar(p.to_string())),
            Node::Input { tensor, .. } => {
                let all_same = list.iter().all(|&t| {
                    matches!(self.terms.node(t), Node::Input { tensor: t2, .. } if *t2 == tensor)
                });
                if !all_same {
                    return Err(t0);
                }
                let x = Formula::input(&tensor);
                let mut cands = vec![x.clone()];
                if self.env.tensors.get(&*tensor).is_some_and(|s| s.len() >= 2) {
                    cands.push(x.t());
                }
                cands.extend(self.row_broadcast(&tensor, shape));
                for c in cands {
                    if self.matches(&c, shape, list) {
                        return Ok(c);
                    }
                }
                if let Some(f) = self.input_slice(&tensor, shape, list) {
                    return Ok(f);
                }
                if let Some(f) = self.reshaped_input(&tensor, shape, list) {
                    return Ok(f);
                }
                self.unit_axes_inserted(&tensor, shape, list)
                    .or_else(|| self.every_other(&tensor, shape, list))
                    .or_else(|| self.trailing_unit_axis(&tensor, shape, list))
                    .ok_or(t0)
            }
            Node::Call(func, _) => {
                let op = UnaryOp::from_func(func).ok_or(t0)?;
                let kids = self.children(list, |n| match n {
                    Node::Call(f, a) if *f == func => Some(vec![*a]),
                    _ => None,
                })?;
                Ok(Formula::unary(op, self.build(shape, &kids[0])?))
            }
            Node::Pow(_, k) => {
                let kids = self.children(list, |n| match n {
                    Node::Pow(a, k2) if *k2 == k => Some(vec![*a]),
                    _ => None,
                })?;
                Ok(self.build(shape, &kids[0])?.powi(k))
            }
            Node::Cmp(op, _, _) => {
                let kids = self.children(list, |n| match n {
                    Node::Cmp(o, a, b) if *o == op => Some(vec![*a, *b]),
                    _ => None,
                })?;
                let a = self.build(shape, &kids[0])?;
                let b = self.build(shape, &kids[1])?;
                Ok(Formula::cmp(op, a, b))
            }
            Node::Select(..) => {
                if let Some(f) = self.arg_extreme(shape, list) {
                    return Ok(f);
                }
                if let Some(f) = self.take(shape, list) {
                    return Ok(f);
                }
                let kids = self.children(list, |n| match n {
                    Node::Select(c, a, b) => Some(vec![*c, *a, *b]),
                    _ => None,
                })?;
                let c = self.build(shape, &kids[0])?;
                let a = self.build(shape, &kids[1])?;
                let b = self.build(shape, &kids[2])?;
                Ok(Formula::select(c, a, b))
            }
            Node::Add(ref ops)
            | Node::Mul(ref ops)
            | Node::Max(ref ops)
            | Node::Min(ref ops)
            | Node::MaxNum(ref ops)
            | Node::MinNum(ref ops) => {
                let kind = std::mem::discriminant(&node);
                let n = ops.len();
                let bop = match node {
                    Node::Add(_) => BinaryOp::Add,
                    Node::Mul(_) => BinaryOp::Mul,
                    Node::Max(_) => BinaryOp::Max,
                    Node::Min(_) => BinaryOp::Min,
                    Node::MaxNum(_) => BinaryOp::FMax,
                    _ => BinaryOp::FMin,
                };
                let mut first_err = t0;
                // Operand-wise: aligned by role where roles tell the operands apart,
                // then by position.
                let positional = self.children(list, |nd| {
                    if std::mem::discriminant(nd) != kind {
                        return None;
                    }
                    let o = nary(nd)?;
                    (o.len() == n).then(|| o.to_vec())
                });
                let mut splits: Vec<Vec<Vec<TermId>>> =
                    self.align_roles(list).into_iter().collect();
                let same_arity = positional.is_ok();
                if let Ok(p) = positional {
                    if !splits.contains(&p) {
                        splits.push(p);
                    }
                }
                for kids in &splits {
                    match self.build_operands(bop, shape, kids) {
                        Ok(f) => return Ok(f),
                        Err(e) => first_err = e,
                    }
                }
                // Then, where every operand is one tap (`x[i]` or `c·x[i]`), by the
                // element it reads: creation order (ids) is not index order when a
                // stencil's halo is loaded first.
                if same_arity && n <= MAX_ORDERED_SPLIT {
                    if let Some(ordered) = taps_in_index_order(self.terms, list, n) {
                        if !splits.contains(&ordered) {
                            if let Ok(f) = self.build_operands(bop, shape, &ordered) {
                                return Ok(f);
                            }
                        }
                    }
                }
                // Reductions.
                let rop = match node {
                    Node::Add(_) => Some(ReduceOp::Sum),
                    Node::Mul(_) => Some(ReduceOp::Prod),
                    Node::Max(_) => Some(ReduceOp::Max),
                    Node::Min(_) => Some(ReduceOp::Min),
                    _ => None,
                };
                if let Some(rop) = rop {
                    if let Some(f) = self.reduction(rop, shape, list, n) {
                        return Ok(f);
                    }
                    if let Some(f) = self.reduction_plus(rop, bop, shape, list) {
                        return Ok(f);
                    }
                }
                Err(first_err)
            }
            _ => Err(t0),
        }
    }

    /// A reduction beside other operands of the same n-ary operator, flattened into it
    /// (`sum(x^2, axis=1) + eps` is one n-ary `+`): the operands whose role repeats
    /// within an element are the reduction, the others are aligned by role.
    fn reduction_plus(
        &mut self,
        rop: ReduceOp,
        bop: BinaryOp,
        shape: &[usize],
        list: &[TermId],
    ) -> Option<Formula> {
        let mut reduced = Vec::with_capacity(list.len());
        let mut extra: Vec<Vec<TermId>> = Vec::new();
        let mut extra_keys: Option<Vec<Role>> = None;
        for &t in list {
            let ops = nary(self.terms.node(t))?.to_vec();
            let keys: Vec<Role> = ops.iter().map(|&o| self.role_key(o)).collect();
            let repeated = |k: &Role| keys.iter().filter(|k2| *k2 == k).count() > 1;
            let (mut red, mut ext) = (Vec::new(), Vec::new());
            for (&o, k) in ops.iter().zip(&keys) {
                if repeated(k) {
                    red.push(o);
                } else {
                    ext.push((k.clone(), o));
                }
            }
            if red.len() < 2 || ext.is_empty() {
                return None;
            }
            ext.sort();
            let ks: Vec<Role> = ext.iter().map(|e| e.0.clone()).collect();
            match &extra_keys {
                None => {
                    extra = vec![Vec::with_capacity(list.len()); ext.len()];
                    extra_keys = Some(ks);
                }
                Some(k0) if *k0 == ks => {}
                Some(_) => return None,
            }
            for (slot, (_, o)) in extra.iter_mut().zip(ext) {
                slot.push(o);
            }
            reduced.push(match rop {
                ReduceOp::Max => self.terms.maxn(&red),
                ReduceOp::Min => self.terms.minn(&red),
                ReduceOp::Prod => self.terms.product(&red),
                _ => self.terms.sum(&red),
            });
        }
        let mut acc = self.build(shape, &reduced).ok()?;
        for k in &extra {
            let f = self.build(shape, k).ok()?;
            acc = Formula::binary(bop, acc, f);
        }
        Some(acc)
    }

    /// `op` folded left over the formulas of the operand lists `kids`.
    fn build_operands(
        &mut self,
        op: BinaryOp,
        shape: &[usize],
        kids: &[Vec<TermId>],
    ) -> Result<Formula, TermId> {
        let mut acc: Option<Formula> = None;
        for k in kids {
            let f = self.build(shape, k)?;
            acc = Some(match acc {
                None => f,
                Some(a) => Formula::binary(op, a, f),
            });
        }
        acc.ok_or(
            kids.first()
                .and_then(|k| k.first())
                .copied()
                .unwrap_or(TermId(0)),
        )
    }

    /// The children of every term of `list` (all with the same root, per `split`),
    /// grouped by position.
    fn children(
        &self,
        list: &[TermId],
        split: impl Fn(&Node) -> Option<Vec<TermId>>,
    ) -> Result<Vec<Vec<TermId>>, TermId> {
        let mut out: Vec<Vec<TermId>> = Vec::new();
        for &t in list {
            let kids = split(self.terms.node(t)).ok_or(t)?;
            if out.is_empty() {
                out = vec![Vec::with_capacity(list.len()); kids.len()];
            }
            if kids.len() != out.len() {
                return Err(t);
            }
            for (k, c) in kids.into_iter().enumerate() {
                out[k].push(c);
            }
        }
        Ok(out)
    }

    /// Every element an n-ary `op` of `n` operands ranging over one new axis: the
    /// operands ordered by the input elements that tell them apart.
    fn reduction(
        &mut self,
        rop: ReduceOp,
        shape: &[usize],
        list: &[TermId],
        n: usize,
    ) -> Option<Formula> {
        for &t in list {
            if nary(self.terms.node(t))?.len() != n {
                return None;
            }
        }
        // Matmul: a sum of products of two inputs, or of any two sub-formulas.
        if rop == ReduceOp::Sum {
            if let Some(f) = self.matmul(shape, list) {
                return Some(f);
            }
            if let Some(f) = self.matmul_general(shape, list) {
                return Some(f);
            }
        }
        let mut per_elem: Vec<Vec<TermId>> = Vec::new();
        for &t in list {
            // Every element of a row reads the row's sum: ordered once per term.
            if let Some(order) = self.operand_orders.get(&t) {
                per_elem.push(order.clone());
                continue;
            }
            let ops = nary(self.terms.node(t))?.to_vec();
            let order = self.order_operands(&ops);
            self.operand_orders.insert(t, order.clone());
            per_elem.push(order);
        }
        self.over_new_axis(shape, &per_elem, n, &mut |child, axis, keepdim| {
            Formula::reduce(rop, child, axis, keepdim)
        })
    }

    /// `wrap(child, axis, keepdim)` where `child` is the formula whose elements along a
    /// reduced axis are each element's `per_elem` row (`n` long): the axis is a keepdim
    /// axis of size 1 or a new last axis, the first placement whose child builds and
    /// whose wrapped formula has the list's elements.
    fn over_new_axis(
        &mut self,
        shape: &[usize],
        per_elem: &[Vec<TermId>],
        n: usize,
        wrap: &mut dyn FnMut(Formula, usize, bool) -> Formula,
    ) -> Option<Formula> {
        // The reduced axis: a keepdim axis of size 1, the last first (a kernel reduces
        // within a row; with one row, reducing a transposed input over axis 0 is right
        // on that instance only), or a new last axis.
        let mut placements: Vec<(usize, bool)> = (0..shape.len())
            .rev()
            .filter(|&a| shape[a] == 1)
            .map(|a| (a, true))
            .collect();
        placements.push((shape.len(), false));
        // An axis of the output's rank that is a size at extent 1 (a batch of one):
        // after the new last axis.
        if self.unit_size_axes.len() == shape.len() {
            let unit = &self.unit_size_axes;
            placements.sort_by_key(|&(a, keepdim)| keepdim && unit[a]);
        }
        // Where every operand reads one input tensor directly, a new axis before the
        // last too, last: a reduction over a middle axis of a reshaped input (a mean
        // over blocks of the sequence, `x.reshape(B, T // 4, 4, D).mean(2)`).
        if self.one_input_tensor(per_elem) {
            placements.extend((0..shape.len()).rev().map(|a| (a, false)));
        }
        for (axis, keepdim) in placements {
            let mut cshape = shape.to_vec();
            if keepdim {
                cshape[axis] = n;
            } else {
                cshape.insert(axis, n);
            }
            // Position `p` of the child is (outer, k, inner) around the reduced axis;
            // its element is `per_elem[outer, inner]`, operand `k` (the reduced axis
            // has extent 1 in `shape` where kept, none where new).
            let total: usize = cshape.iter().product();
            let inner: usize = cshape[axis + 1..].iter().product();
            let mut clist = Vec::with_capacity(total);
            for outer in 0..total / (inner * n).max(1) {
                let row = &per_elem[outer * inner..(outer + 1) * inner];
                for k in 0..n {
                    clist.extend(row.iter().map(|ops| ops[k]));
                }
            }
            if let Ok(child) = self.build(&cshape, &clist) {
                return Some(wrap(child, axis, keepdim));
            }
        }
        None
    }

    /// Whether every operand is an element of one and the same input tensor.
    fn one_input_tensor(&self, per_elem: &[Vec<TermId>]) -> bool {
        let mut name = None;
        per_elem
            .iter()
            .flatten()
            .all(|&t| match self.terms.node(t) {
                Node::Input { tensor, .. } => *name.get_or_insert(tensor) == tensor,
                _ => false,
            })
    }

    fn matmul(&mut self, shape: &[usize], list: &[TermId]) -> Option<Formula> {
        let mut names = BTreeSet::new();
        let n_ops = nary(self.terms.node(list[0]))?.len();
        for &op in nary(self.terms.node(list[0]))?.iter() {
            let Node::Mul(fs) = self.terms.node(op) else {
                return None;
            };
            for &f in fs.iter() {
                if let Node::Input { tensor, .. } = self.terms.node(f) {
                    names.insert(tensor.to_string());
                }
            }
        }
        let mut cands = Vec::new();
        for a in &names {
            for b in &names {
                let fa = Formula::input(a);
                let fb = Formula::input(b);
                cands.push(fa.clone().matmul(fb.clone()));
                cands.push(fa.clone().matmul(fb.clone().t()));
                cands.push(fa.clone().t().matmul(fb.clone()));
            }
        }
        // The contracted axis has one entry per operand: a cheap test before matching.
        cands.retain(|c| match c {
            Formula::MatMul(a, _) => a.shape(self.env).is_ok_and(|s| s.last() == Some(&n_ops)),
            _ => true,
        });
        cands.into_iter().find(|c| self.matches(c, shape, list))
    }

    /// `Σ_j A[i,j]·B[j,d]` for any sub-formulas `A`, `B` (output `[.., i, d]`, leading
    /// axes a batch): the factors of each product that do not change with `d`
    /// (constants included) make `A[i,j]`, the others `B[j,d]`, which must not change
    /// with `i`; the products of an element are ordered by the input elements of their
    /// `B` part. `A @ B`.
    fn matmul_general(&mut self, shape: &[usize], list: &[TermId]) -> Option<Formula> {
        let r = shape.len();
        if r < 2 {
            return None;
        }
        let (batch, m, dd) = (&shape[..r - 2], shape[r - 2], shape[r - 1]);
        if dd < 2 {
            return None;
        }
        let factors = |terms: &Terms, t: TermId| -> Vec<TermId> {
            match terms.node(t) {
                Node::Mul(fs) => fs.to_vec(),
                _ => vec![t],
            }
        };
        // Per element: (A part, B part) of each product, ordered by the input elements of
        // the B part.
        let mut split: Vec<Vec<(TermId, TermId)>> = Vec::with_capacity(list.len());
        for list in list.chunks(m * dd) {
            for i in 0..m {
                for d in 0..dd {
                    let other = list[i * dd + if d == 0 { 1 } else { 0 }];
                    let theirs: BTreeSet<TermId> = nary(self.terms.node(other))?
                        .to_vec()
                        .into_iter()
                        .flat_map(|p| factors(self.terms, p))
                        .collect();
                    let ops = nary(self.terms.node(list[i * dd + d]))?.to_vec();
                    let mut parts = Vec::with_capacity(ops.len());
                    for p in ops {
                        let (a, b): (Vec<TermId>, Vec<TermId>) = factors(self.terms, p)
                            .into_iter()
                            .partition(|f| theirs.contains(f));
                        if a.is_empty() || b.is_empty() {
                            return None;
                        }
                        parts.push((self.terms.product(&a), self.terms.product(&b)));
                    }
                    let terms = &*self.terms;
                    parts.sort_by_cached_key(|&(a, b)| (input_leaves(terms, b), a, b));
                    split.push(parts);
                }
            }
        }
        let n = split[0].len();
        // A[b,i,j] the same for every d, B[b,j,d] the same for every i.
        let mut a_list = Vec::with_capacity(list.len() / dd * n);
        let mut b_list = Vec::with_capacity(list.len() / m * n);
        for split in split.chunks(m * dd) {
            for i in 0..m {
                for d in 0..dd {
                    let e = &split[i * dd + d];
                    if e.len() != n
                        || (0..n).any(|j| e[j].0 != split[i * dd][j].0 || e[j].1 != split[d][j].1)
                    {
                        return None;
                    }
                }
            }
            a_list.extend((0..m).flat_map(|i| split[i * dd].iter().map(|p| p.0)));
            b_list.extend((0..n).flat_map(|j| (0..dd).map(move |d| split[d][j].1)));
        }
        let with =
            |last2: [usize; 2]| -> Vec<usize> { batch.iter().copied().chain(last2).collect() };
        let a = self.build(&with([m, n]), &a_list).ok()?;
        let b = self.build(&with([n, dd]), &b_list).ok()?;
        let f = a.matmul(b);
        (f.shape(self.env).ok()? == shape).then_some(f)
    }

    /// The operands of every element (n-ary, same root) aligned by their role (see
    /// [`Synth::role_key`]) with the operands of the first element, which fix the
    /// order; `None` where roles repeat within an element or differ between elements.
    fn align_roles(&mut self, list: &[TermId]) -> Option<Vec<Vec<TermId>>> {
        let root = std::mem::discriminant(self.terms.node(list[0]));
        let reference = nary(self.terms.node(list[0]))?.to_vec();
        let ref_keys: Vec<Role> = reference.iter().map(|&o| self.role_key(o)).collect();
        let unique = |keys: &[Role]| {
            let set: BTreeSet<&Role> = keys.iter().collect();
            set.len() == keys.len()
        };
        if !unique(&ref_keys) {
            return None;
        }
        let mut out = vec![Vec::with_capacity(list.len()); reference.len()];
        for &t in list {
            if std::mem::discriminant(self.terms.node(t)) != root {
                return None;
            }
            let ops = nary(self.terms.node(t))?.to_vec();
            if ops.len() != reference.len() {
                return None;
            }
            let keys: Vec<Role> = ops.iter().map(|&o| self.role_key(o)).collect();
            if !unique(&keys) {
                return None;
            }
            for (slot, k) in out.iter_mut().zip(&ref_keys) {
                let pos = keys.iter().position(|k2| k2 == k)?;
                slot.push(ops[pos]);
            }
        }
        Some(out)
    }

    /// What an operand is, independent of the element: the input tensors below it and
    /// its root operator with its children's root operators (`mul[c, max]`).
    fn role_key(&mut self, t: TermId) -> Role {
        if let Some(r) = self.roles.get(&t) {
            return r.clone();
        }
        let node = self.terms.node(t);
        let mut sig = node.op_name();
        let kids = self.terms.children(t);
        if !kids.is_empty() {
            let mut ks: Vec<String> = kids.iter().map(|&c| self.terms.node(c).op_name()).collect();
            ks.sort();
            sig = format!("{sig}[{}]", ks.join(","));
        }
        let r = (self.tensor_mask(t), std::rc::Rc::from(sig));
        self.roles.insert(t, r.clone());
        r
    }

    /// The input tensors below `t`, as a bit set (memoized).
    fn tensor_mask(&mut self, t: TermId) -> u64 {
        if let Some(&m) = self.tensor_masks.get(&t) {
            return m;
        }
        let m = match self.terms.node(t) {
            Node::Input { tensor, .. } => {
                let name = tensor.to_string();
                let k = match self.tensor_ids.iter().position(|n| *n == name) {
                    Some(k) => k,
                    None => {
                        self.tensor_ids.push(name);
                        self.tensor_ids.len() - 1
                    }
                };
                1u64 << k.min(63)
            }
            _ => {
                let kids = self.terms.children(t);
                kids.into_iter().fold(0, |acc, c| acc | self.tensor_mask(c))
            }
        };
        self.tensor_masks.insert(t, m);
        m
    }
}

/// The operands of each element of `list` (n-ary nodes of `n` operands) sorted by the
/// one input element each reads, grouped by position; `None` unless every operand is a
/// tap: an input element, or a constant times one.
fn taps_in_index_order(terms: &Terms, list: &[TermId], n: usize) -> Option<Vec<Vec<TermId>>> {
    let tap = |o: TermId| match terms.node(o) {
        Node::Mul(ops) if ops.len() == 2 && terms.as_const(ops[0]).is_some() => {
            leaves::input_element(terms, ops[1])
        }
        _ => leaves::input_element(terms, o),
    };
    // Allocated once the first element is all taps (most lists are not).
    let mut out: Vec<Vec<TermId>> = Vec::new();
    for &t in list {
        let ops = nary(terms.node(t))?;
        let mut keyed = ops
            .iter()
            .map(|&o| tap(o).map(|k| (k, o)))
            .collect::<Option<Vec<_>>>()?;
        if out.is_empty() {
            out = vec![Vec::with_capacity(list.len()); n];
        }
        keyed.sort();
        for (k, (_, o)) in keyed.into_iter().enumerate() {
            out[k].push(o);
        }
    }
    Some(out)
}

fn nary(n: &Node) -> Option<&[TermId]> {
    match n {
        Node::Add(o)
        | Node::Mul(o)
        | Node::Max(o)
        | Node::Min(o)
        | Node::MaxNum(o)
        | Node::MinNum(o) => Some(o),
        _ => None,
    }
}

/// The input elements below `t`, sorted, each once (a single input: itself, without a
/// walk).
fn input_leaves(terms: &Terms, t: TermId) -> Vec<(&str, &[i64])> {
    if let Some(e) = leaves::input_element(terms, t) {
        return vec![e];
    }
    let mut out = Vec::new();
    let mut stack = vec![t];
    let mut seen = rustc_hash::FxHashSet::default();
    while let Some(t) = stack.pop() {
        if !seen.insert(t) {
            continue;
        }
        match terms.node(t) {
            Node::Input { tensor, index } => out.push((&**tensor, &**index)),
            Node::Add(o)
            | Node::Mul(o)
            | Node::Max(o)
            | Node::Min(o)
            | Node::MaxNum(o)
            | Node::MinNum(o)
            | Node::And(o)
            | Node::Or(o) => stack.extend(o.iter()),
            Node::Pow(a, _) | Node::Call(_, a) | Node::Not(a) => stack.push(*a),
            Node::Cmp(_, a, b) => stack.extend([*a, *b]),
            Node::Select(c, a, b) => stack.extend([*c, *a, *b]),
            _ => {}
        }
    }
    out.sort_unstable();
    out
}

fn constant_along(shape: &[usize], list: &[TermId], a: usize) -> bool {
    let stride: usize = shape[a + 1..].iter().product();
    (0..list.len()).all(|p| {
        let i = (p / stride) % shape[a];
        i == 0 || list[p] == list[p - i * stride]
    })
}
