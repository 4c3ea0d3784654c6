//! Unbounded verification: a lifted formula proved equal to a Triton kernel for every
//! size (docs/design.md, "Verify"), or a size where it is not.
//!
//! One program runs with symbolic sizes and program ids ([`paths::explore`]); Z3
//! discharges the integer side and `decide` the real side, path by path:
//! 1. every load and store lane decomposes into a tensor index proved within its axes
//!    (so it is in bounds), and loads name their elements by that index;
//! 2. each stored lane equals the formula at its index ([`at_index`]), decided over
//!    atoms named by index, so one proof covers every program id and every size the
//!    path allows;
//! 3. the stores of all programs cover every output element (a Z3 query quantified over
//!    the program ids) and no element twice.
//!
//! Obligations 2 and 3 are asked of the outputs given a formula; an output without one
//! (a `check` spec that leaves it out, reported there as not checked) is not proved,
//! though its stores are held to obligation 1.
//!
//! Where the proof fails without constraints, candidate constraints `S <= c` (a size at
//! most a block width of the kernel) are tried, weakest first, and only those the
//! launch's own instance satisfies: a kernel that needs `N <= BLOCK` is proved under
//! it, and the constraint is printed. When nothing proves it, the sizes Z3 found are
//! replayed by the bounded checker; a difference there is a refutation at that size.
//!
//! Invariant: `AllSizes` is returned only when every obligation above held on every
//! path for every size satisfying the printed constraints; every assumption (a
//! constraint, i32 index arithmetic not overflowing) is in the result. Anything not
//! read symbolically is `Unknown` with the reason, never a proof.

mod argext;
pub mod at_index;
mod atomics;
mod attempt;
mod bijection;
mod bits;
mod coverage;
pub mod extent;
mod gathers;
pub mod guards;
mod inverse;
pub mod labels;
mod lane;
pub mod loops;
mod mask;
mod memory;
mod nearby;
mod overflow;
pub mod paths;
mod rand;
mod records;
mod regimes;
mod residue;
mod resolve;
mod run;
mod scans;
mod scope;
pub mod stall;
mod summary;
pub mod sym;
mod welford;
pub mod work;

use crate::decide::{Decided, EqualPairs};
use crate::formula::Output as FormulaOutput;
use crate::kernel::Kernel;
use crate::launch::{ArgBinding, Instance, Role};
use crate::term::Terms;
use at_index::size_poly;
use attempt::{Attempt, Failed};
use paths::{ArgSym, Setup, TensorSym};
use scope::Bound;
pub use scope::Scope;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};
use sym::{Cond, Poly, Rel, Smt};
pub use work::Limits;
use work::Work;

/// The unbounded step's result.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub scope: Scope,
    /// The size names, for "for all M, N".
    pub sizes: Vec<String>,
    pub paths: usize,
    pub time: Duration,
}

impl Outcome {
    /// The verdict suffix: `for all M, N with N <= 8` or the reason it is not.
    pub fn describe(&self) -> String {
        match &self.scope {
            Scope::AllSizes { constraints, .. } => {
                let mut s = format!("for all {}", self.sizes.join(", "));
                if !constraints.is_empty() {
                    s += &format!(" with {}", constraints.join(", "));
                }
                s
            }
            Scope::Unknown { reason } => format!("for all sizes: UNKNOWN — {reason}"),
            Scope::Refuted { sizes, reason } => {
                format!("REFUTED at {}: {reason}", sizes_text(sizes))
            }
        }
    }
}

impl Outcome {
    /// The `all_sizes` object of the JSON reports (`lift`, `check`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "verdict": match &self.scope {
                Scope::AllSizes { .. } => "verified",
                Scope::Unknown { .. } => "unknown",
                Scope::Refuted { .. } => "refuted",
            },
            "text": self.describe(),
            "witness": match &self.scope {
                Scope::Refuted { sizes, .. } => {
                    Some(sizes.iter().cloned().collect::<BTreeMap<_, _>>())
                }
                _ => None,
            },
            "paths": self.paths,
            "time_ms": self.time.as_secs_f64() * 1e3,
        })
    }

    /// The `scope` and `constraints` fields of the JSON reports for `o`.
    pub fn scope_json(o: Option<&Outcome>) -> (&'static str, Vec<String>) {
        match o.map(|o| &o.scope) {
            Some(Scope::AllSizes { constraints, .. }) => ("all_sizes", constraints.clone()),
            _ => ("instance", Vec::new()),
        }
    }
}

