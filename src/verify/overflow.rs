//! Integers of the all-sizes run as the GPU has them (docs/semantics.md, "Values").
//!
//! The proof reads integers as exact (Z3 integers), which is what the GPU computes
//! exactly where nothing wraps. So every integer result that can wrap is an
//! obligation: an add, sub or mul in its width, a narrowing cast (`trunci`, a narrowing
//! `index_cast`), and the counter increment `iv + step` of every `scf.for` (the last
//! one too, which exits the loop; past `2^31 - 1` an i32 counter wraps negative and the
//! loop never ends). The walk only keeps each obligation with the facts its path held
//! there ([`Pending`]); they are asked ([`discharge`]) once the attempt has proved
//! everything else, so an attempt that ends UNKNOWN or fails pays nothing for them.
//! An obligation Z3 proves under its facts costs nothing. Otherwise the
//! path records, per size, the largest bound `S <= c` under which Z3 proves it, and the
//! claim prints the tightest one the launch's instance satisfies (`N <= 2147483644 (i32
//! loop counter at kernel.py:14)`); with none, the claim names what it assumed (`i32
//! index arithmetic not overflowing (kernel.py:12)`). A size just past a small bound is
//! replayed by the bounded checker, whose integers wrap: a failure there refutes.
//!
//! Invariant: for every size satisfying the printed constraints, no recorded obligation
//! fails on any path; a bound is kept only where Z3 proved the obligation under it,
//! given no more than what the path's solver held where the obligation was met.

use super::lane::{Lane, Val, R};
use super::records::{Path, Pending, Wrap};
use super::run::Run;
use super::scope::{Bound, Scope};
use super::sym::{Cond, Poly, Rel, Smt};
use crate::kernel::Kernel;
use crate::launch::Instance;
use crate::triton_ir::ast::{Loc, Op};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The width of an integer type, as the bounded run reads it (`index` is 64 bits; `i1`
/// is 1, below the 2 bits an obligation needs, so it makes none).
pub(super) use crate::exec::table::int_width as width;

/// Whether `p` lies within a signed `bits`-wide integer.
fn fits(p: &Poly, bits: u32) -> Cond {
    let b = bits.clamp(2, 64) - 1;
    Cond::and(
        Cond::cmp(Rel::Le, &Poly::constant(-(1i128 << b)), p),
        Cond::cmp(Rel::Le, p, &Poly::constant((1i128 << b) - 1)),
    )
}

impl Run<'_, '_, '_> {
    /// Obligation: every integer lane of `v` fits a signed `bits`-wide integer. Lanes
    /// that differ only by a constant (a block's `arange`) are asked at their extremes.
    pub(super) fn fits_width(&mut self, v: &Val, bits: u32, what: &str, op: &Op) -> R<()> {
        if self.probing || !(2..=64).contains(&bits) {
            return Ok(());
        }
        let mut groups: BTreeMap<Poly, (i128, i128)> = BTreeMap::new();
        for l in &v.lanes {
            if let Lane::Int(p) = l {
                let c = p.constant_term();
                let e = groups.entry(p.sub(&Poly::constant(c))).or_insert((c, c));
                e.0 = e.0.min(c);
                e.1 = e.1.max(c);
            }
        }
        for (base, (lo, hi)) in groups {
            for c in if lo == hi { vec![lo] } else { vec![lo, hi] } {
                let ok = fits(&base.add(&Poly::constant(c)), bits);
                self.obligation(&ok, what, &op.loc, &[]);
            }
        }
        Ok(())
    }

    /// Obligation: the increment `iv + step` of `for iv in range(lo, hi, step)` (a loop
    /// whose trips the path does not fix) fits the counter's type at every iteration,
    /// the last one included.
    pub(super) fn counter_fits(&mut self, lo: &Poly, hi: &Poly, step: i128, op: &Op) {
        let bits = op.operand_types.first().map_or(64, width);
        if self.probing || !(2..=64).contains(&bits) {
            return;
        }
        // Any iteration: `t = lo + step·w`, `0 <= w`, `t < hi`.
        let w = Poly::sym("iter#");
        let t = lo.add(&w.scale(step));
        let iteration = [
            Cond::cmp(Rel::Le, &Poly::default(), &w),
            Cond::cmp(Rel::Lt, &t, hi),
        ];
        let next = t.add(&Poly::constant(step));
        self.obligation(
            &fits(&next, bits),
            &format!("i{bits} loop counter"),
            &op.loc,
            &iteration,
        );
    }

    /// Keeps `ok` to be asked at `loc` under what the path's solver holds now (and
    /// `also`), once the attempt's other obligations hold ([`discharge`]).
    fn obligation(&mut self, ok: &Cond, what: &str, loc: &Loc, also: &[Cond]) {
        if ok.as_const() == Some(true) {
            return;
        }
        // The solver holds the base, the path's choices (a choice the path did not
        // record is implied by the others), the iterations of the loops being run and
        // the mask of the lane at hand.
        let facts: Vec<Cond> = self
            .path
            .cond
            .iter()
            .chain(self.loops.iter().flat_map(|l| &l.valid))
            .chain(&self.assumed)
            .chain(also)
            .cloned()
            .collect();
        let facts = match self.path.pending.last() {
            Some(p) if *p.facts == facts[..] => p.facts.clone(),
            _ => Arc::from(facts),
        };
        self.path.pending.push(Pending {
            facts,
            ok: ok.clone(),
            what: what.to_string(),
            loc: loc.clone(),
        });
    }
}

/// Asks every path's pending obligations, in the order the walk met them, each under
/// the facts it was met under, and records what wraps (`Path::wraps`). Called once
/// the attempt has proved everything else: an attempt that fails asks none.
pub(super) fn discharge(smt: &Smt, base: &[Cond], sizes: &[String], paths: &mut [Path]) {
    let solver = z3::Solver::new(smt.ctx);
    for c in base {
        solver.assert(&smt.cond(c));
    }
    let ask = Asker {
        smt,
        solver: &solver,
    };
    for path in paths {
        let mut open: Option<Arc<[Cond]>> = None;
        for p in std::mem::take(&mut path.pending) {
            if !open.as_ref().is_some_and(|f| Arc::ptr_eq(f, &p.facts)) {
                if open.is_some() {
                    solver.pop(1);
                }
                solver.push();
                for c in p.facts.iter() {
                    solver.assert(&smt.cond(c));
                }
                open = Some(p.facts.clone());
            }
            ask.record(&mut path.wraps, sizes, &p.ok, &p.what, &p.loc);
        }
        if open.is_some() {
            solver.pop(1);
        }
    }
}

/// Questions about one obligation, asked of a solver that holds its facts.
struct Asker<'a, 'ctx> {
    smt: &'a Smt<'ctx>,
    solver: &'a z3::Solver<'ctx>,
}

impl Asker<'_, '_> {
    /// Records `ok` as an obligation at `loc` in `wraps` unless it holds; a bound
    /// recorded earlier at the same place is kept where `ok` holds under it too, and
    /// tightened where it does not.
    fn record(&self, wraps: &mut Vec<Wrap>, sizes: &[String], ok: &Cond, what: &str, loc: &Loc) {
        let seen = wraps.iter().position(|w| w.what == what && &w.loc == loc);
        if let Some(k) = seen {
            if wraps[k].bounds.is_empty() || self.holds(ok) {
                return;
            }
            let old = std::mem::take(&mut wraps[k].bounds);
            // Mostly the bound found at the first lane holds for the next (one query).
            let kept = old
                .into_iter()
                .filter_map(|(s, c)| {
                    let c = if self.under(ok, &s, c) {
                        c
                    } else {
                        self.largest_bound(ok, &s, c)?
                    };
                    Some((s, c))
                })
                .collect();
            wraps[k].bounds = kept;
            return;
        }
        if self.holds(ok) {
            return;
        }
        let bounds = sizes
            .iter()
            .filter_map(|s| Some((s.clone(), self.largest_bound(ok, s, i64::MAX as i128)?)))
            .collect();
        wraps.push(Wrap {
            what: what.to_string(),
            loc: loc.clone(),
            bounds,
        });
    }

    fn holds(&self, ok: &Cond) -> bool {
        self.smt.holds(self.solver, ok)
    }

    /// Whether `ok` is proved under `size <= c`.
    fn under(&self, ok: &Cond, size: &str, c: i128) -> bool {
        self.solver.push();
        let b = Cond::cmp(Rel::Le, &Poly::sym(size), &Poly::constant(c));
        self.solver.assert(&self.smt.cond(&b));
        let r = self.smt.holds(self.solver, ok);
        self.solver.pop(1);
        r
    }