pub fn sizes_text(sizes: &[(String, i64)]) -> String {
    let parts: Vec<String> = sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
    parts.join(", ")
}

/// Most paths one run may fork into.
pub const MAX_PATHS: usize = 256;

/// Proves `outputs` (formulas over the launch's inputs) equal to `kernel`'s outputs for
/// every size; `inst` is the launch's own instance (constraints must admit it).
pub fn verify(kernel: &Kernel, inst: &Instance, outputs: &[FormulaOutput]) -> Outcome {
    verify_with(kernel, inst, outputs, &Limits::default())
}

/// [`verify`] within `limits`. Only the last-resort timeout reads the clock, and when
/// it fires the scope is `Unknown` and says so.
pub fn verify_with(
    kernel: &Kernel,
    inst: &Instance,
    outputs: &[FormulaOutput],
    limits: &Limits,
) -> Outcome {
    verify_reusing(kernel, inst, outputs, limits, &Decided::none())
}

/// [`verify_with`] whose bounded replays take the element pairs `decided` knows (the
/// same terms decided `Equal` in another store: the launch's instance) as `Equal`
/// undecided; a replay only ever refutes with a pair decided `NotEqual` there.
pub fn verify_reusing(
    kernel: &Kernel,
    inst: &Instance,
    outputs: &[FormulaOutput],
    limits: &Limits,
    decided: &Decided,
) -> Outcome {
    let start = Instant::now();
    let work = Work::reusing(limits, decided);
    let sizes: Vec<String> = kernel.launch.sizes.keys().cloned().collect();
    let mut out = Outcome {
        scope: Scope::Unknown {
            reason: String::new(),
        },
        sizes: sizes.clone(),
        paths: 0,
        time: Duration::ZERO,
    };
    out.scope = match run_regimes(kernel, inst, outputs, &sizes, &mut out.paths, &work) {
        // A timeout may only ever give UNKNOWN, whatever was found before it.
        _ if work.timed_out() => Scope::Unknown {
            reason: work.timeout_reason(),
        },
        Ok(s) => s,
        Err(reason) => Scope::Unknown { reason },
    };
    if std::env::var_os("LIFT_DEBUG_WORK").is_some() {
        let (steps, z3) = work.spent();
        eprintln!(
            "all-sizes work: {steps} steps, {z3} z3 units, {:?}",
            start.elapsed()
        );
    }
    out.time = start.elapsed();
    out
}

/// [`run`] in each regime of the launch's grid (`regimes`: one unless an axis is a
/// `min`/`max`): proved where every regime is, with the constraints of all; refuted
/// where any is; else the first regime's reason why not.
fn run_regimes(
    kernel: &Kernel,
    inst: &Instance,
    outputs: &[FormulaOutput],
    sizes: &[String],
    paths_seen: &mut usize,
    work: &Work,
) -> Result<Scope, String> {
    let regimes = regimes::regimes(&kernel.launch.grid)?;
    if let [one] = &regimes[..] {
        return run(kernel, inst, outputs, sizes, paths_seen, work, one);
    }
    let (mut constraints, mut bounds, mut fixed) = (Vec::new(), Vec::new(), Vec::new());
    let mut open = None;
    for r in &regimes {
        if !regimes::feasible(r, sizes, work.limits.query_rlimit) {
            continue;
        }
        match run(kernel, inst, outputs, sizes, paths_seen, work, r) {
            Ok(refuted @ Scope::Refuted { .. }) => return Ok(refuted),
            Ok(Scope::AllSizes {
                constraints: c,
                bounds: b,
                fixed: f,
            }) => {
                union(&mut constraints, c);
                union(&mut bounds, b);
                union(&mut fixed, f);
            }
            Ok(Scope::Unknown { reason }) | Err(reason) => {
                open.get_or_insert(format!("where {}: {reason}", r.text));
            }
        }
        if work.timed_out() {
            break;
        }
    }
    match open {
        Some(reason) => Err(reason),
        None => Ok(Scope::AllSizes {
            constraints,
            bounds,
            fixed,
        }),
    }
}

/// `all` with each of `new` it lacks appended.
fn union<T: PartialEq>(all: &mut Vec<T>, new: Vec<T>) {
    for x in new {
        if !all.contains(&x) {
            all.push(x);
        }
    }
}

fn run(
    kernel: &Kernel,
    inst: &Instance,
    outputs: &[FormulaOutput],
    sizes: &[String],
    paths_seen: &mut usize,
    work: &Work,
    regime: &regimes::Regime,
) -> Result<Scope, String> {
    let Some(module) = kernel.triton() else {
        return Err("PTX proofs are CTA-level and bounded (Volta's model)".into());
    };
    if kernel.precision != Default::default() {
        return Err("--precision ieee is proved on the instance only".into());
    }
    if kernel.options != Default::default() {
        return Err("--masked-load zero is proved on the instance only".into());
    }
    if let Some(reason) = atomics::unread(module) {
        return Err(reason);
    }
    // Tensors in the instance's order, shapes over the sizes.
    let mut tensors = Vec::new();
    let mut args = HashMap::new();
    for t in &inst.tensors {
        let shape = kernel
            .launch
            .args
            .values()
            .find_map(|b| match b {
                ArgBinding::Tensor { tensor, shape, .. } if *tensor == t.name => Some(shape),
                _ => None,
            })
            .ok_or("a tensor without a declared shape")?;
        tensors.push(TensorSym {
            name: t.name.clone(),
            shape: shape.iter().map(size_poly).collect::<Result<_, _>>()?,
            role: t.role,
            dtype: t.dtype,
        });
    }
    for (name, b) in &kernel.launch.args {
        let a = match b {
            ArgBinding::Tensor { tensor, .. } => ArgSym::Tensor(
                tensors
                    .iter()
                    .position(|t| &t.name == tensor)
                    .ok_or("unknown tensor")?,
            ),
            ArgBinding::Int(e) => ArgSym::Int(size_poly(e)?),
            ArgBinding::Value(v) => ArgSym::Real(*v),
            ArgBinding::Scalar(s) => ArgSym::Scalar(s.clone()),
        };
        args.insert(name.clone(), a);
    }
    let grid = regime.grid.clone();
    let pids = [0, 1, 2].map(|k| {
        if grid[k].as_const() == Some(1) {
            Poly::default()
        } else {
            Poly::sym(["pid_x", "pid_y", "pid_z"][k])
        }
    });
    let mut size_base: Vec<Cond> = sizes
        .iter()
        .map(|s| Cond::cmp(Rel::Le, &Poly::constant(1), &Poly::sym(s)))
        .collect();
    // A launch cannot pass an integer outside its parameter's type (it is a usage
    // error there), so the sizes bound to one stay within it.
    if let Some(func) = module.entry() {
        for a in &func.args {
            if let (crate::triton_ir::ast::Type::Int(bits @ 2..=63), Some(ArgSym::Int(p))) =
                (&a.ty, args.get(&a.name))
            {
                let lim = Poly::constant(1i128 << (bits - 1));
                size_base.push(Cond::cmp(Rel::Lt, p, &lim));
                size_base.push(Cond::cmp(Rel::Le, &lim.neg(), p));
            }
        }
    }
    size_base.extend(regime.conds.iter().cloned());
    let mut pid_base = Vec::new();
    for k in 0..3 {
        if pids[k].as_const().is_none() {
            pid_base.push(Cond::cmp(Rel::Le, &Poly::default(), &pids[k]));
            pid_base.push(Cond::cmp(Rel::Lt, &pids[k], &grid[k]));
        }
    }
    let formulas: HashMap<&str, &FormulaOutput> =
        outputs.iter().map(|o| (o.name.as_str(), o)).collect();
    let input_shapes: BTreeMap<String, Vec<Poly>> = tensors
        .iter()
        .filter(|t| t.role != Role::Out)
        .map(|t| (t.name.clone(), t.shape.clone()))
        .collect();
    let labels = gathers::labels_of(&kernel.launch, &tensors)?;
    let mut templates = Vec::new();
    for o in outputs {
        at_index::templates(&o.formula, &mut templates);
    }

    // Candidate constraints, weakest first, each admitted by the launch's instance.
    let mut widths: Vec<i64> = Vec::new();
    collect_widths(module, &mut widths);
    widths.sort_unstable_by(|a, b| b.cmp(a));
    widths.dedup();
    let candidates = candidates(&widths, sizes, inst);
    let mut cfg = z3::Config::new();
    // A query Z3 cannot settle within its resource limit counts as "maybe" (never as a
    // proof); a resource count, unlike a timeout, is the same on every machine.
    cfg.set_param_value("rlimit", &work.limits.query_rlimit.to_string());
    let ctx = z3::Context::new(&cfg);
    let counter = z3::Solver::new(&ctx);
    let smt = Smt { ctx: &ctx };
    let mut failures: Vec<Failed> = Vec::new();
    // Constraints whose attempt ended without a failed obligation (unsupported, out of
    // time): the kernel may well be correct under them, so no size outside them refutes.
    let mut unsettled: Vec<Bound> = Vec::new();
    // Lazy masks first, for every candidate (one path where forking may take
    // thousands), then forking on every undecided lane (which reads reductions within
    // one block) for the candidates the lazy pass left unsettled. A lazy attempt that
    // fails without sizes leaves no trace: the forking one speaks. (Forking first per
    // candidate spent the whole budget on attention's `D == 16` before its lazy
    // `D == 16 and N <= 32` was tried.)
    // A lazy proof under a constraint with a weaker one on the same sizes still
    // unsettled (`N == 8` proved lazily, `N <= 8` needing forks) is held while forking
    // tries the weaker one: the printed constraint is the weakest found.
    let mut unsettled_lazy: Vec<bool> = vec![false; candidates.len()];
    let mut settled_at: Vec<bool> = vec![false; candidates.len()];
    let mut queue: std::collections::VecDeque<(usize, bool)> =
        (0..candidates.len()).map(|ci| (ci, true)).collect();
    let mut forking_scheduled = false;
    let mut held: Option<Scope> = None;
    // The lazy failures a forking attempt under the same candidate would repeat
    // word for word. Lazy and forking runs differ only where a mask lane's condition
    // is open on the path (`guards::mask_lane`: a guard atom, or a fork); a lazy run
    // that left no lane open decided every lane as the forking run decides it (both
    // are Z3's answer to whether the path implies the condition; the forking run
    // also asserts what it decided, facts the path already implied), so its first path
    // is the forking run's first path, choice for choice, to the same error with the
    // same message and no sizes. The forking attempt would push that failure and
    // leave the candidate unsettled, as this does. What is not repeated is the work
    // that run would spend: a step that later runs out of its whole budget (the
    // `Limits` counts, not `fork_z3_work`, which is per attempt) may get further, to
    // the prover's own verdict; no suite kernel comes near that budget.
    let mut forks_alike: Vec<Option<Failed>> = vec![None; candidates.len()];
    // Where each candidate's lazy attempt stalled at a loop summary (super::stall).
    let mut stalls: Vec<Option<paths::Stall>> = vec![None; candidates.len()];
    loop {
        let Some((ci, lazy_masks)) = queue.pop_front() else {
            if forking_scheduled || held.is_some() {
                break;
            }
            forking_scheduled = true;
            queue.extend(
                (0..candidates.len())
                    .filter(|&c| unsettled_lazy[c])
                    .map(|c| (c, false)),
            );
            continue;
        };
        let cand = &candidates[ci];
        // A forking attempt whose lazy twin failed on its first path with no mask lane
        // left open is that failure again, without being run (see `forks_alike`).
        let repeated = if lazy_masks || !work.limits.skip_repeated_forks {
            None
        } else {
            forks_alike[ci].take()
        };
        let failed = match repeated {
            Some(f) => f,
            None => {
                let mut size_conds = size_base.clone();
                for b in cand {
                    let (s, c) = (Poly::sym(&b.size), Poly::constant(b.value as i128));
                    size_conds.push(Cond::cmp(Rel::Le, &s, &c));
                    if b.exact {
                        size_conds.push(Cond::cmp(Rel::Le, &c, &s));
                    }
                }
                let mut base = size_conds.clone();
                base.extend(pid_base.iter().cloned());
                let names: Vec<Arc<str>> =
                    tensors.iter().map(|t| Arc::from(t.name.as_str())).collect();
                let setup = Setup {
                    sizes,
                    tensors: &tensors,
                    args: &args,
                    base: &base,
                    pids: pids.clone(),
                    grid: grid.clone(),
                    max_paths: MAX_PATHS,
                    work,
                    templates: &templates,
                    outputs: &formulas,
                    input_shapes: &input_shapes,
                    lazy_masks,
                    labels: &labels,
                    lazy_stall: if lazy_masks {
                        None
                    } else {
                        stalls[ci].as_ref()
                    },
                };
                let mut terms = Terms::new();
                let t0 = Instant::now();
                let mut alike = false;
                let mut stalled = None;
                let explored = paths::explore(
                    module,
                    &setup,
                    &smt,
                    &mut terms,
                    names.clone(),
                    &mut alike,
                    &mut stalled,
                );
                if lazy_masks {
                    stalls[ci] = stalled;
                }
                if std::env::var_os("LIFT_DEBUG_VERIFY").is_some() {
                    let how = match &explored {
                        Ok(p) => format!("{} paths", p.len()),
                        Err(u) => u.message.clone(),
                    };
                    eprintln!(
                        "explore {cand:?} lazy={lazy_masks}: {:?}, {how}, work so far {:?}",
                        t0.elapsed(),
                        work.spent()
                    );
                }
                let failed = match explored {
                    // A construct read only under a constraint (an int-to-float of a size
                    // the masks pin once `N <= BLOCK`) moves on to the next candidate.
                    Err(u) => {
                        let at = if u.loc.file.is_some() {
                            format!(" ({})", u.loc)
                        } else {
                            String::new()
                        };
                        let f = Failed {
                            reason: format!("{}{at}", u.message),
                            witness: u.witness,
                        };
                        if alike {
                            forks_alike[ci] = Some(f.clone());
                        }
                        f
                    }
                    Ok(mut paths) => {
                        *paths_seen = (*paths_seen).max(paths.len());
                        let attempt = Attempt {
                            smt: &smt,
                            sizes,
                            size_conds: &size_conds,
                            base: &base,
                            pids: &pids,
                            grid: &grid,
                            tensors: &tensors,
                            formulas: &formulas,
                            input_shapes: &input_shapes,
                            labels: &labels,
                        };
                        match attempt.prove(&paths, &mut terms) {
                            Ok(()) => {
                                // Integer obligations last: an attempt that fails never asks them.
                                overflow::discharge(&smt, &base, sizes, &mut paths);
                                let wraps = overflow::WrapClaim::of(&paths, inst);
                                let replay_at = |at: &[(String, i64)]| {
                                    replay(kernel, at, outputs, work.decided).map(|r| r.reason)
                                };
                                if let Some(refuted) =
                                    wraps.refute_past(kernel, inst, cand, replay_at)
                                {
                                    return Ok(refuted);
                                }
                                // A proof that read labels holds for their declared values.
                                let mut constraints = constraints_of(cand, &wraps);
                                constraints.extend(
                                    labels.statements(
                                        paths
                                            .iter()
                                            .flat_map(|p| &p.labels)
                                            .map(|l| l.tensor.as_str()),
                                    ),
                                );
                                // A recurrence is read over the reals, as the GPU reassociates it.
                                constraints
                                    .extend(scans::assumptions(outputs.iter().map(|o| &o.formula)));
                                let scope = Scope::AllSizes {
                                    constraints,
                                    bounds: cand
                                        .iter()
                                        .map(|b| (b.size.clone(), b.value))
                                        .collect(),
                                    fixed: cand
                                        .iter()
                                        .filter(|b| b.exact)
                                        .map(|b| (b.size.clone(), b.value))
                                        .collect(),
                                };
                                let weaker: Vec<usize> = (0..ci)
                                    .filter(|&cj| {
                                        unsettled_lazy[cj]
                                            && weaker_on_same_sizes(&candidates[cj], cand)
                                    })
                                    .collect();
                                if !lazy_masks || held.is_some() || weaker.is_empty() {
                                    return Ok(scope);
                                }
                                held = Some(scope);
                                queue = weaker.into_iter().map(|cj| (cj, false)).collect();
                                continue;
                            }
                            Err(f) => {
                                if std::env::var_os("LIFT_DEBUG_VERIFY").is_some() {
                                    eprintln!("  prove: {} {:?}", f.reason, f.witness);
                                }
                                f
                            }
                        }
                    }
                };
                failed
            }
        };
        // A failed obligation with sizes settles the candidate: forking checks the
        // same obligations.
        let settled = failed.witness.is_some();
        settled_at[ci] |= settled;
        if lazy_masks && !settled {
            unsettled_lazy[ci] = true;
        }
        if settled || !lazy_masks {
            let mut failed = failed;
            if !cand.is_empty() {
                failed.reason = format!("with {}: {}", conjunction(cand), failed.reason);
            }
            if !settled {
                unsettled.extend(cand.iter().cloned());
            }
            failures.push(failed);
        }
        if work.z3(&counter).is_err() {
            if held.is_some() || work.timed_out() {
                break;
            }
            // This candidate and the ones not tried are unsettled; the ones whose
            // attempt failed with sizes stay settled (no valid domain: an obligation
            // fails inside them), or no size would be left for the search below.
            for (c, settled) in candidates.iter().zip(&settled_at) {
                if !settled {
                    unsettled.extend(c.iter().cloned());
                }
            }
            break;
        }
    }
    if let Some(scope) = held {
        return Ok(scope);
    }
    if work.timed_out() {
        return Err(work.timeout_reason());
    }
    // Replay the witnesses, most constrained attempt first. A wrong value anywhere is
    // the counterexample to give before a fault (an out-of-bounds read at `D = 1` of a
    // kernel that hard-codes `D == 16` is true, but says less than its wrong row sums
    // at `D = 16`).
    let mut fault = None;
    for f in failures.iter().rev() {
        let Some(w) = &f.witness else { continue };
        if work.clock() {
            return Err(work.timeout_reason());
        }
        let outside = w
            .iter()
            .any(|(s, v)| unsettled.iter().any(|b| b.excludes(s, *v)));
        if outside {
            continue;
        }
        if let Some(Replayed { reason, refuted }) = replay(kernel, w, outputs, work.decided) {
            if refuted {
                return Ok(Scope::Refuted {
                    sizes: w.clone(),
                    reason,
                });
            }
            fault.get_or_insert(Scope::Refuted {
                sizes: w.clone(),
                reason,
            });
        }
    }
    if let Some(f) = fault {
        return Ok(f);
    }
    // No witness replays: the bounded checker tries sizes near the instance.
    if let Some(refuted) = nearby::search(kernel, inst, sizes, &widths, &unsettled, outputs, work) {
        return Ok(refuted);
    }
    // The weakest attempt that did not settle says most (`with D == 16: ...` when the
    // weaker ones failed with sizes); else the unconstrained one.
    Err(failures
        .iter()
        .find(|f| f.witness.is_none())
        .or(failures.first())
        .map(|f| f.reason.clone())
        .unwrap_or_else(|| {
            if work.stopped().is_some() {
                work.reason("before any attempt settled")
            } else {
                "no proof".into()
            }
        }))
}