    /// The largest `c` in `[1, hi]` with `ok` proved under `size <= c`: doubling from
    /// 1, then bisecting (the proved side only ever moves to a proved value). Small
    /// bounds (a product of two sizes, where queries are costly) take few queries.
    fn largest_bound(&self, ok: &Cond, size: &str, mut hi: i128) -> Option<i128> {
        let under = |c: i128| self.under(ok, size, c);
        if !under(1) {
            return None;
        }
        let mut lo = 1i128;
        loop {
            let c = (lo * 2).min(hi);
            if c == lo {
                return Some(lo);
            }
            if !under(c) {
                hi = c;
                break;
            }
            lo = c;
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if under(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(lo)
    }
}

/// What needs a bound: `(what, lines)`, e.g. `("i32 loop counter", ["kernel.py:14"])`.
type Needs = Vec<(String, Vec<String>)>;

/// What a proof's integer obligations add to its claim.
#[derive(Debug, Default)]
pub(super) struct WrapClaim {
    /// `(size, c, reasons)`: the tightest bound per size, with what needs it
    /// (`(what, lines)`).
    pub bounds: Vec<(String, i64, Needs)>,
    /// Obligations no one-size bound the instance admits settles: `(what, lines)`.
    pub assumed: Vec<(String, Vec<String>)>,
}

impl WrapClaim {
    /// Per path and place, the bound the launch's instance admits with the largest
    /// value; per size, the least of those.
    pub(super) fn of(paths: &[Path], inst: &Instance) -> WrapClaim {
        let mut claim = WrapClaim::default();
        for w in paths.iter().flat_map(|p| &p.wraps) {
            let line = w.loc.to_string();
            let best = w
                .bounds
                .iter()
                .filter(|(s, c)| inst.sizes.get(s).is_some_and(|v| (*v as i128) <= *c))
                .max_by_key(|(_, c)| *c);
            match best {
                Some((s, c)) => {
                    let c = i64::try_from(*c).unwrap_or(i64::MAX);
                    match claim.bounds.iter_mut().find(|(t, ..)| t == s) {
                        Some(b) if c < b.1 => *b = (s.clone(), c, Vec::new()),
                        Some(b) if c == b.1 => {}
                        Some(_) => continue,
                        None => claim.bounds.push((s.clone(), c, Vec::new())),
                    }
                    let b = claim.bounds.iter_mut().find(|(t, ..)| t == s);
                    add_line(&mut b.expect("just set").2, &w.what, line);
                }
                None => add_line(&mut claim.assumed, &w.what, line),
            }
        }
        claim.bounds.sort();
        claim
    }

    /// The constraints to print: `N <= 2147483644 (i32 loop counter at kernel.py:14)`,
    /// then `i32 index arithmetic not overflowing (kernel.py:12)`.
    pub(super) fn constraints(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .bounds
            .iter()
            .map(|(s, c, why)| format!("{s} <= {c} ({})", reasons(why)))
            .collect();
        for (what, lines) in &self.assumed {
            out.push(format!("{what} not overflowing ({})", lines.join(", ")));
        }
        out
    }

    /// A size just past one of the bounds, where the bounded checker (whose integers
    /// wrap) fails: the claim would be wrong there, so it is refuted. Only sizes the
    /// candidate constraints `cand` admit, and instances small enough to run.
    pub(super) fn refute_past(
        &self,
        kernel: &Kernel,
        inst: &Instance,
        cand: &[Bound],
        replay: impl Fn(&[(String, i64)]) -> Option<String>,
    ) -> Option<Scope> {
        for (s, c, why) in &self.bounds {
            let past = c.checked_add(1)?;
            if cand.iter().any(|b| b.excludes(s, past)) {
                continue;
            }
            let mut at: Vec<(String, i64)> =
                inst.sizes.iter().map(|(k, v)| (k.clone(), *v)).collect();
            for (k, v) in at.iter_mut() {
                if k == s {
                    *v = past;
                }
            }
            let overrides: BTreeMap<String, i64> = at.iter().cloned().collect();
            let Ok(there) = kernel.instance(&overrides) else {
                continue;
            };
            let elems: usize = there
                .tensors
                .iter()
                .map(|t| t.shape.iter().product::<usize>())
                .sum();
            let programs: i64 = there.grid.iter().product();
            if elems > REPLAY_ELEMS || programs > REPLAY_PROGRAMS {
                continue;
            }
            if let Some(reason) = replay(&at) {
                return Some(Scope::Refuted {
                    sizes: at,
                    reason: format!(
                        "{reason} (past {s} <= {c}, which the {} needs)",
                        reasons(why)
                    ),
                });
            }
        }
        None
    }
}

/// `lines` by what they hold, `line` added under `what` once.
fn add_line(by_what: &mut Vec<(String, Vec<String>)>, what: &str, line: String) {
    match by_what.iter_mut().find(|(w, _)| w == what) {
        Some((_, lines)) if lines.contains(&line) => {}
        Some((_, lines)) => lines.push(line),
        None => by_what.push((what.to_string(), vec![line])),
    }
}

/// `i32 loop counter at kernel.py:14; cast to i16 at kernel.py:9, kernel.py:12`.
fn reasons(why: &[(String, Vec<String>)]) -> String {
    let parts: Vec<String> = why
        .iter()
        .map(|(what, lines)| format!("{what} at {}", lines.join(", ")))
        .collect();
    parts.join("; ")
}

/// Largest instance replayed past a bound (elements of all tensors, programs).
const REPLAY_ELEMS: usize = 1 << 17;
const REPLAY_PROGRAMS: i64 = 1 << 15;