/// The constraints a proof holds under: the candidate bound, then what its integers
/// need (size bounds, or the obligations it assumed; see [`overflow`]).
fn constraints_of(cand: &[Bound], wraps: &overflow::WrapClaim) -> Vec<String> {
    let mut constraints: Vec<String> = cand.iter().map(|b| b.to_string()).collect();
    constraints.extend(wraps.constraints());
    constraints
}

/// Candidate constraints, weakest first, each admitted by the launch's instance: none;
/// one bound `S <= w` for a block width `w`; one `S == w` (a size the kernel hard-codes
/// as a tile: a head dimension); then pairs on two different sizes, an exact one with
/// a bound first (attention computed in one block: `D == 16` and `N <= 32`). A size
/// the kernel needs pinned and another it needs bounded are both printed; a pair is
/// tried only after every single constraint failed.
fn candidates(widths: &[i64], sizes: &[String], inst: &Instance) -> Vec<Vec<Bound>> {
    let mut single: Vec<Bound> = Vec::new();
    for exact in [false, true] {
        for c in widths {
            for s in sizes {
                let admitted = inst
                    .sizes
                    .get(s)
                    .is_some_and(|v| if exact { v == c } else { v <= c });
                if admitted {
                    single.push(Bound {
                        size: s.clone(),
                        value: *c,
                        exact,
                    });
                }
            }
        }
    }
    let mut out: Vec<Vec<Bound>> = vec![Vec::new()];
    out.extend(single.iter().map(|b| vec![b.clone()]));
    for exact_first in [true, false] {
        for (i, a) in single.iter().enumerate() {
            for b in &single[i + 1..] {
                let (a, b) = if b.exact && !a.exact { (b, a) } else { (a, b) };
                if a.size != b.size && a.exact == exact_first && !b.exact {
                    out.push(vec![a.clone(), b.clone()]);
                }
            }
        }
    }
    out
}

/// Whether `weak` bounds the same sizes as `strong` and `strong` implies it
/// (`N <= 8` against `N == 8`).
fn weaker_on_same_sizes(weak: &[Bound], strong: &[Bound]) -> bool {
    fn sizes(c: &[Bound]) -> Vec<&str> {
        let mut s: Vec<&str> = c.iter().map(|b| b.size.as_str()).collect();
        s.sort_unstable();
        s
    }
    !weak.is_empty()
        && sizes(weak) == sizes(strong)
        && weak.iter().all(|w| {
            strong.iter().any(|s| {
                s.size == w.size
                    && if w.exact {
                        s.exact && s.value == w.value
                    } else {
                        s.value <= w.value
                    }
            })
        })
}

/// `D == 16 and N <= 32`.
fn conjunction(cand: &[Bound]) -> String {
    let parts: Vec<String> = cand.iter().map(Bound::to_string).collect();
    parts.join(" and ")
}

/// The widths of the kernel's blocks (`tt.make_range` ends): the candidate bounds.
fn collect_widths(m: &crate::triton_ir::ast::Module, out: &mut Vec<i64>) {
    fn walk(r: &crate::triton_ir::ast::Region, out: &mut Vec<i64>) {
        for b in &r.blocks {
            for op in &b.ops {
                if crate::exec::table::op_kind(&op.name)
                    == Some(crate::exec::table::OpKind::MakeRange)
                {
                    if let Some(e) = op.attr("end").and_then(|a| a.as_int()) {
                        out.push(e);
                    }
                }
                for r in &op.regions {
                    walk(r, out);
                }
            }
        }
    }
    for f in &m.funcs {
        walk(&f.body, out);
    }
}

/// What a bounded replay found: what differs, and whether it is a wrong value (a
/// formula refuted there) rather than a fault or an unwritten element.
struct Replayed {
    reason: String,
    refuted: bool,
}

/// Runs the bounded check at `sizes`; `Some(what differs)` when it fails there.
fn replay(
    kernel: &Kernel,
    sizes: &[(String, i64)],
    outputs: &[FormulaOutput],
    decided: &Decided,
) -> Option<Replayed> {
    replay_kept(kernel, sizes, outputs, decided).0
}

/// [`replay`], with its term store and the element pairs its proofs decided `Equal`
/// with no precondition there (what a later replay may reuse).
fn replay_kept(
    kernel: &Kernel,
    sizes: &[(String, i64)],
    outputs: &[FormulaOutput],
    decided: &Decided,
) -> (Option<Replayed>, Terms, EqualPairs) {
    let mut terms = Terms::new();
    let mut cache = crate::prove::Instances::new();
    let found = replay_in(kernel, sizes, outputs, &mut terms, &mut cache, decided);
    (found, terms, cache.equal)
}

fn replay_in(
    kernel: &Kernel,
    sizes: &[(String, i64)],
    outputs: &[FormulaOutput],
    terms: &mut Terms,
    cache: &mut crate::prove::Instances,
    decided: &Decided,
) -> Option<Replayed> {
    let found = |reason: String, refuted: bool| Some(Replayed { reason, refuted });
    let overrides: BTreeMap<String, i64> = sizes.iter().cloned().collect();
    let inst = kernel.instance(&overrides).ok()?;
    let spec = match kernel.spec(&inst, terms) {
        Ok(s) => s,
        // A fault is a finding; a limit or an unsupported form there is not.
        Err(e) if e.exit_code() == 1 => {
            return found(format!("the kernel fails there: {e}"), false)
        }
        Err(_) => return None,
    };
    let env = crate::formula::ShapeEnv::from_launch(&kernel.launch, &overrides).ok()?;
    for o in outputs {
        let t = spec.outputs.iter().find(|t| t.name == o.name)?;
        let Some(elems) = t.elems.iter().copied().collect::<Option<Vec<_>>>() else {
            let k = t.elems.iter().position(|e| e.is_none()).unwrap_or(0);
            return found(
                format!("element #{k} of `{}` is never written", o.name),
                false,
            );
        };
        // A spec's formula is refined where it is NaN outside its domain, as in the
        // attempts and in `check` (a kernel's value at `0/0` is no counterexample).
        let proved = crate::prove::prove_reusing(terms, &env, o, &t.shape, &elems, cache, decided);
        if let Err(e) = proved {
            if e.is_wrong_value() {
                let refuted = matches!(e, crate::prove::Failure::Refuted { .. });
                return found(format!("`{}` {e}", o.name), refuted);
            }
        }
    }
    None
}
